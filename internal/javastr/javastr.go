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
	var buf [32]byte
	return string(AppendDouble(buf[:0], f, bits))
}

// AppendDouble appends Double(d, bits) to buf without allocating (beyond
// growing buf): decimal notation for magnitudes whose shortest digits have
// an exponent in [-3, 7), with at least one fraction digit ("1.0"),
// computerised scientific notation otherwise ("1.0E7", "1.5E-4").
func AppendDouble(buf []byte, d float64, bits int) []byte {
	switch {
	case d != d:
		return append(buf, "NaN"...)
	case math.IsInf(d, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(d, -1):
		return append(buf, "-Infinity"...)
	case d == 0:
		if math.Signbit(d) {
			return append(buf, "-0.0"...)
		}
		return append(buf, "0.0"...)
	}
	// Shortest digits: d.ddddde±XX.
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], d, 'e', -1, bits)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
		buf = append(buf, '-')
	}
	epos := 0
	for i, c := range s {
		if c == 'e' {
			epos = i
			break
		}
	}
	mant, exps := s[:epos], s[epos+1:]
	exp := 0
	sign := 1
	for i, c := range exps {
		switch {
		case i == 0 && c == '-':
			sign = -1
		case i == 0 && c == '+':
		default:
			exp = exp*10 + int(c-'0')
		}
	}
	exp *= sign
	var digs [24]byte
	nd := 0
	for _, c := range mant {
		if c != '.' {
			digs[nd] = c
			nd++
		}
	}
	dg := digs[:nd]
	if exp >= -3 && exp < 7 {
		if exp >= 0 {
			if nd > exp+1 {
				buf = append(buf, dg[:exp+1]...)
				buf = append(buf, '.')
				return append(buf, dg[exp+1:]...)
			}
			buf = append(buf, dg...)
			for i := nd; i < exp+1; i++ {
				buf = append(buf, '0')
			}
			return append(buf, ".0"...)
		}
		buf = append(buf, "0."...)
		for i := 0; i < -exp-1; i++ {
			buf = append(buf, '0')
		}
		return append(buf, dg...)
	}
	buf = append(buf, dg[0], '.')
	if nd > 1 {
		buf = append(buf, dg[1:]...)
	} else {
		buf = append(buf, '0')
	}
	buf = append(buf, 'E')
	return strconv.AppendInt(buf, int64(exp), 10)
}
