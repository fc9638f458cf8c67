package tag

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

func noResolve(string) ([]string, error) { return nil, fmt.Errorf("no DNS in tests") }

func mustParse(t testing.TB, yaml string) *Rule {
	t.Helper()
	r, err := ParseRuleWith(yaml, noResolve)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, yaml)
	}
	return r
}

func TestParseRuleAsDubboAdminWritesIt(t *testing.T) {
	r := mustParse(t, `configVersion: v3.0
force: true
enabled: true
runtime: false
key: demo-provider
tags:
  - name: gray
    addresses: ["10.0.0.3:20880", "10.0.1.*", "0.0.0.0:20881", "10.1.0.0/16"]
  - name: canary
    match:
      - key: env
        value:
          exact: canary
`)
	if r.ConfigVersion != "v3.0" || !r.Force || !r.Enabled || r.Runtime || r.Key != "demo-provider" || !r.Valid || !r.Usable() {
		t.Fatalf("header fields wrong: %+v", r)
	}
	if len(r.Tags) != 2 || r.Tags[0].Name != "gray" || len(r.Tags[0].Addresses) != 4 || r.Tags[0].Line != 7 {
		t.Fatalf("tag 0 wrong: %+v", r.Tags[0])
	}
	c := r.Tags[1]
	if c.Name != "canary" || !c.MatchSet || len(c.Match) != 1 || c.Match[0].Key != "env" || c.Match[0].Value == nil || *c.Match[0].Value.Exact != "canary" {
		t.Fatalf("tag 1 wrong: %+v", c)
	}
}

func TestParseRuleDefaultsAndJavaBooleans(t *testing.T) {
	tests := []struct {
		name          string
		yaml          string
		force, enable bool
		usable        bool
	}{
		{"defaults: enabled, not forced", "tags: [{name: a, addresses: [10.0.0.1]}]", false, true, true},
		{"plain yes is YAML 1.1 true", "force: yes\nenabled: on\ntags: [{name: a, addresses: [10.0.0.1]}]", true, true, true},
		{"plain off is YAML 1.1 false", "enabled: off\ntags: [{name: a, addresses: [10.0.0.1]}]", false, false, false},
		{"quoted yes is the string yes: parseBoolean false", "force: \"yes\"\ntags: [{name: a, addresses: [10.0.0.1]}]", false, true, true},
		{"TRUE in any case", "force: TRUE\ntags: [{name: a, addresses: [10.0.0.1]}]", true, true, true},
		{"quoted TrUe parses true", "force: 'TrUe'\ntags: [{name: a, addresses: [10.0.0.1]}]", true, true, true},
		{"valid false disables", "valid: false\ntags: [{name: a, addresses: [10.0.0.1]}]", false, true, false},
		{"no tags is invalid", "force: true", true, true, false},
		{"empty tags is invalid", "tags: []", false, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.yaml)
			if r.Force != tt.force || r.Enabled != tt.enable || r.Usable() != tt.usable {
				t.Fatalf("force=%t enabled=%t usable=%t, want %t %t %t", r.Force, r.Enabled, r.Usable(), tt.force, tt.enable, tt.usable)
			}
		})
	}
}

