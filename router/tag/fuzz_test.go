package tag

import (
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// FuzzParseTagRule: no input panics ParseRule, Compile or Route, and an
// accepted rule routes every request to a subset of the input.
func FuzzParseTagRule(f *testing.F) {
	for _, seed := range []string{
		ruleR1,
		"configVersion: v3.0\nforce: yes\ntags: [{name: c, match: [{key: env, value: {regex: 'c.*'}}]}]",
		"tags:\n  - name: g\n    addresses: [\"10.0.0.*:20880\", \"10.0.0.0/24\", \"[fe80::1]:20880\", \"0.0.0.0:20881\"]",
		"tags: [{name: a|b, addresses: &x ['*']}, {name: a, addresses: *x}]",
		"tags: gray", "- a", "{", "tags: [[1]]", "configVersion: v3.0\ntags: [{match: [{value: {empty: }}]}]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rule, err := ParseRuleWith(text, nil)
		if err != nil {
			if rule != nil {
				t.Fatal("rule returned with an error")
			}
			return
		}
		ps := vectorProviders(t)
		u := router.NewUniverse(len(ps.urls))
		c := Compile(rule, u, router.MustParseURL("consumer://127.0.0.1/x"), ps.urls)
		for _, tg := range []string{"", "gray", "a|b|c", "c"} {
			for _, in := range []*router.Set{u.All(), u.Of(1, 2)} {
				out := c.Route(in, &router.Call{Attachments: router.AttachmentMap{TagKey: tg}}, &router.Step{})
				if u.AndNot(out, in) != u.None() {
					t.Fatalf("tag %q: result not within input", tg)
				}
			}
		}
	})
}
