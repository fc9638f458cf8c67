package javastr

import "strings"

// Split is Java's String.split with a literal separator (no regex
// metacharacters): when sep does not occur the result is the whole string
// (even an empty one); otherwise trailing empty strings are removed, so
// "a~" splits into ["a"] and "~" into [].
func Split(s, sep string) []string {
	if !strings.Contains(s, sep) {
		return []string{s}
	}
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// Digits reports whether s is one or more ASCII digits (Java's ^\d+$ as
// Dubbo's StringUtils uses it).
func Digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
