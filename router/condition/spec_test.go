package condition

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// §11: the hand-derived Java vectors over p1-p4.
func TestSpecVectors(t *testing.T) {
	cases := []struct {
		id, cond string
		force    bool
		call     router.Call
		want     string
	}{
		{"cond-08 fallback when then matches nobody", "host = 127.0.0.1 => host = 1.2.3.4", false, router.Call{}, "p1 p2 p3 p4"},
		{"cond-09 force empties", "host = 127.0.0.1 => host = 1.2.3.4", true, router.Call{}, "-"},
		{"cond-04 then false is a blacklist", "host = 127.0.0.1 => false", false, router.Call{}, "-"},
		{"cond-12 address glob on port", "=> address = *:20880", false, router.Call{}, "p1 p3"},
		{"cond-17 then $ref resolves against consumer", "=> region = $region", false, router.Call{}, "p1 p4"},
		{"cond-19 when $ref is literal", "region = $region => host = 1.2.3.4", true, router.Call{}, "p1 p2 p3 p4"},
		{"cond-20 != fails on missing key", "=> region != beijing", false, router.Call{}, "p1 p4"},
		{"cond-27 missing argument is the sentinel", "arguments[3] != x => host = 127.0.0.1", false, router.Call{Method: "m", Args: []any{"a"}}, "p3 p4"},
		{"cond-34 open upper range is broken", "attachments[user_id] = 101~ => region = beijing", true,
			router.Call{Attachments: router.AttachmentMap{"user_id": "500"}}, "p1 p2 p3 p4"},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			call := tc.call
			got, st := routeSpec(t, mustCondition(t, tc.cond, tc.force, true), &call)
			if got != tc.want {
				t.Fatalf("got %s, want %s (trace %+v)", got, tc.want, st)
			}
		})
	}
	t.Run("cond-38 provider. removed inside a value", func(t *testing.T) {
		provs := []string{"dubbo://10.0.0.1:20880/S?region=my-provider.zone", "dubbo://10.0.0.2:20880/S?region=my-zone"}
		got, _ := routeOver(t, mustCondition(t, "=> region = my-provider.zone", false, true), specConsumerText, provs, []string{"q1", "q2"}, &router.Call{}, nil)
		if got != "q2" {
			t.Fatalf("got %s, want q2", got)
		}
	})
}

// §4.2: every row of the tokeniser table.
func TestTokeniserTable(t *testing.T) {
	type term = Term
	cases := []struct {
		name, in string
		want     []term
		err      bool
	}{
		{"whitespace around separators is ignored", "host = 1.2.3.4 , 5.6.7.8", []term{{Key: "host", Match: []string{"1.2.3.4", "5.6.7.8"}}}, false},
		{"whitespace between tokens acts like &", "a=b c=d", []term{{Key: "a", Match: []string{"b"}}, {Key: "c", Match: []string{"d"}}}, false},
		{"second = adds a value", "a = b = c", []term{{Key: "a", Match: []string{"b", "c"}}}, false},
		{"= = drops the empty separator", "a = = b", []term{{Key: "a", Match: []string{"b"}}}, false},
		{"& & gives a bare key", "a & & b=c", []term{{Key: "a"}, {Key: "b", Match: []string{"c"}}}, false},
		{"leading & is allowed", "&a=1", []term{{Key: "a", Match: []string{"1"}}}, false},
		{"a= is a bare key", "a=", []term{{Key: "a"}}, false},
		{"a alone is a bare key", "a", []term{{Key: "a"}}, false},
		{"trailing & is ignored", "a=b&", []term{{Key: "a", Match: []string{"b"}}}, false},
		{"!= values are mismatches", "a != b,c", []term{{Key: "a", Mismatch: []string{"b", "c"}}}, false},
		{"duplicates collapse like a HashSet", "a=1,1,2", []term{{Key: "a", Match: []string{"1", "2"}}}, false},
		{"comma continues the last set written across &", "a=1&b,2", []term{{Key: "a", Match: []string{"1", "2"}}, {Key: "b"}}, false},
		{"& re-uses an existing key", "a=1&a=2", []term{{Key: "a", Match: []string{"1", "2"}}}, false},
		{"a new key of the same name replaces the old", "a=1 a=2", []term{{Key: "a", Match: []string{"2"}}}, false},
		{"= then != on one key", "a=1!=2", []term{{Key: "a", Match: []string{"1"}, Mismatch: []string{"2"}}}, false},
		{"=a at the start has no key", "=a", nil, true},
		{"!=a at the start has no key", "!=a", nil, true},
		{"comma before any value", "a,b=c", nil, true},
		{"== is unknown", "a==b", nil, true},
		{"=! is unknown", "a=!b", nil, true},
		{"lone ! is unknown", "a ! b", nil, true},
		{"&& is unknown", "a=1&&b=2", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var fs []Finding
			p, err := parsePart(tc.in, 0, 0, true, &fs)
			if tc.err {
				if err == nil {
					t.Fatalf("parsePart(%q) accepted: %+v", tc.in, p)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsePart(%q): %v", tc.in, err)
			}
			if !reflect.DeepEqual(p.Terms, tc.want) {
				t.Fatalf("parsePart(%q) = %+v, want %+v", tc.in, p.Terms, tc.want)
			}
		})
	}
}

