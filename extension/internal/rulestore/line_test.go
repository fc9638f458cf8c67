package rulestore

import "testing"

// TestLineOf: the line a parse error names, as `\bline (\d+)` finds it.
func TestLineOf(t *testing.T) {
	for msg, want := range map[string]int{
		"yaml: line 3: mapping values are not allowed":     3,
		"condition rule: line 12, column 4: bad":           12,
		"line 7 first":                                     7,
		"pipeline 5 is not a line; line 9 is":              9,
		"newline 4, underline_line 6, then line x, line 2": 2,
		"no number here: line ":                            0,
		"":                                                 0,
		"outline 8":                                        0,
	} {
		if got := lineOf(msg); got != want {
			t.Errorf("lineOf(%q) = %d, want %d", msg, got, want)
		}
	}
}
