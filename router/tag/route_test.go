package tag

import (
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// fixture is a named provider list.
type fixture struct {
	ids  []string
	urls []*router.URL
}

func providers(t testing.TB, kv ...string) fixture {
	t.Helper()
	var f fixture
	for i := 0; i+1 < len(kv); i += 2 {
		f.ids = append(f.ids, kv[i])
		f.urls = append(f.urls, router.MustParseURL(kv[i+1]))
	}
	return f
}

func (f fixture) names(s *router.Set) string {
	var out []string
	s.ForEach(func(i int) { out = append(out, f.ids[i]) })
	return strings.Join(out, " ")
}

// The §11 tag-vector providers: t1 gray, t2 blue, t3 and t4 untagged.
func vectorProviders(t testing.TB) fixture {
	return providers(t,
		"t1", "dubbo://10.0.0.1:20880/com.foo.BarService?application=prov&dubbo.tag=gray&env=canary",
		"t2", "dubbo://10.0.0.2:20880/com.foo.BarService?application=prov&dubbo.tag=blue&env=prod",
		"t3", "dubbo://10.0.0.3:20880/com.foo.BarService?application=prov&env=canary",
		"t4", "dubbo://10.0.0.4:20881/com.foo.BarService?application=prov",
	)
}

const ruleR1 = `force: false
enabled: true
key: prov
tags:
  - name: gray
    addresses: ["10.0.0.3:20880"]
`

type routeCase struct {
	name     string
	rule     string // "" = no rule
	consumer string // consumer URL, "" = plain
	att      router.AttachmentMap
	in       []string // nil = all providers
	want     string   // provider ids in order, "" = none
	branch   router.Branch
}

func runRouteCases(t *testing.T, f fixture, cases []routeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rule *Rule
			if tc.rule != "" {
				rule = mustParse(t, tc.rule)
			}
			cons := "consumer://127.0.0.1/com.foo.BarService?application=cons"
			if tc.consumer != "" {
				cons = tc.consumer
			}
			u := router.NewUniverse(len(f.urls))
			c := Compile(rule, u, router.MustParseURL(cons), f.urls)
			in := u.All()
			if tc.in != nil {
				var idx []int
				for _, id := range tc.in {
					for i, x := range f.ids {
						if x == id {
							idx = append(idx, i)
						}
					}
				}
				in = u.Of(idx...)
			}
			step := &router.Step{Router: "tag"}
			got := c.Route(in, &router.Call{Method: "sayHello", Attachments: tc.att}, step)
			if f.names(got) != tc.want {
				t.Errorf("got [%s], want [%s] (%s: %s)", f.names(got), tc.want, step.Branch, step.Detail)
			}
			if step.Branch != tc.branch {
				t.Errorf("branch %s, want %s (%s)", step.Branch, tc.branch, step.Detail)
			}
			if step.Detail == "" && tc.branch != router.BranchEmptyInput {
				t.Error("explain detail is empty")
			}
			if u.AndNot(got, in) != u.None() {
				t.Error("result is not a subset of the input")
			}
			// Without a step the result must be the same.
			if again := c.Route(in, &router.Call{Attachments: tc.att}, nil); again != got {
				t.Error("result differs without a step")
			}
		})
	}
}