// §4.1 pre-processing and §4.3 errors.
func TestPreprocessing(t *testing.T) {
	cases := []struct {
		name, cond string
		call       router.Call
		want       string
		err        bool
	}{
		{"blank condition is rejected", "   ", router.Call{}, "", true},
		{"empty condition is rejected", "", router.Call{}, "", true},
		{"arrow alone blocks everything", "=>", router.Call{}, "-", false},
		{"blank then blocks matching consumers", "application = cons-app =>", router.Call{}, "-", false},
		{"blank then leaves other consumers", "application = other =>", router.Call{}, "p1 p2 p3 p4", false},
		{"no arrow means then-part only", "region = beijing", router.Call{}, "p2", false},
		{"when true matches every consumer", "true => region = beijing", router.Call{}, "p2", false},
		{"then false is a blacklist", "=> false", router.Call{}, "-", false},
		{"True is not the literal true", "True => region = beijing", router.Call{}, "p1 p2 p3 p4", false},
		{"False is not the literal false", "=> False", router.Call{}, "p1 p2 p3 p4", false},
		{"only the first arrow splits: a later => is a value and a key", "=> region = beijing => x", router.Call{}, "p1 p2 p3 p4", false},
		{"consumer. and provider. prefixes are deleted", "consumer.application = cons-app => provider.region = beijing", router.Call{}, "p2", false},
		{"parse error in when rejects", "=a => region = beijing", router.Call{}, "", true},
		{"parse error in then rejects", "=> region == beijing", router.Call{}, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseCondition(tc.cond, false, true)
			if tc.err {
				if err == nil {
					t.Fatalf("accepted %q", tc.cond)
				}
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Index != 0 || pe.Condition != tc.cond {
					t.Fatalf("error %v does not name condition #0 %q", err, tc.cond)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			call := tc.call
			if got, _ := routeSpec(t, r, &call); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// §5.1-§5.5: matcher selection, sample maps, value extraction, patterns and
// their combination. force=true so a then-part that matches nobody shows "-".
func TestMatchingTable(t *testing.T) {
	att := func(kv ...string) router.AttachmentMap {
		m := router.AttachmentMap{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name, cond string
		call       router.Call
		want       string
	}{
		// §5.2 sample maps
		{"consumer has no port key", "port = 0 => region = beijing", router.Call{}, "p1 p2 p3 p4"},
		{"consumer address is its host", "address = 127.0.0.1 => region = beijing", router.Call{}, "p2"},
		{"consumer protocol is consumer", "protocol = consumer => region = beijing", router.Call{}, "p2"},
		{"consumer path is in the map", "path = com.foo.BarService => region = beijing", router.Call{}, "p2"},
		{"then application is the provider's own", "=> application = prov-b", router.Call{}, "p3 p4"},
		{"provider port in then", "=> port = 20882", router.Call{}, "p4"},
		{"provider protocol in then", "=> protocol = dubbo", router.Call{}, "p1 p2 p3 p4"},
		{"no CIDR handling", "=> host = 10.20.0.0/16", router.Call{}, "-"},
		{"host glob", "=> host = 10.20.*", router.Call{}, "p1 p2"},
		{"any URL parameter", "=> serialization = fastjson", router.Call{}, "p4"},
		// §5.3 method
		{"method matches the call", "method = getFoo => region = beijing", router.Call{Method: "getFoo"}, "p2"},
		{"method mismatch leaves input", "method = getFoo => region = beijing", router.Call{Method: "other"}, "p1 p2 p3 p4"},
		{"methods key also reads the call", "methods = getFoo => region = beijing", router.Call{Method: "getFoo"}, "p2"},
		{"method list", "method = a,getFoo => region = beijing", router.Call{Method: "getFoo"}, "p2"},
		{"generic call uses real method name", "method = getFoo => region = beijing",
			router.Call{Method: router.RealMethodName("$invoke", []any{"getFoo", []string{}, []any{}})}, "p2"},
		{"then method is a provider parameter", "=> method = getFoo", router.Call{Method: "getFoo"}, "-"},
		{"then methods needs a glob", "=> methods = *getFoo", router.Call{}, "p1"},
		// §5.3 arguments
		{"argument string", "arguments[0] = a => region = beijing", router.Call{Args: []any{"a"}}, "p2"},
		{"argument int decimal", "arguments[1] = 42 => region = beijing", router.Call{Args: []any{"a", 42}}, "p2"},
		{"argument nil is null", "arguments[0] = null => region = beijing", router.Call{Args: []any{nil}}, "p2"},
		{"argument bool", "arguments[0] = true => region = beijing", router.Call{Args: []any{true}}, "p2"},
		{"argument double like Java", "arguments[0] = 1.0 => region = beijing", router.Call{Args: []any{1.0}}, "p2"},
		{"argument index == len is sentinel", "arguments[1] != x => region = beijing", router.Call{Args: []any{"a"}}, "p2"},
		{"argument index > len is sentinel", "arguments[5] = " + NotFoundValue + " => region = beijing", router.Call{Args: []any{"a"}}, "p2"},
		{"argument key cut at first dot", "arguments[0].name = a => region = beijing", router.Call{Args: []any{"a"}}, "p2"},
		{"arguments without index is sentinel", "arguments != a => region = beijing", router.Call{Args: []any{"a"}}, "p2"},
		{"overflowing argument index is sentinel", "arguments[99999999999] != a => region = beijing", router.Call{Args: []any{"a"}}, "p2"},
		{"generic $invoke arguments[0] is the method name", "arguments[0] = getFoo => region = beijing", router.Call{Method: "getFoo", Args: []any{"getFoo"}}, "p2"},
		{"then arguments are the sentinel", "=> arguments[0] != x", router.Call{Args: []any{"x"}}, "p1 p2 p3 p4"},
		// §5.3 attachments
		{"attachment value", "attachments[user] = bob => region = beijing", router.Call{Attachments: att("user", "bob")}, "p2"},
		{"missing attachment fails =", "attachments[user] = bob => region = beijing", router.Call{}, "p1 p2 p3 p4"},
		{"missing attachment fails !=", "attachments[user] != bob => region = beijing", router.Call{}, "p1 p2 p3 p4"},
		{"attachment name with dot is cut", "attachments[foo.bar] = x => region = beijing", router.Call{Attachments: att("foo.bar", "x")}, "p1 p2 p3 p4"},
		{"attachment name with dot is sentinel for !=", "attachments[foo.bar] != x => region = beijing", router.Call{Attachments: att("foo.bar", "x")}, "p2"},
		{"empty attachment name is sentinel", "attachments[] != x => region = beijing", router.Call{}, "p2"},
		{"attachmentsX key is sentinel", "attachmentsX != x => region = beijing", router.Call{}, "p2"},
		{"then attachments are the sentinel", "=> attachments[a] = " + NotFoundValue, router.Call{}, "p1 p2 p3 p4"},
		// §5.4 ranges
		{"closed range inclusive low", "attachments[n] = 10~20 => region = beijing", router.Call{Attachments: att("n", "10")}, "p2"},
		{"closed range inclusive high", "attachments[n] = 10~20 => region = beijing", router.Call{Attachments: att("n", "20")}, "p2"},
		{"closed range outside", "attachments[n] = 10~20 => region = beijing", router.Call{Attachments: att("n", "21")}, "p1 p2 p3 p4"},
		{"upper-bounded range", "attachments[n] = ~20 => region = beijing", router.Call{Attachments: att("n", "3")}, "p2"},
		{"a~ is default false in when", "attachments[n] = 10~ => region = beijing", router.Call{Attachments: att("n", "50")}, "p1 p2 p3 p4"},
		{"a~ is default true in then", "=> region = 10~", router.Call{}, "p1 p2 p4"},
		{"~ alone is default", "attachments[n] = ~ => region = beijing", router.Call{Attachments: att("n", "1")}, "p1 p2 p3 p4"},
		{"a~b~c behaves as a~b", "attachments[n] = 1~5~9 => region = beijing", router.Call{Attachments: att("n", "5")}, "p2"},
		{"a~~b is lower-bounded only", "attachments[n] = 5~~1 => region = beijing", router.Call{Attachments: att("n", "500")}, "p2"},
		{"non-numeric value counts as 0", "attachments[n] = ~0 => region = beijing", router.Call{Attachments: att("n", "abc")}, "p2"},
		{"negative value counts as 0", "attachments[n] = 0~0 => region = beijing", router.Call{Attachments: att("n", "-5")}, "p2"},
		{"sentinel counts as 0 in a range", "arguments[3] = 0~0 => region = beijing", router.Call{}, "p2"},
		{"overflowing value gives default", "attachments[n] = 0~9 => region = beijing", router.Call{Attachments: att("n", "99999999999")}, "p1 p2 p3 p4"},
		{"range ignores $ref", "=> port = $port~30000", router.Call{}, "p1 p2 p3 p4"},
		// §5.4 wildcards
		{"star matches anything", "=> region = *", router.Call{}, "p1 p2 p4"},
		{"prefix glob", "=> region = hang*", router.Call{}, "p1 p4"},
		{"suffix glob", "=> region = *jing", router.Call{}, "p2"},
		{"middle glob", "=> host = 10*3", router.Call{}, "p1"},
		{"prefix and suffix may overlap", "=> application = prov-*-b", router.Call{}, "p3 p4"},
		{"only the last star is special", "=> region = *hang*", router.Call{}, "-"},
		{"matching is case-sensitive", "=> region = Hangzhou", router.Call{}, "-"},
		{"question mark is literal", "=> region = hangzho?", router.Call{}, "-"},
		{"$host resolves to the consumer host", "=> host = $host", router.Call{}, "p3 p4"},
		{"$address is not special", "=> host = $address", router.Call{}, "-"},
		{"$missing matches nothing non-empty", "=> region = $nosuch", router.Call{}, "-"},
		// §5.5 combination
		{"= any of the values", "=> region = beijing,hangzhou", router.Call{}, "p1 p2 p4"},
		{"!= none of the values", "=> region != beijing,shanghai", router.Call{}, "p1 p4"},
		{"mismatch wins over match", "=> region = hangzhou,beijing & region != beijing", router.Call{}, "p1 p4"},
		{"both lists, no hit", "=> region = x & region != y", router.Call{}, "-"},
		{"bare key never matches", "=> region", router.Call{}, "-"},
		{"bare key in when never matches", "region => region = beijing", router.Call{}, "p1 p2 p3 p4"},
		{"all keys must match", "=> region = hangzhou & application = prov-b", router.Call{}, "p4"},
		{"missing key fails =", "=> env = gray", router.Call{}, "p1"},
		{"missing key fails !=", "=> env != blue", router.Call{}, "p1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			call := tc.call
			got, st := routeSpec(t, mustCondition(t, tc.cond, true, true), &call)
			if got != tc.want {
				t.Fatalf("%q: got %s, want %s (trace %+v)", tc.cond, got, tc.want, st)
			}
		})
	}
}

func TestGlobOverlap(t *testing.T) {
	g := compileGlob("ab*ba")
	if !g.match("aba") || !g.match("abba") || g.match("ab") {
		t.Fatal("ab*ba must match aba and abba, not ab")
	}
	g = compileGlob("**")
	if g.match("x") || !g.match("*x") {
		t.Fatal(`"**" must be a prefix match on "*"`)
	}
}

// §5.6: the routing algorithm of one condition, branch by branch.
func TestRoutingAlgorithmV30(t *testing.T) {
	cases := []struct {
		name, cond      string
		force, disabled bool
		in              []int
		want            string
		branch          router.Branch
	}{
		{"disabled passes input", "=> region = beijing", false, true, nil, "p1 p2 p3 p4", router.BranchDisabled},
		{"empty input stays empty", "=> region = beijing", false, false, []int{}, "-", router.BranchEmptyInput},
		{"when mismatch passes input", "application = x => region = beijing", false, false, nil, "p1 p2 p3 p4", router.BranchNotApplicable},
		{"blacklist ignores force=false", "application = cons-app => false", false, false, nil, "-", router.BranchBlacklist},
		{"blacklist ignores force=true", "application = cons-app => false", true, false, nil, "-", router.BranchBlacklist},
		{"matched keeps the subset", "=> region = hangzhou", false, false, nil, "p1 p4", router.BranchMatched},
		{"matched is intersected with input", "=> region = hangzhou", false, false, []int{1, 3}, "p4", router.BranchMatched},
		{"force empties", "=> region = nowhere", true, false, nil, "-", router.BranchForceEmpty},
		{"fallback keeps input", "=> region = nowhere", false, false, []int{0, 1}, "p1 p2", router.BranchFallback},
		{"then without keys matches nobody", "=> &", true, false, nil, "-", router.BranchForceEmpty},
	}
	provs := specProviders()
	cons := router.MustParseURL(specConsumerText)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustCondition(t, tc.cond, tc.force, !tc.disabled)
			u := router.NewUniverse(4)
			in := u.All()
			if tc.in != nil {
				in = u.Of(tc.in...)
			}
			st := &router.Step{}
			out := r.Compile(u, cons, provs, CompileOptions{}).Route(in, &router.Call{}, st)
			if got := ids(out, specNames); got != tc.want || st.Branch != tc.branch {
				t.Fatalf("got %s/%s, want %s/%s", got, st.Branch, tc.want, tc.branch)
			}
		})
	}
}

// §5.7: conditions of one rule chain in list order.
func TestConditionsChain(t *testing.T) {
	cases := []struct {
		name, yml string
		call      router.Call
		want      string
	}{
		{"each matching condition filters further", "conditions:\n- => region = hangzhou\n- => application = prov-b\n", router.Call{}, "p4"},
		{"not first match wins", "conditions:\n- method = a => region = hangzhou\n- method = a => host = 127.0.0.1\n", router.Call{Method: "a"}, "p4"},
		{"fallback keeps the previous output", "conditions:\n- => region = hangzhou\n- => region = beijing\n", router.Call{}, "p1 p4"},
		{"force empties and later conditions see empty", "force: true\nconditions:\n- => region = nowhere\n- => region = hangzhou\n", router.Call{}, "-"},
		{"blacklist empties the chain", "conditions:\n- =>\n- => region = hangzhou\n", router.Call{}, "-"},
		{"disabled rule passes everything", "enabled: false\nconditions:\n- =>\n", router.Call{}, "p1 p2 p3 p4"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			call := tc.call
			got, st := routeSpec(t, mustRule(t, tc.yml), &call)
			if got != tc.want {
				t.Fatalf("got %s, want %s (%+v)", got, tc.want, st)
			}
		})
	}
}

// §5.8 and §3.2: v3.1 multi-destination rules.
func TestV31Algorithm(t *testing.T) {
	const head = "configVersion: v3.1\n"
	cases := []struct {
		name, yml string
		rnd       uint64
		want      string
		branch    router.Branch
	}{
		{"from not matching passes input", head + "conditions:\n- from: {match: application=x}\n  to: [{match: region=beijing}]\n", 0, "p1 p2 p3 p4", router.BranchNotApplicable},
		{"absent from matches every consumer", head + "conditions:\n- to: [{match: region=beijing}]\n", 0, "p2", router.BranchMatched},
		{"from true matches every consumer", head + "conditions:\n- from: {match: 'true'}\n  to: [{match: region=beijing}]\n", 0, "p2", router.BranchMatched},
		{"empty to disables traffic", head + "conditions:\n- from: {match: application=cons-app}\n", 0, "-", router.BranchBlacklist},
		{"empty to list disables traffic", head + "conditions:\n- from: {match: application=cons-app}\n  to: []\n", 0, "-", router.BranchBlacklist},
		{"blank to.match is every provider", head + "conditions:\n- to: [{weight: 5}]\n", 0, "p1 p2 p3 p4", router.BranchMatched},
		{"false to.match is every provider", head + "conditions:\n- to: [{match: 'false'}]\n", 0, "p1 p2 p3 p4", router.BranchMatched},
		{"keyless to.match is every provider", head + "conditions:\n- to: [{match: '&'}]\n", 0, "p1 p2 p3 p4", router.BranchMatched},
		{"no destination keeps a provider: fallback", head + "conditions:\n- to: [{match: region=x}]\n", 0, "p1 p2 p3 p4", router.BranchFallback},
		{"no destination keeps a provider: force", head + "force: true\nconditions:\n- to: [{match: region=x}]\n", 0, "-", router.BranchForceEmpty},
		{"weighted pick low r takes the first", head + "conditions:\n- to: [{match: region=beijing, weight: 100}, {match: region=hangzhou, weight: 900}]\n", 99, "p2", router.BranchWeighted},
		{"weighted pick r == w1 takes the first (Java: r - w1 <= 0)", head + "conditions:\n- to: [{match: region=beijing, weight: 100}, {match: region=hangzhou, weight: 900}]\n", 100, "p2", router.BranchWeighted},
		{"weighted pick r == w1+1 takes the second", head + "conditions:\n- to: [{match: region=beijing, weight: 100}, {match: region=hangzhou, weight: 900}]\n", 101, "p1 p4", router.BranchWeighted},
		{"weighted pick r == W-1 takes the last", head + "conditions:\n- to: [{match: region=beijing, weight: 100}, {match: region=hangzhou, weight: 900}]\n", 999, "p1 p4", router.BranchWeighted},
		{"empty candidates are skipped in the walk", head + "conditions:\n- to: [{match: region=x, weight: 500}, {match: region=beijing, weight: 1}, {match: region=hangzhou, weight: 2}]\n", 2, "p1 p4", router.BranchWeighted},
		{"a last candidate of weight 1 is never drawn", head + "conditions:\n- to: [{match: region=x, weight: 500}, {match: region=beijing, weight: 1}, {match: region=hangzhou, weight: 1}]\n", 1, "p2", router.BranchWeighted},
		{"weight 0 becomes 100", head + "conditions:\n- to: [{match: region=beijing, weight: 0}, {match: region=hangzhou, weight: 100}]\n", 100, "p2", router.BranchWeighted},
		{"negative weight becomes 100", head + "conditions:\n- to: [{match: region=beijing, weight: -5}, {match: region=hangzhou, weight: 100}]\n", 101, "p1 p4", router.BranchWeighted},
		{"disabled v3.1 passes input", head + "enabled: false\nconditions:\n- to: []\n", 0, "p1 p2 p3 p4", router.BranchDisabled},
		{"case-insensitive configVersion", "configVersion: V3.1\nconditions:\n- to: [{match: region=beijing}]\n", 0, "p2", router.BranchMatched},
		{"v3.1 keeps consumer. in values (no prefix removal)", head + "conditions:\n- to: [{match: region=my-consumer.zone}]\n", 0, "p1 p2 p3 p4", router.BranchFallback},
		{"chained v3.1 conditions", head + "conditions:\n- to: [{match: region=hangzhou}]\n- to: [{match: application=prov-b}]\n", 0, "p4", router.BranchMatched},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRule(t, tc.yml)
			if r.Version != V31 {
				t.Fatalf("version %s", r.Version)
			}
			got, st := routeOver(t, r, specConsumerText, specProviderText, specNames, &router.Call{}, fixedRand(tc.rnd))
			if got != tc.want || st.Branch != tc.branch {
				t.Fatalf("got %s/%s, want %s/%s (%+v)", got, st.Branch, tc.want, tc.branch, st)
			}
		})
	}
}

