package gray

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/router"
)

// readmeExample returns the first yaml block of README.md, so the documented
// example is proven to parse.
func readmeExample(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "```yaml\n")
	j := strings.Index(s[i+8:], "```")
	if i < 0 || j < 0 {
		t.Fatal("no yaml block in README.md")
	}
	return s[i+8 : i+8+j]
}

func TestParseRuleReadmeExample(t *testing.T) {
	r, err := ParseRule(readmeExample(t))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Enabled || r.Fallback != FallbackNormal || r.Delegate != DelegateRoundRobin || r.DefaultUsers {
		t.Fatalf("top level %+v", r)
	}
	if r.GrayProviders == nil || r.GrayProviders.MatchMode != MatchOr || len(r.GrayProviders.Match) != 4 {
		t.Fatalf("grayProviders %+v", r.GrayProviders)
	}
	if len(r.Requests) != 4 {
		t.Fatalf("requests %d", len(r.Requests))
	}
	if got := r.Requests[0].Conditions[0].Values; strings.Join(got, ",") != "1,2,3,10" {
		t.Fatalf("in values %v", got)
	}
	vip := r.Requests[2]
	if vip.Percent != 5 || vip.HashKey != "attachment:userId" || vip.Conditions[0].lo != 3 || vip.Conditions[0].hi != 9 {
		t.Fatalf("vip %+v", vip)
	}
	if p := r.Requests[1]; p.Percent != 0 || p.Conditions[0].ref.kind != srcArgument {
		t.Fatalf("percent 0 rule %+v", p)
	}
	rp := r.Requests[3].Ramp
	if rp == nil || rp.From != 0 || rp.To != 50 || rp.Duration != 48*time.Hour || rp.Start.UTC().Hour() != 0 {
		t.Fatalf("ramp %+v", rp)
	}
}

func TestParseRuleMinimalDefaults(t *testing.T) {
	r, err := ParseRule("fallback: fail\n")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Enabled || r.Fallback != FallbackFail || r.Delegate != "" || r.GrayProviders != nil || !r.DefaultUsers {
		t.Fatalf("%+v", r)
	}
	r, err = ParseRule("requests: []\n")
	if err != nil || r.DefaultUsers || len(r.Requests) != 0 {
		t.Fatalf("explicit empty requests: %v %+v", err, r)
	}
}