// TestSpecTagVectors are the §11 tag vectors, plus the cases they describe
// in words (tag-01 … tag-25), on the §11 providers.
func TestSpecTagVectors(t *testing.T) {
	f := vectorProviders(t)
	tag := func(v string) router.AttachmentMap { return router.AttachmentMap{TagKey: v} }
	forced := func(v string) router.AttachmentMap { return router.AttachmentMap{TagKey: v, ForceTagKey: "true"} }
	runRouteCases(t, f, []routeCase{
		{name: "static hit", att: tag("gray"), want: "t1", branch: router.BranchStatic},
		{name: "tag-02 no rule, unknown tag downgrades to untagged", att: tag("red"), want: "t3 t4", branch: router.BranchStaticFallback},
		{name: "tag-03 no rule, unknown tag forced", att: forced("red"), want: "", branch: router.BranchStaticForcedEmpty},
		{name: "static tagless request gets untagged only", want: "t3 t4", branch: router.BranchTagless},
		{name: "consumer URL tag is the fallback", consumer: "consumer://127.0.0.1/x?dubbo.tag=blue", want: "t2", branch: router.BranchStatic},
		{name: "empty attachment falls back to consumer URL tag", consumer: "consumer://127.0.0.1/x?dubbo.tag=blue", att: tag(""), want: "t2", branch: router.BranchStatic},
		{name: "attachment beats consumer URL tag", consumer: "consumer://127.0.0.1/x?dubbo.tag=blue", att: tag("gray"), want: "t1", branch: router.BranchStatic},
		{name: "consumer URL force is the default", consumer: "consumer://127.0.0.1/x?dubbo.force.tag=true", att: tag("red"), want: "", branch: router.BranchStaticForcedEmpty},
		{name: "force attachment false beats consumer URL force", consumer: "consumer://127.0.0.1/x?dubbo.force.tag=true", att: router.AttachmentMap{TagKey: "red", ForceTagKey: "false"}, want: "t3 t4", branch: router.BranchStaticFallback},
		{name: "force TRUE in any case", att: router.AttachmentMap{TagKey: "red", ForceTagKey: "TRUE"}, want: "", branch: router.BranchStaticForcedEmpty},
		{name: "force yes is not true", att: router.AttachmentMap{TagKey: "red", ForceTagKey: "yes"}, want: "t3 t4", branch: router.BranchStaticFallback},
		{name: "static comparison is exact", att: tag("Gray"), want: "t3 t4", branch: router.BranchStaticFallback},
		{name: "tag-09 R1 dynamic beats static", rule: ruleR1, att: tag("gray"), want: "t3", branch: router.BranchDynamicHit},
		{name: "tag-11 R1 unknown tag fails over to unclaimed untagged", rule: ruleR1, att: tag("red"), want: "t4", branch: router.BranchFallbackUntagged},
		{name: "tag-12 R1 tagless gets unclaimed untagged", rule: ruleR1, want: "t4", branch: router.BranchTagless},
		{name: "R1 static tag not in rule still routes", rule: ruleR1, att: tag("blue"), want: "t2", branch: router.BranchStaticInDynamic},
		{name: "R1 unknown tag forced", rule: ruleR1, att: forced("red"), want: "", branch: router.BranchForcedEmpty},
		{name: "tag-17 every provider claimed: tagless gets nothing", rule: "tags: [{name: gray, addresses: [\"10.0.0.*\"]}]", want: "", branch: router.BranchTagless},
		{name: "ip-only address matches any port", rule: "tags: [{name: gray, addresses: [\"10.0.0.4\"]}]", att: tag("gray"), want: "t4", branch: router.BranchDynamicHit},
		{name: "wildcard address", rule: "tags: [{name: gray, addresses: [\"10.0.0.*:20880\"]}]", att: tag("gray"), want: "t1 t2 t3", branch: router.BranchDynamicHit},
		{name: "cidr address", rule: "tags: [{name: gray, addresses: [\"10.0.0.0/31\"]}]", att: tag("gray"), want: "t1", branch: router.BranchDynamicHit},
		{name: "anyhost port address", rule: "tags: [{name: gray, addresses: [\"0.0.0.0:20881\"]}]", att: tag("gray"), want: "t4", branch: router.BranchDynamicHit},
		{name: "tag in rule absent, rule force", rule: "force: true\ntags: [{name: gray, addresses: [\"10.9.9.9\"]}]", att: tag("gray"), want: "", branch: router.BranchDynamicForceEmpty},
		{name: "tag in rule absent, no force: static tag is not consulted, failover", rule: "tags: [{name: gray, addresses: [\"10.9.9.9\"]}]", att: tag("gray"), want: "t3 t4", branch: router.BranchFallbackUntagged},
		{name: "tag in rule absent, request force only", rule: "tags: [{name: gray, addresses: [\"10.9.9.9\"]}]", att: forced("gray"), want: "", branch: router.BranchForcedEmpty},
		{name: "rule force does not stop failover of a tag not in the rule", rule: "force: true\n" + ruleR1, att: tag("red"), want: "t4", branch: router.BranchFallbackUntagged},
		{name: "disabled rule is static routing", rule: strings.Replace(ruleR1, "enabled: true", "enabled: false", 1), att: tag("gray"), want: "t1", branch: router.BranchStatic},
		{name: "invalid rule (valid false) is static routing", rule: "valid: false\n" + ruleR1, att: tag("red"), want: "t3 t4", branch: router.BranchStaticFallback},
		{name: "v3.0 match claims by provider parameter", rule: "configVersion: v3.0\ntags: [{name: c, match: [{key: env, value: {exact: canary}}]}]", att: tag("c"), want: "t1 t3", branch: router.BranchDynamicHit},
		{name: "v3.0 match claims for the tagless request too", rule: "configVersion: v3.0\ntags: [{name: c, match: [{key: env, value: {exact: canary}}]}]", want: "t4", branch: router.BranchTagless},
		{name: "tag-25 v3.1 ignores match", rule: "configVersion: v3.1\ntags: [{name: c, match: [{key: env, value: {exact: canary}}]}]", att: tag("c"), want: "t3 t4", branch: router.BranchFallbackUntagged},
		{name: "match with no member leaves the tag out", rule: "configVersion: v3.0\ntags: [{name: c, match: [{key: env, value: {exact: nope}}]}]", att: tag("c"), want: "t3 t4", branch: router.BranchFallbackUntagged},
		{name: "addresses win over match", rule: "configVersion: v3.0\ntags: [{name: c, addresses: [10.0.0.4], match: [{key: env, value: {exact: canary}}]}]", att: tag("c"), want: "t4", branch: router.BranchDynamicHit},
		{name: "duplicate names: last addresses win", rule: "tags: [{name: g, addresses: [10.0.0.1]}, {name: g, addresses: [10.0.0.2]}]", att: tag("g"), want: "t2", branch: router.BranchDynamicHit},
		{name: "duplicate names: match replaces addresses", rule: "configVersion: v3.0\ntags: [{name: g, match: [{key: env, value: {exact: prod}}]}, {name: g, addresses: [10.0.0.1]}]", att: tag("g"), want: "t2", branch: router.BranchDynamicHit},
		{name: "input subset: S non-empty refers to the input", rule: ruleR1, att: tag("gray"), in: []string{"t1", "t4"}, want: "t4", branch: router.BranchFallbackUntagged},
		{name: "input subset: static hit only within input", att: tag("gray"), in: []string{"t2", "t3"}, want: "t3", branch: router.BranchStaticFallback},
		{name: "input subset: tagless all claimed within input", rule: ruleR1, in: []string{"t1", "t3"}, want: "", branch: router.BranchTagless},
		{name: "empty input", rule: ruleR1, att: tag("gray"), in: []string{}, want: "", branch: router.BranchEmptyInput},
	})
}