func TestV31DestinationsProbabilities(t *testing.T) {
	r := mustRule(t, "configVersion: v3.1\nconditions:\n- from: {match: env=gray}\n  to:\n  - {match: region=beijing, weight: 100}\n  - {match: region=hangzhou, weight: 900}\n")
	u := router.NewUniverse(4)
	c := r.Compile(u, router.MustParseURL(specConsumerText), specProviders(), CompileOptions{})
	ds := c.Destinations(u.All(), &router.Call{})
	if len(ds) != 2 {
		t.Fatalf("destinations %+v", ds)
	}
	if ds[0].Probability != 0.101 || ds[1].Probability != 0.899 {
		t.Fatalf("probabilities %v %v (vector v31-07 says 101/1000, 899/1000)", ds[0].Probability, ds[1].Probability)
	}
	if ids(ds[1].Set, specNames) != "p1 p4" {
		t.Fatalf("set %s", ids(ds[1].Set, specNames))
	}
	// Exact counting over the whole [0, W) range: Java's 101 and 899 values of r.
	counts := map[string]int{}
	for v := uint64(0); v < 1000; v++ {
		out := r.Compile(u, router.MustParseURL(specConsumerText), specProviders(), CompileOptions{Rand: fixedRand(v)}).Route(u.All(), &router.Call{}, nil)
		counts[ids(out, specNames)]++
	}
	if counts["p2"] != 101 || counts["p1 p4"] != 899 {
		t.Fatalf("counts %v", counts)
	}
}