func TestParseRuleRejects(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown top-level field", "enabled: true\nfalback: fail\n", []string{"line 2", "falback", "unknown field"}},
		{"unknown condition field", "requests:\n  - conditions:\n      - source: method\n        operator: \"=\"\n        vlaue: x\n", []string{"line 5", "requests[0].conditions[0].vlaue", "unknown field"}},
		{"bad regex", "requests:\n  - conditions:\n      - source: method\n        operator: regex\n        value: \"a(\"\n", []string{"line 5", "requests[0].conditions[0].value", "bad regex"}},
		{"bad provider regex", "grayProviders:\n  match:\n    - param: version\n      regex: \"[\"\n", []string{"line 4", "grayProviders.match[0].regex", "bad regex"}},
		{"range reversed", "requests:\n  - conditions:\n      - source: attachment\n        key: age\n        operator: range\n        value: 9~3\n", []string{"line 6", "bad range"}},
		{"range not numeric", "requests:\n  - conditions:\n      - source: attachment\n        key: age\n        operator: range\n        value: a~3\n", []string{"bad range"}},
		{"range without tilde", "requests:\n  - conditions:\n      - source: attachment\n        key: age\n        operator: range\n        value: \"3\"\n", []string{"bad range"}},
		{"percent above 100", "requests:\n  - percent: 101\n", []string{"line 2", "requests[0].percent", "0 to 100"}},
		{"percent negative", "requests:\n  - percent: -1\n", []string{"requests[0].percent"}},
		{"percent not a number", "requests:\n  - percent: lots\n", []string{"requests[0].percent"}},
		{"ramp to above 100", "requests:\n  - ramp: {start: \"2025-01-01T00:00:00Z\", duration: 1h, to: 200}\n", []string{"requests[0].ramp.to"}},
		{"ramp without duration", "requests:\n  - ramp: {start: \"2025-01-01T00:00:00Z\"}\n", []string{"requests[0].ramp", "required"}},
		{"ramp bad start", "requests:\n  - ramp: {start: tomorrow, duration: 1h}\n", []string{"requests[0].ramp.start", "RFC 3339"}},
		{"ramp zero duration", "requests:\n  - ramp: {start: \"2025-01-01T00:00:00Z\", duration: 0s}\n", []string{"requests[0].ramp.duration"}},
		{"percent with ramp", "requests:\n  - percent: 5\n    ramp: {start: \"2025-01-01T00:00:00Z\", duration: 1h}\n", []string{"exclusive"}},
		{"unknown operator", "requests:\n  - conditions:\n      - source: method\n        operator: like\n        value: x\n", []string{"line 4", "unknown operator \"like\""}},
		{"missing operator", "requests:\n  - conditions:\n      - source: method\n        value: x\n", []string{"operator", "required"}},
		{"unknown source", "requests:\n  - conditions:\n      - source: header\n        operator: \"=\"\n        value: x\n", []string{"unknown source \"header\""}},
		{"bad argument index", "requests:\n  - conditions:\n      - source: argument[x]\n        operator: \"=\"\n        value: x\n", []string{"unknown source"}},
		{"attachment without key", "requests:\n  - conditions:\n      - source: attachment\n        operator: \"=\"\n        value: x\n", []string{".key", "required"}},
		{"blank with value", "requests:\n  - conditions:\n      - source: method\n        operator: blank\n        value: x\n", []string{"takes no value"}},
		{"missing value", "requests:\n  - conditions:\n      - source: method\n        operator: contains\n", []string{".value", "required"}},
		{"time with source", "requests:\n  - conditions:\n      - source: method\n        operator: timeAfter\n        value: \"2025-01-01T00:00:00Z\"\n", []string{"source and key must be omitted"}},
		{"bad time", "requests:\n  - conditions:\n      - operator: timeBefore\n        value: \"2025-13-01\"\n", []string{"bad time"}},
		{"bad fallback", "fallback: maybe\n", []string{"line 1", "fallback"}},
		{"bad delegate", "delegate: consistenthash\n", []string{"delegate"}},
		{"bad enabled", "enabled: yes please\n", []string{"enabled"}},
		{"bad match mode", "requests:\n  - matchMode: xor\n", []string{"matchMode"}},
		{"bad hash key", "requests:\n  - hashKey: header:x\n", []string{"hashKey"}},
		{"matcher with two kinds", "grayProviders:\n  match:\n    - param: a\n      exact: b\n      prefix: c\n", []string{"only one of"}},
		{"matcher param and tag", "grayProviders:\n  match:\n    - param: a\n      exact: b\n      tag: c\n", []string{"exactly one of"}},
		{"param without kind", "grayProviders:\n  match:\n    - param: a\n", []string{"needs one of"}},
		{"empty matcher list", "grayProviders:\n  match: []\n", []string{"at least one"}},
		{"bad address pattern", "grayProviders:\n  match:\n    - address: \"10.0.0.1.5\"\n", []string{"line 3", "grayProviders.match[0].address"}},
		{"hostname address", "grayProviders:\n  match:\n    - address: \"db1.prod.corp.example\"\n", []string{"hostnames are not supported"}},
		{"duplicate field", "fallback: fail\nfallback: normal\n", []string{"line 2", "duplicate"}},
		{"requests not a list", "requests: {a: b}\n", []string{"requests", "list"}},
		{"not a mapping", "- a\n- b\n", []string{"mapping"}},
		{"empty", "   \n", []string{"empty"}},
		{"yaml syntax", "a: [\n", []string{"gray rule"}},
		{"empty in list", "requests:\n  - conditions:\n      - source: method\n        operator: in\n        value: []\n", []string{"empty list"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRule(c.yaml)
			if err == nil {
				t.Fatalf("accepted:\n%s", c.yaml)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// FuzzParseGrayRule: no input panics ParseRule, and every accepted rule
// compiles and picks without panicking.
func FuzzParseGrayRule(f *testing.F) {
	f.Add(readmeExample(f))
	f.Add("requests:\n  - conditions:\n      - source: argument[1]\n        operator: range\n        value: 1~2\n    hashKey: argument[0]\n")
	f.Add("grayProviders:\n  matchMode: and\n  match:\n    - tag: x\n    - address: 0.0.0.0:9012\n")
	f.Add("a: &x [*x]\n")
	f.Add("enabled: false\ndelegate: p2c\nfallback: fail\n")
	provs := []*router.URL{
		router.MustParseURL("dubbo://10.0.3.1:9011/s?status=gray&dubbo.tag=canary&version=2.1.0"),
		router.MustParseURL("dubbo://10.0.0.2:9012/s?weight=0&timestamp=5"),
		nil,
	}
	call := &router.Call{Method: "queryAll", Args: []any{"internal-x", 7, nil}, Attachments: router.AttachmentMap{"userId": "3", "level": "4"}}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		p := Compile(Input{Rule: r, Providers: provs}, Options{Rand: func(n uint64) uint64 { return n - 1 }})
		var d Decision
		_, _ = p.Pick(call, &d)
		_, _ = p.Pick(nil, nil)
	})
}