// TestMultiLevelTags is §6.3's selectAddressByTagLevel (TagStateRouterTest
// tagMultiLevelTest): a|b|c tries a|b|c, a|b, a; the first name present in
// the rule wins even if its addresses match no input provider; static tags
// compare the full tag; request force disables the levels.
func TestMultiLevelTags(t *testing.T) {
	f := providers(t,
		"p1", "dubbo://10.0.0.1:20880/S?dubbo.tag=a|b|x",
		"p2", "dubbo://10.0.0.2:20880/S",
		"p3", "dubbo://10.0.0.3:20880/S",
		"p4", "dubbo://10.0.0.4:20880/S",
	)
	rule := `tags:
  - name: a
    addresses: [10.0.0.2]
  - name: a|b
    addresses: [10.0.0.3]
  - name: z|y
    addresses: [10.9.9.9]
`
	tag := func(v string) router.AttachmentMap { return router.AttachmentMap{TagKey: v} }
	runRouteCases(t, f, []routeCase{
		{name: "full name present", rule: rule, att: tag("a|b"), want: "p3", branch: router.BranchDynamicHit},
		{name: "falls back one level", rule: rule, att: tag("a|b|c"), want: "p3", branch: router.BranchDynamicHit},
		{name: "falls back to the first level", rule: rule, att: tag("a|c|d"), want: "p2", branch: router.BranchDynamicHit},
		{name: "trailing empty levels are dropped like Java split", rule: rule, att: tag("a|b||"), want: "p3", branch: router.BranchDynamicHit},
		{name: "trailing bars never look up a name ending in a bar", rule: "tags: [{name: 'a|', addresses: [10.0.0.2]}, {name: a, addresses: [10.0.0.3]}]", att: tag("a||"), want: "p3", branch: router.BranchDynamicHit},
		{name: "empty middle level", rule: rule, att: tag("a||b"), want: "p2", branch: router.BranchDynamicHit},
		{name: "no level present: static tag compares full tag", rule: rule, att: tag("q|r"), want: "p4", branch: router.BranchFallbackUntagged},
		{name: "static tag with bars compared in full", rule: "tags: [{name: zz, addresses: [10.9.9.9]}]", att: tag("a|b|x"), want: "p1", branch: router.BranchStaticInDynamic},
		{name: "forced request looks up the full tag only", rule: rule, att: router.AttachmentMap{TagKey: "a|b|c", ForceTagKey: "true"}, want: "", branch: router.BranchForcedEmpty},
		{name: "first present level wins even with no provider", rule: rule, att: tag("z|y|w"), want: "p4", branch: router.BranchFallbackUntagged},
		{name: "only bars is no tag level", rule: rule, att: tag("||"), want: "p4", branch: router.BranchFallbackUntagged},
		{name: "levels only for dynamic rules", att: tag("a|b|x|y"), want: "p2 p3 p4", branch: router.BranchStaticFallback},
	})
}

