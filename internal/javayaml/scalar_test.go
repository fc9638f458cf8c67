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
