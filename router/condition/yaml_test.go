package condition

import (
	"errors"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// §3.1: v3.0 YAML fields, defaults and Java's type rules.
func TestParseRuleV30Fields(t *testing.T) {
	r := mustRule(t, "scope: service\nkey: com.foo.BarService\nconditions:\n  - method = sayHello => region = hangzhou\n")
	if r.Version != V30 || !r.Enabled || r.Force || !r.Runtime || r.Priority != 0 || r.Scope != "service" || r.Key != "com.foo.BarService" {
		t.Fatalf("defaults wrong: %+v", r)
	}
	if len(r.Conditions) != 1 || r.Conditions[0].Line != 4 || r.Conditions[0].Text != "method = sayHello => region = hangzhou" {
		t.Fatalf("condition %+v", r.Conditions)
	}
	cases := []struct {
		name, yml string
		check     func(*Rule) bool
	}{
		{"force True parses case-insensitively", "force: True\nconditions: [a=>b]", func(r *Rule) bool { return r.Force }},
		{"force string TRUE is true", "force: 'TRUE'\nconditions: [a=>b]", func(r *Rule) bool { return r.Force }},
		{"force yes is a YAML 1.1 boolean", "force: yes\nconditions: [a=>b]", func(r *Rule) bool { return r.Force }},
		{"force quoted yes is false", "force: 'yes'\nconditions: [a=>b]", func(r *Rule) bool { return !r.Force }},
		{"force 1 is false", "force: 1\nconditions: [a=>b]", func(r *Rule) bool { return !r.Force }},
		{"enabled off is false", "enabled: off\nconditions: [a=>b]", func(r *Rule) bool { return !r.Enabled }},
		{"priority quoted integer", "priority: '7'\nconditions: [a=>b]", func(r *Rule) bool { return r.Priority == 7 }},
		{"priority hex YAML int", "priority: 0x10\nconditions: [a=>b]", func(r *Rule) bool { return r.Priority == 16 }},
		{"priority negative", "priority: -3\nconditions: [a=>b]", func(r *Rule) bool { return r.Priority == -3 }},
		{"configVersion v3.0", "configVersion: v3.0\nconditions: [a=>b]", func(r *Rule) bool { return r.Version == V30 }},
		{"configVersion v10 compares below v3.1", "configVersion: v10\nconditions: [a=>b]", func(r *Rule) bool { return r.Version == V30 }},
		{"configVersion empty string is v3.0", "configVersion: ''\nconditions: [a=>b]", func(r *Rule) bool { return r.Version == V30 }},
		{"configVersion v3.10 is v3.1", "configVersion: v3.10\nconditions: [{to: []}]", func(r *Rule) bool { return r.Version == V31 }},
		{"integer condition is its decimal text", "conditions: [5]", func(r *Rule) bool { return r.Conditions[0].Text == "5" }},
		{"null condition is the text null", "conditions: [~]", func(r *Rule) bool { return r.Conditions[0].Text == "null" }},
		{"boolean false condition is a blacklist", "conditions: [off]", func(r *Rule) bool { return r.Conditions[0].Then == nil }},
		{"map condition is Java map text", "conditions: [{method: foo}]", func(r *Rule) bool { return r.Conditions[0].Text == "{method=foo}" }},
		{"float condition like Double.toString", "conditions: [1e7]", func(r *Rule) bool { return r.Conditions[0].Text == "1.0E7" }},
		{"duplicate key: last wins", "force: false\nforce: true\nconditions: [a=>b]", func(r *Rule) bool { return r.Force }},
		{"anchors resolve", "x: &c a=>b\nconditions: [*c]", func(r *Rule) bool { return r.Conditions[0].Text == "a=>b" }},
		{"JSON is YAML", `{"force": true, "conditions": ["=> region = beijing"]}`, func(r *Rule) bool { return r.Force && len(r.Conditions) == 1 }},
		{"disabled rule accepts a bad condition unparsed", "enabled: false\nconditions: ['=a']", func(r *Rule) bool {
			return !r.Conditions[0].Parsed && hasFinding(r, FindDisabledUnparsable)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRule(tc.yml)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(r) {
				t.Fatalf("unexpected rule %+v", r)
			}
		})
	}
}

// §3.1/§3.2/§2.2/§4.3: rejected rules and the sentinels, with the line.
func TestParseRuleErrors(t *testing.T) {
	cases := []struct {
		name, yml string
		sentinel  error
		line      int
		index     int
		contains  string
	}{
		{"numeric configVersion", "configVersion: 3.1\nconditions: [a=>b]", nil, 1, -1, "configVersion"},
		{"non-integer priority", "conditions: [a=>b]\npriority: 1.5", nil, 2, -1, "priority"},
		{"priority beyond int32", "conditions: [a=>b]\npriority: 99999999999", nil, 2, -1, "priority"},
		{"boolean key field", "key: yes\nconditions: [a=>b]", nil, 1, -1, "key"},
		{"numeric scope", "scope: 5\nconditions: [a=>b]", nil, 1, -1, "scope"},
		{"configVersion v3.2 is ignored", "configVersion: v3.2\nconditions: [a=>b]", ErrUnsupportedVersion, 1, -1, "v3.2"},
		{"configVersion v4.0 is ignored", "configVersion: v4.0\nconditions: [a=>b]", ErrUnsupportedVersion, 1, -1, "v4.0"},
		{"configVersion w compares above", "configVersion: w\nconditions: [a=>b]", ErrUnsupportedVersion, 1, -1, ""},
		{"missing conditions", "force: true\n", ErrRuleInvalid, 0, -1, "conditions"},
		{"empty conditions", "force: true\nconditions: []\n", ErrRuleInvalid, 2, -1, "conditions"},
		{"conditions not a list", "conditions: a=>b\n", ErrRuleInvalid, 1, -1, "conditions"},
		{"valid false", "valid: false\nconditions: [a=>b]\n", ErrRuleInvalid, 2, -1, "valid"},
		{"empty v3.1 conditions", "configVersion: v3.1\nconditions: []\n", ErrRuleInvalid, 2, -1, ""},
		{"bad second condition names index, text and line", "conditions:\n  - a=>b\n  - a==b => c\n", nil, 3, 1, `"a==b => c"`},
		{"blank condition", "conditions:\n  - ''\n", nil, 2, 0, "blank"},
		{"v3.1 missing conditions", "configVersion: v3.1\n", nil, 0, -1, "conditions"},
		{"v3.1 non-integer weight", "configVersion: v3.1\nconditions:\n- to:\n  - {match: a=b, weight: x}\n", nil, 4, 0, "weight"},
		{"v3.1 float weight", "configVersion: v3.1\nconditions:\n- to:\n  - {match: a=b, weight: 1.5}\n", nil, 4, 0, "weight"},
		{"v3.1 bad to.match", "configVersion: v3.1\nconditions:\n- to:\n  - {match: '=a'}\n", nil, 4, 0, "to[0].match"},
		{"v3.1 bad from.match", "configVersion: v3.1\nconditions:\n- from: {match: 'a,b=c'}\n", nil, 3, 0, "from.match"},
		{"v3.1 condition not a mapping", "configVersion: v3.1\nconditions:\n- a=>b\n", nil, 3, 0, "mapping"},
		{"v3.1 to not a list", "configVersion: v3.1\nconditions:\n- to: {match: a=b}\n", nil, 3, 0, "to"},
		{"not a mapping", "- a\n- b\n", nil, 1, -1, "mapping"},
		{"empty document", "", nil, 0, -1, "empty"},
		{"bad YAML", "a: [\n", nil, 0, -1, "YAML"},
		{"two documents", "conditions: [a=>b]\n---\nconditions: [a=>b]\n", nil, 0, -1, "document"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRule(tc.yml)
			if err == nil {
				t.Fatalf("accepted: %+v", r)
			}
			if r != nil {
				t.Fatal("rule returned with an error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("not a *ParseError: %v", err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Fatalf("%v does not wrap %v", err, tc.sentinel)
			}
			if tc.sentinel == nil && (errors.Is(err, ErrRuleInvalid) || errors.Is(err, ErrUnsupportedVersion)) {
				t.Fatalf("%v must be a rejection, not a sentinel", err)
			}
			if tc.line != 0 && pe.Line != tc.line {
				t.Fatalf("line %d, want %d (%v)", pe.Line, tc.line, err)
			}
			if pe.Index != tc.index {
				t.Fatalf("index %d, want %d (%v)", pe.Index, tc.index, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("%q does not mention %q", err, tc.contains)
			}
		})
	}
}

func TestUnknownFieldsAreAcceptedAndListed(t *testing.T) {
	r := mustRule(t, "configVersion: v3.1\nratio: 20\nconditions:\n- priority: 10\n  trafficDisable: true\n  from: {match: a=b, other: x}\n  to:\n  - {match: c=d, weight: 5, affinity: z}\n")
	want := []Field{{"ratio", 2}, {"conditions[0].priority", 4}, {"conditions[0].trafficDisable", 5}, {"conditions[0].from.other", 6}, {"conditions[0].to[0].affinity", 8}}
	if len(r.UnknownFields) != len(want) {
		t.Fatalf("unknown fields %+v", r.UnknownFields)
	}
	for i := range want {
		if r.UnknownFields[i] != want[i] {
			t.Fatalf("unknown field %d = %+v, want %+v", i, r.UnknownFields[i], want[i])
		}
	}
	if !hasFinding(r, FindUnknownField) {
		t.Fatal("no unknown-field finding")
	}
}

// §3.3: the registry router URL forms.
func TestParseRouterURL(t *testing.T) {
	cases := []struct {
		name, url string
		force, on bool
		prio      int
		want      string
		err       bool
	}{
		{"classic condition url", "condition://0.0.0.0/com.foo.BarService?category=routers&dynamic=false&enabled=true&force=false&runtime=false&priority=1&rule=" +
			"host%20%3D%20127.0.0.1%20%3D%3E%20region%20%3D%20beijing", false, true, 1, "p2", false},
		{"plus is a space", "condition://0.0.0.0/com.foo.BarService?category=routers&rule=host+%3D+127.0.0.1+%3D%3E+region+%3D+beijing", false, true, 0, "p2", false},
		{"admin route form", "route://0.0.0.0/com.foo.BarService?category=routers&router=condition&force=true&rule=%3D%3E+region+%3D+nowhere", true, true, 0, "-", false},
		{"fully encoded node name", "condition%3A%2F%2F0.0.0.0%2Fcom.foo.BarService%3Fcategory%3Drouters%26rule%3D%253D%253E%2Bregion%253Dbeijing", false, true, 0, "p2", false},
		{"force TRUE any case", "condition://0.0.0.0/S?category=routers&force=TRUE&rule=%3D%3E+region%3Dx", true, true, 0, "-", false},
		{"disabled url passes input", "condition://0.0.0.0/S?category=routers&enabled=false&rule=%3D%3E", false, false, 0, "p1 p2 p3 p4", false},
		{"blank rule", "condition://0.0.0.0/S?category=routers&rule=+", false, true, 0, "", true},
		{"missing rule", "condition://0.0.0.0/S?category=routers", false, true, 0, "", true},
		{"bad priority", "condition://0.0.0.0/S?category=routers&priority=x&rule=a%3Db", false, true, 0, "", true},
		{"wrong router type", "route://0.0.0.0/S?category=routers&router=script&rule=a%3Db", false, true, 0, "", true},
		{"route without router", "route://0.0.0.0/S?category=routers&rule=a%3Db", false, true, 0, "", true},
		{"wrong category", "condition://0.0.0.0/S?category=providers&rule=a%3Db", false, true, 0, "", true},
		{"bad condition", "condition://0.0.0.0/S?category=routers&rule=a%3D%3Db", false, true, 0, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRouterURL(tc.url)
			if tc.err {
				if err == nil {
					t.Fatalf("accepted %+v", r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Force != tc.force || r.Enabled != tc.on || r.Priority != tc.prio || r.Source != SourceURL {
				t.Fatalf("flags %+v", r)
			}
			if got, _ := routeSpec(t, r, &router.Call{}); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestAliasExpansionIsBounded(t *testing.T) {
	yml := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\nconditions: [*h]\n"
	if _, err := ParseRule(yml); err == nil || !strings.Contains(err.Error(), "alias") {
		t.Fatalf("err %v, want an alias-expansion rejection", err)
	}
}

// A hostile rule with a megabyte-long priority is rejected (priority must
// be an int) and the error names the line.
func TestHugePriorityIsRejectedWithItsLine(t *testing.T) {
	rule := "force: true\npriority: " + strings.Repeat("9", 1000*1000) + "\nconditions:\n  - => host=1.2.3.4\n"
	_, err := ParseRule(rule)
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("huge priority: %.200v", err)
	}
}
