package javastr

import (
	"math"
	"strconv"
	"strings"
)

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

// Double renders f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) does since JDK 19 (shortest digits that round
// trip): "1.0", "0.001", "1.0E7", "1.0E-4", "NaN", "-Infinity".
func Double(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	s := strconv.FormatFloat(f, 'e', -1, bits)
	mant, expText, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	if f >= 1e-3 && f < 1e7 {
		var ip, fp string
		if exp >= 0 {
			if len(digits) <= exp+1 {
				ip, fp = digits+strings.Repeat("0", exp+1-len(digits)), "0"
			} else {
				ip, fp = digits[:exp+1], digits[exp+1:]
			}
		} else {
			ip, fp = "0", strings.Repeat("0", -exp-1)+digits
		}
		return sign + ip + "." + fp
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}