func TestParseRuleRejectsWholeRuleNamingTagAndLine(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"unparsable YAML", "tags: [ {name: a", []string{"invalid YAML", "line"}},
		{"empty content", "  \n", []string{"empty"}},
		{"not a mapping", "- a\n- b", []string{"mapping", "line 1"}},
		{"tag not a mapping", "tags:\n  - gray", []string{"tags[0]", "line 2"}},
		{"bad address pattern", "tags:\n  - name: gray\n    addresses: [10.0.0.1]\n  - name: blue\n    addresses: [\"10.0.*\"]", []string{`tag "blue"`, "line 4", `"10.0.*"`, "exactly 4"}},
		{"address range not a-b", "tags:\n  - name: g\n    addresses: [10.0.0.1-2-3]", []string{`tag "g"`, "line 2", "not a-b"}},
		{"regex that does not compile", "configVersion: v3.0\ntags:\n  - name: c\n    match:\n      - key: env\n        value: {regex: \"(a\"}", []string{`tag "c"`, "line 3", "regex", "(a"}},
		{"regex with lookahead", "configVersion: v3.0\ntags:\n  - name: c\n    match:\n      - key: env\n        value: {regex: \"(?=a)a\"}", []string{`tag "c"`, "does not compile"}},
		{"numeric name is not a String", "tags:\n  - name: 123\n    addresses: [10.0.0.1]", []string{"tags[0]", "line 2", "name must be a string"}},
		{"match not a list", "configVersion: v3.0\ntags:\n  - name: c\n    match: {key: env}", []string{`tag "c"`, "match must be a list"}},
		{"address element is a list", "tags:\n  - name: g\n    addresses: [[10.0.0.1]]", []string{"tags[0]", "scalar"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRuleWith(tt.yaml, noResolve)
			if err == nil {
				t.Fatalf("accepted: %+v", r)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseRuleRecordsUnknownFieldsAndWarnings(t *testing.T) {
	r := mustParse(t, `configVersion: v3.1
enabeld: false
tags:
  - name: gray
    adresses: [10.0.0.1]
    addresses: "10.0.0.2"
  - name: c
    match:
      - key: env
        value: {exact: x}
  - name: h
    addresses: [db1.corp.example.org]
`)
	want := map[string]int{"enabeld": 2, "tags[0].adresses": 5}
	if len(r.UnknownFields) != len(want) {
		t.Fatalf("unknown fields %+v", r.UnknownFields)
	}
	for _, f := range r.UnknownFields {
		if want[f.Path] != f.Line {
			t.Errorf("unknown field %+v not expected", f)
		}
	}
	if !r.Enabled {
		t.Fatal("a misspelt enabled must not disable the rule")
	}
	var msgs []string
	for _, w := range r.Warnings {
		msgs = append(msgs, w.String())
	}
	all := strings.Join(msgs, "\n")
	for _, w := range []string{"line 6: tag \"gray\": addresses is not a list", "line 8: tag \"c\": match is ignored because configVersion \"v3.1\"", "line 11: tag \"h\"", "did not resolve"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	if r.Tags[1].MatchSet || len(r.Tags[0].Addresses) != 0 {
		t.Fatalf("v3.1 match must be ignored and a non-list addresses dropped: %+v", r.Tags)
	}
}

func TestParseRuleYAMLAnchorsAndDuplicates(t *testing.T) {
	r := mustParse(t, `tags:
  - name: a
    addresses: &addrs ["10.0.0.1", "10.0.0.2"]
  - name: b
    addresses: *addrs
`)
	if len(r.Tags[1].Addresses) != 2 || r.Tags[1].Addresses[1] != "10.0.0.2" {
		t.Fatalf("alias not followed: %+v", r.Tags[1])
	}
}

// TestParamMatchRegex: a parsed regex value is a full match (Java's
// String.matches), and a match without value never matches (the table of
// StringMatch itself is router's TestStringMatchTable).
func TestParamMatchRegex(t *testing.T) {
	r := mustParse(t, "configVersion: v3.0\ntags:\n  - name: x\n    match:\n      - key: k\n        value: {regex: \"can.*|a\"}\n")
	pm := r.Tags[0].Match[0]
	for v, want := range map[string]bool{"canary": true, "a": true, "scan": false, "an": false} {
		if got := pm.Match(router.ParamsOf(map[string]string{"k": v})); got != want {
			t.Errorf("regex can.*|a on %q: %t, want %t", v, got, want)
		}
	}
	if pm.Match(router.ParamsOf(nil)) {
		t.Error("regex on an absent parameter matched")
	}
	if (&ParamMatch{Key: "k"}).Match(router.ParamsOf(map[string]string{"k": "v"})) {
		t.Fatal("a ParamMatch without value must be false")
	}
}

// TestV30TagWithoutAddressesOrMatchIsRejected: Java 3.3's TagRouterRule.init
// throws a NullPointerException for a tag without addresses and without match
// in a v3.0 rule, so the whole rule is rejected (the previous one stays);
// other versions ignore such a tag. Found by integration/interop's oracle.
func TestV30TagWithoutAddressesOrMatchIsRejected(t *testing.T) {
	for _, tc := range []struct {
		rule   string
		reject bool
	}{
		{"configVersion: v3.0\ntags:\n  - name: gray\n  - name: blue\n    addresses: [\"10.0.0.1\"]\n", true},
		{"configVersion: v3.0\ntags:\n  - name: gray\n    addresses: []\n", true},
		{"configVersion: v3.0\ntags:\n  - name: gray\n    match:\n", true},
		{"configVersion: v3.0\ntags:\n  - name: gray\n    match: []\n", false},
		{"configVersion: v3.1\ntags:\n  - name: gray\n  - name: blue\n    addresses: [\"10.0.0.1\"]\n", false},
		{"tags:\n  - name: gray\n    addresses: []\n", false},
	} {
		_, err := ParseRule(tc.rule)
		if (err != nil) != tc.reject {
			t.Errorf("ParseRule(%q): err = %v, want rejected %v", tc.rule, err, tc.reject)
		}
	}
}

// TestTagsNotAListIsARuleWithoutTags: Java's TagRouterRule reads tags only
// when it is a List (measured with the oracle: tags: notalist and a mapping
// replace the rule in force by one without tags).
func TestTagsNotAListIsARuleWithoutTags(t *testing.T) {
	for _, text := range []string{"tags: gray", "tags: {name: t}"} {
		r, err := ParseRuleWith(text, noResolve)
		if err != nil {
			t.Fatalf("%q rejected: %v", text, err)
		}
		if r.Valid || len(r.Tags) != 0 || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0].Message, "not a list") {
			t.Errorf("%q: valid=%v tags=%d warnings=%v", text, r.Valid, len(r.Tags), r.Warnings)
		}
	}
}
