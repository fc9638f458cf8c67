package router

import "testing"

func str(s string) *string { return &s }

// TestStringMatchTable: Java's StringMatch.isMatch, field by field.
func TestStringMatchTable(t *testing.T) {
	tests := []struct {
		name    string
		m       StringMatch
		value   string
		present bool
		want    bool
	}{
		{"exact equal", StringMatch{Exact: str("canary")}, "canary", true, true},
		{"exact differs", StringMatch{Exact: str("canary")}, "Canary", true, false},
		{"exact absent falls through to nothing", StringMatch{Exact: str("canary")}, "", false, false},
		{"exact absent falls through to empty", StringMatch{Exact: str("canary"), Empty: str("true")}, "", false, true},
		{"exact present does not fall through", StringMatch{Exact: str("canary"), Noempty: str("true")}, "prod", true, false},
		{"prefix", StringMatch{Prefix: str("can")}, "canary", true, true},
		{"prefix miss", StringMatch{Prefix: str("can")}, "scan", true, false},
		{"regex full match", StringMatch{Regex: str("can.*")}, "canary", true, true},
		{"regex is not a find", StringMatch{Regex: str("an")}, "canary", true, false},
		{"regex alternation anchored as a whole", StringMatch{Regex: str("a|canary")}, "canary", true, true},
		{"regex absent falls through to noempty false", StringMatch{Regex: str(".*"), Noempty: str("x")}, "", false, false},
		{"wildcard equal", StringMatch{Wildcard: str("v1")}, "v1", true, true},
		{"wildcard star matches present", StringMatch{Wildcard: str("*")}, "anything", true, true},
		{"wildcard is no glob", StringMatch{Wildcard: str("v*")}, "v1", true, false},
		{"wildcard star fails absent", StringMatch{Wildcard: str("*")}, "", false, false},
		{"empty matches absent", StringMatch{Empty: str("")}, "", false, true},
		{"empty matches empty string", StringMatch{Empty: str("x")}, "", true, true},
		{"empty rejects value", StringMatch{Empty: str("x")}, "v", true, false},
		{"noempty matches value", StringMatch{Noempty: str("x")}, "v", true, true},
		{"noempty rejects empty", StringMatch{Noempty: str("x")}, "", true, false},
		{"noempty rejects absent", StringMatch{Noempty: str("x")}, "", false, false},
		{"nothing set is false", StringMatch{}, "v", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			if err := m.CompileRegex(); err != nil {
				t.Fatal(err)
			}
			if got, threw := m.Match(tt.value, tt.present); got != tt.want || threw {
				t.Fatalf("Match(%q, %t) = %t, %t", tt.value, tt.present, got, threw)
			}
		})
	}
	// A regex RE2 cannot compile: an error, and Java's throw where it is
	// evaluated (not where an earlier field decides, nor on an absent value).
	m := StringMatch{Regex: str(`(a)\1`), Empty: str("")}
	if err := m.CompileRegex(); err == nil {
		t.Fatal("a backreference compiled")
	}
	if got, threw := m.Match("aa", true); got || !threw {
		t.Errorf("uncompiled regex on a value: %t, %t; want false, true", got, threw)
	}
	if got, threw := m.Match("", false); !got || threw {
		t.Errorf("uncompiled regex on an absent value: %t, %t; want the empty match", got, threw)
	}
	exact := StringMatch{Exact: str("aa"), Regex: str(`(a)\1`)}
	_ = exact.CompileRegex()
	if got, threw := exact.Match("aa", true); !got || threw {
		t.Errorf("exact before an uncompiled regex: %t, %t", got, threw)
	}
}
