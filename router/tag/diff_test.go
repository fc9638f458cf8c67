package tag

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// refRoute follows §6.3's pseudo-code literally: it builds Java's tag ->
// addresses map from the rule on every call and filters provider by provider.
// It shares only AddressPattern.Match and ParamMatch.Match with the package
// (both have their own table tests).
func refRoute(rule *Rule, consumer *router.URL, all []*router.URL, in []int, att router.AttachmentMap) []int {
	if len(in) == 0 {
		return in
	}
	tag := att[TagKey]
	if tag == "" {
		tag = consumer.Params.Value(TagKey)
	}
	forceText := att[ForceTagKey]
	if forceText == "" {
		forceText = consumer.Params.Value(ForceTagKey)
	}
	force := strings.EqualFold(forceText, "true")
	staticTag := func(i int) string { return all[i].Params.Value(TagKey) }
	filter := func(from []int, keep func(i int) bool) []int {
		out := []int{}
		for _, i := range from {
			if keep(i) {
				out = append(out, i)
			}
		}
		return out
	}
	untagged := func(i int) bool { return staticTag(i) == "" }

	if rule == nil || !rule.Valid || !rule.Enabled || len(rule.Tags) == 0 {
		if tag != "" {
			s := filter(in, func(i int) bool { return staticTag(i) == tag })
			if len(s) == 0 && !force {
				s = filter(in, untagged)
			}
			return s
		}
		return filter(in, untagged)
	}

	// TagRouterRule.init, literally.
	tagAddrs := map[string][]string{}
	for _, t := range rule.Tags {
		if len(t.Addresses) > 0 {
			tagAddrs[t.Name] = t.Addresses
		}
	}
	if strings.HasPrefix(rule.ConfigVersion, "v3.0") && len(all) > 0 {
		for _, t := range rule.Tags {
			if len(t.Addresses) > 0 || !t.MatchSet {
				continue
			}
			var addrs []string
			for _, p := range all {
				ok := true
				for _, m := range t.Match {
					if !m.Match(p.Params) {
						ok = false
						break
					}
				}
				if ok && !slices.Contains(addrs, p.Address()) {
					addrs = append(addrs, p.Address())
				}
			}
			if len(addrs) > 0 {
				tagAddrs[t.Name] = addrs
			}
		}
	}
	var allAddrs []string
	for _, a := range tagAddrs {
		allAddrs = append(allAddrs, a...)
	}
	matches := func(i int, addrs []string) bool {
		for _, a := range addrs {
			p, _ := router.ParseAddressPatternWith(a, nil)
			if p.Match(all[i].Host, all[i].Port) {
				return true
			}
		}
		return false
	}
	// selectAddressByTagLevel with Java's split (trailing empties dropped).
	selectAddrs := func() []string {
		if force || !strings.Contains(tag, "|") {
			return tagAddrs[tag]
		}
		parts := strings.Split(tag, "|")
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		for i := len(parts); i > 0; i-- {
			if a := tagAddrs[strings.Join(parts[:i], "|")]; len(a) > 0 {
				return a
			}
		}
		return nil
	}

	if tag != "" {
		var s []int
		if a := selectAddrs(); a != nil {
			s = filter(in, func(i int) bool { return matches(i, a) })
			if len(s) > 0 || rule.Force {
				return s
			}
		} else {
			s = filter(in, func(i int) bool { return staticTag(i) == tag })
		}
		if len(s) > 0 || force {
			return s
		}
		tmp := filter(in, func(i int) bool { return !matches(i, allAddrs) })
		return filter(tmp, untagged)
	}
	s := in
	if len(allAddrs) > 0 {
		s = filter(in, func(i int) bool { return !matches(i, allAddrs) })
		if len(s) == 0 {
			return s
		}
	}
	return filter(s, untagged)
}

