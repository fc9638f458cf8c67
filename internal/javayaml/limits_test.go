package javayaml

import (
	"strings"
	"testing"
)

// The boundaries were measured on Java Dubbo 3.3.6's parsers (SnakeYAML's
// defaults) through the oracle: 51 nested nodes load, 52 do not; 50 aliases
// to collections load, 51 do not.
func TestLimits(t *testing.T) {
	nestedLists := func(n int) string { // a mapping, then n-1 nested empty lists: n nodes deep
		return "tags: " + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "\n"
	}
	aliases := func(n int) string {
		return "x: &a [1]\ny: [" + strings.TrimSuffix(strings.Repeat("*a, ", n), ", ") + "]\n"
	}
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{nestedLists(51), true},
		{nestedLists(52), false},
		{"spec: " + strings.Repeat("[", 49) + "x" + strings.Repeat("]", 49) + "\n", true},  // x at depth 51
		{"spec: " + strings.Repeat("[", 50) + "x" + strings.Repeat("]", 50) + "\n", false}, // x at depth 52
		{aliases(50), true},
		{aliases(51), false},
		{"a: [unclosed\n", true}, // not YAML: the parser reports it
	} {
		err := Check(tc.text)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%.40q...) = %v, want ok=%v", tc.text, err, tc.ok)
		}
		if err != nil && err.(*Error).Line == 0 {
			t.Errorf("no line in %v", err)
		}
	}
	if err := Check(strings.Repeat("a", MaxCodePoints+1)); err == nil {
		t.Error("3 MiB + 1 code points accepted")
	}
}