// TestSeed001StaticTags are the static-tag statements of seed
// 001_65cc391f3d881ca8.txt (Dubbo 2.6 TagRouter, unchanged for static tags):
// tag=red prefers red providers, else untagged unless dubbo.force.tag; no
// tag reaches untagged providers only, never other tags.
func TestSeed001StaticTags(t *testing.T) {
	f := providers(t,
		"red", "dubbo://10.0.0.1:20880/com.xuzhaocai.dubbo.provider.IHelloProviderService?dubbo.tag=red",
		"blue", "dubbo://10.0.0.2:20880/com.xuzhaocai.dubbo.provider.IHelloProviderService?dubbo.tag=blue",
		"plain", "dubbo://10.0.0.3:20880/com.xuzhaocai.dubbo.provider.IHelloProviderService",
	)
	onlyTagged := providers(t,
		"red", "dubbo://10.0.0.1:20880/S?dubbo.tag=red",
		"blue", "dubbo://10.0.0.2:20880/S?dubbo.tag=blue",
	)
	att := func(kv ...string) router.AttachmentMap {
		m := router.AttachmentMap{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	runRouteCases(t, f, []routeCase{
		{name: "request.tag=red selects red providers", att: att(TagKey, "red"), want: "red", branch: router.BranchStatic},
		{name: "request.tag=green without red providers downgrades to tag=null providers", att: att(TagKey, "green"), want: "plain", branch: router.BranchStaticFallback},
		{name: "dubbo.force.tag=true forbids the downgrade", att: att(TagKey, "green", ForceTagKey, "true"), want: "", branch: router.BranchStaticForcedEmpty},
		{name: "dubbo.force.tag=false downgrades", att: att(TagKey, "green", ForceTagKey, "false"), want: "plain", branch: router.BranchStaticFallback},
		{name: "request.tag=null only reaches tag=null providers", want: "plain", branch: router.BranchTagless},
	})
	runRouteCases(t, onlyTagged, []routeCase{
		{name: "request without tag never reaches tagged providers", want: "", branch: router.BranchTagless},
		{name: "other tag never reaches tagged providers", att: att(TagKey, "green"), want: "", branch: router.BranchStaticFallback},
	})
}

func TestCompileSurvivesOddProviderLists(t *testing.T) {
	rule := mustParse(t, "configVersion: v3.0\ntags: [{name: a, addresses: ['*']}, {name: b, match: [{key: env, value: {noempty: x}}]}]")
	u := router.NewUniverse(3)
	// Fewer URLs than members, a nil URL and a hostname host.
	c := Compile(rule, u, nil, []*router.URL{nil, router.MustParseURL("dubbo://provider.local:20880/S?env=x")})
	got := c.Route(u.All(), &router.Call{Attachments: router.AttachmentMap{TagKey: "a"}}, nil)
	if got != u.All() {
		t.Fatalf("'*' must claim every member, got %d", got.Len())
	}
	got = c.Route(u.All(), nil, nil) // nil call: tagless
	if !got.Empty() {
		t.Fatalf("every member is claimed: tagless gets nothing, got %d", got.Len())
	}
	empty := Compile(nil, router.NewUniverse(0), nil, nil)
	if out := empty.Route(router.NewUniverse(0).All(), nil, nil); !out.Empty() {
		t.Fatal("empty universe")
	}
}

func TestRouteDoesNotAllocate(t *testing.T) {
	f := vectorProviders(t)
	rule := mustParse(t, "configVersion: v3.0\ntags:\n  - name: gray\n    addresses: [\"10.0.0.3:20880\"]\n  - name: a|b\n    addresses: [\"10.0.0.1\"]\n  - name: c\n    match: [{key: env, value: {exact: prod}}]\n")
	for _, r := range []*Rule{nil, rule} {
		u := router.NewUniverse(len(f.urls))
		c := Compile(r, u, router.MustParseURL("consumer://127.0.0.1/x?dubbo.tag=blue"), f.urls)
		sub := u.Of(0, 3)
		calls := []*router.Call{
			{Attachments: router.AttachmentMap{TagKey: "gray"}},
			{Attachments: router.AttachmentMap{TagKey: "red"}},
			{Attachments: router.AttachmentMap{TagKey: "red", ForceTagKey: "true"}},
			{Attachments: router.AttachmentMap{TagKey: "a|b|c"}},
			{Attachments: router.AttachmentMap{TagKey: "c"}},
			{Attachments: router.AttachmentMap{}},
			{},
		}
		for _, call := range calls { // warm the memo tables
			c.Route(u.All(), call, nil)
			c.Route(sub, call, nil)
		}
		allocs := testing.AllocsPerRun(500, func() {
			for _, call := range calls {
				c.Route(u.All(), call, nil)
				c.Route(sub, call, nil)
			}
		})
		if allocs != 0 {
			t.Fatalf("rule=%v: Route allocates %.1f per run", r != nil, allocs)
		}
	}
}