var (
	diffHosts    = []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.1.1", "10.0.1.2", "192.168.0.9", "[fe80::1]", "[fe80::2]"}
	diffPorts    = []int{20880, 20881, 0}
	diffTags     = []string{"", "", "gray", "blue", "a", "a|b", "a|b|c"}
	diffEnvs     = []string{"", "canary", "prod", "-"} // "-" = absent
	diffNames    = []string{"gray", "blue", "a", "a|b", "a|b|c", "x|y", "a|", ""}
	diffPatterns = []string{"10.0.0.1", "10.0.0.2:20880", "10.0.0.*", "10.0.0.*:20881", "10.0.1.1-2", "10.0.0.0/31",
		"0.0.0.0:20881", "*", "fe80::1", "[fe80::2]:20880", "fe80:0:0:0:0:0:0:1-2", "10.9.9.9", "192.168.0.0/16", "::/96"}
	diffReqTags  = []string{"", "gray", "blue", "red", "a", "a|b", "a|b|c", "a|x", "a|b|", "a||", "|a", "x|y|z", "a|b|c|d"}
	diffForces   = []string{"-", "", "true", "TRUE", "false", "yes"}
	diffMatchers = []string{"{exact: canary}", "{prefix: pro}", "{regex: 'c.*y'}", "{wildcard: '*'}", "{empty: x}", "{noempty: x}", "{exact: canary, empty: x}"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randomRuleYAML(r *rand.Rand) string {
	if r.IntN(8) == 0 {
		return ""
	}
	var b strings.Builder
	switch r.IntN(3) {
	case 0:
		b.WriteString("configVersion: v3.0\n")
	case 1:
		b.WriteString("configVersion: v3.1\n")
	}
	if r.IntN(3) == 0 {
		b.WriteString("force: true\n")
	}
	if r.IntN(10) == 0 {
		b.WriteString("enabled: false\n")
	}
	n := r.IntN(4)
	if n == 0 {
		b.WriteString("tags: []\n")
		return b.String()
	}
	b.WriteString("tags:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: %q\n", pick(r, diffNames))
		if r.IntN(3) != 0 {
			b.WriteString("    addresses:\n")
			for k := r.IntN(3) + 1; k > 0; k-- {
				fmt.Fprintf(&b, "      - %q\n", pick(r, diffPatterns))
			}
		}
		if r.IntN(2) == 0 {
			b.WriteString("    match:\n")
			for k := r.IntN(3); k > 0; k-- {
				fmt.Fprintf(&b, "      - key: env\n        value: %s\n", pick(r, diffMatchers))
			}
			if r.IntN(4) == 0 {
				b.WriteString("      - key: env\n") // no value: never matches
			}
		}
	}
	return b.String()
}

// TestDifferentialAgainstReference routes ≥100,000 random (rule, providers,
// consumer, input subset, request) cases through Compile/Route and through
// refRoute, and requires identical results.
func TestDifferentialAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(20240601, 3))
	const snapshots, requests = 2500, 44
	cases := 0
	branches := map[router.Branch]int{}
	for s := 0; s < snapshots; s++ {
		text := randomRuleYAML(r)
		var rule *Rule
		if text != "" {
			var err error
			if rule, err = ParseRuleWith(text, nil); err != nil {
				// Java rejects a v3.0 rule holding a tag with neither
				// addresses nor match: no dynamic rule applies.
				if !strings.Contains(err.Error(), "needs addresses or match") {
					t.Fatalf("generated rule rejected: %v\n%s", err, text)
				}
				rule = nil
			}
		}
		n := r.IntN(10)
		urls := make([]*router.URL, n)
		for i := range urls {
			q := "application=prov"
			if tg := pick(r, diffTags); tg != "" {
				q += "&dubbo.tag=" + tg
			}
			if env := pick(r, diffEnvs); env != "-" {
				q += "&env=" + env
			}
			host, port := pick(r, diffHosts), pick(r, diffPorts)
			addr := host
			if port > 0 {
				addr = fmt.Sprintf("%s:%d", host, port)
			}
			urls[i] = router.MustParseURL("dubbo://" + addr + "/com.foo.S?" + q)
		}
		cq := "application=cons"
		if r.IntN(4) == 0 {
			cq += "&dubbo.tag=" + pick(r, diffReqTags)
		}
		if r.IntN(4) == 0 {
			cq += "&dubbo.force.tag=" + pick(r, diffForces)
		}
		consumer := router.MustParseURL("consumer://127.0.0.1/com.foo.S?" + cq)
		u := router.NewUniverse(n)
		c := Compile(rule, u, consumer, urls)
		for q := 0; q < requests; q++ {
			var in []int
			inSet := u.All()
			if r.IntN(3) == 0 {
				for i := 0; i < n; i++ {
					if r.IntN(2) == 0 {
						in = append(in, i)
					}
				}
				inSet = u.Of(in...)
			} else {
				for i := 0; i < n; i++ {
					in = append(in, i)
				}
			}
			att := router.AttachmentMap{}
			if tg := pick(r, diffReqTags); tg != "" || r.IntN(2) == 0 {
				att[TagKey] = tg
			}
			if f := pick(r, diffForces); f != "-" {
				att[ForceTagKey] = f
			}
			want := refRoute(rule, consumer, urls, in, att)
			var step *router.Step
			if q%2 == 0 {
				step = &router.Step{}
			}
			got := c.Route(inSet, &router.Call{Attachments: att}, step).AppendMembers(nil)
			if step != nil {
				branches[step.Branch]++
			}
			if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
				var ps []string
				for i, p := range urls {
					ps = append(ps, fmt.Sprintf("  %d %s", i, p))
				}
				t.Fatalf("case %d: got %v want %v\nrule:\n%s\nconsumer %s\nproviders:\n%s\ninput %v attachments %v",
					cases, got, want, text, consumer, strings.Join(ps, "\n"), in, att)
			}
			cases++
		}
	}
	if cases < 100000 {
		t.Fatalf("only %d cases", cases)
	}
	// The generator must reach every branch, or the comparison proves little.
	for _, b := range []router.Branch{router.BranchEmptyInput, router.BranchStatic, router.BranchStaticFallback,
		router.BranchStaticForcedEmpty, router.BranchDynamicHit, router.BranchDynamicForceEmpty, router.BranchStaticInDynamic,
		router.BranchFallbackUntagged, router.BranchForcedEmpty, router.BranchTagless} {
		if branches[b] < 20 {
			t.Errorf("branch %s reached only %d times: %v", b, branches[b], branches)
		}
	}
}
