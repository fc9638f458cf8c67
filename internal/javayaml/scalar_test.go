package javayaml

import (
	"strings"
	"testing"
)

// Moved from router/condition (yamlInt), assertions unchanged.
func TestYAMLIntRendersLikeJava(t *testing.T) {
	for in, want := range map[string]string{
		"123": "123", "+123": "123", "-123": "-123", "1_000": "1000", "0": "0",
		"0x1F": "31", "017": "15", "0b101": "5", "1:30": "90",
		"99999999999999999999999": "99999999999999999999999",
	} {
		if got, _ := ConstructInt(in); got.Text != want {
			t.Errorf("ConstructInt(%q) = %q, want %q", in, got.Text, want)
		}
	}
	huge := strings.Repeat("9", 1000*1000)
	if got, _ := ConstructInt(huge); got.Text != huge {
		t.Error("a megabyte-long decimal is not rendered as its digits")
	}
}

// The plain-decimal shortcut of resolvePlain answers as YAML 1.1's
// resolvers do.
func TestPlainDecimalShortcut(t *testing.T) {
	for _, v := range []string{"1", "9", "10", "+7", "-7", "0", "-0", "+0", "00", "012", "089", "1_000", "123456789012345678901234567890", "-", "+", "1.5", "1e3", "12:30"} {
		if got, want := resolvePlain(v), resolveByPattern(v); got != want {
			t.Errorf("resolvePlain(%q) = %v, YAML 1.1 says %v", v, got, want)
		}
	}
}