// TestV31DrawCountsEveryValue routes every draw value r in [0, W) and counts
// the destinations taken, against Java's DestinationSet.randDestination
// (first candidate with r - prefix <= 0), and checks that the probabilities
// ConditionDestinations reports and the trace's weights agree.
func TestV31DrawCountsEveryValue(t *testing.T) {
	const head = "configVersion: v3.1\nconditions:\n- to:\n"
	cases := []struct {
		name, to string
		w        uint64
		want     map[string]int
	}{
		{"100/900 (v31-07)", "  - {match: region=beijing, weight: 100}\n  - {match: region=hangzhou, weight: 900}\n", 1000, map[string]int{"p2": 101, "p1 p4": 899}},
		{"1/1: the last is never drawn", "  - {match: region=beijing, weight: 1}\n  - {match: region=hangzhou, weight: 1}\n", 2, map[string]int{"p2": 2}},
		{"1/1/1 with an empty middle candidate", "  - {match: region=beijing, weight: 1}\n  - {match: region=x, weight: 7}\n  - {match: application=prov-b, weight: 1}\n", 2, map[string]int{"p2": 2}},
		{"1/2/3", "  - {match: region=beijing, weight: 1}\n  - {match: application=prov-b, weight: 2}\n  - {match: env=gray, weight: 3}\n", 6, map[string]int{"p2": 2, "p3 p4": 2, "p1": 2}},
		{"absent weights are 100", "  - {match: region=beijing}\n  - {match: region=hangzhou}\n", 200, map[string]int{"p2": 101, "p1 p4": 99}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRule(t, head+tc.to)
			u := router.NewUniverse(4)
			got := map[string]int{}
			for v := uint64(0); v < tc.w; v++ {
				c := r.Compile(u, router.MustParseURL(specConsumerText), specProviders(), CompileOptions{Rand: func(n uint64) uint64 {
					if n != tc.w {
						t.Fatalf("draw bound %d, want %d", n, tc.w)
					}
					return v
				}})
				st := &router.Step{}
				out := c.Route(u.All(), &router.Call{}, st)
				got[ids(out, specNames)]++
				cs := st.Conditions[0]
				var sum int64
				for _, w := range cs.Weights {
					sum += w
				}
				if cs.Branch != router.BranchWeighted || uint64(sum) != tc.w || cs.Candidate < 0 || cs.Candidate >= len(cs.Weights) {
					t.Fatalf("r=%d: step %+v", v, cs)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("counts %v, want %v", got, tc.want)
			}
			ds := r.Compile(u, router.MustParseURL(specConsumerText), specProviders(), CompileOptions{}).Destinations(u.All(), &router.Call{})
			for _, d := range ds {
				if want := float64(tc.want[ids(d.Set, specNames)]) / float64(tc.w); d.Probability != want {
					t.Errorf("%s: probability %v, counted %v", ids(d.Set, specNames), d.Probability, want)
				}
			}
		})
	}
}
