package gray

import (
	"strconv"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/internal/number"
	"github.com/dubboroute/dubboroute/router"
)

// test evaluates the condition on a value (ok=false: the source has no
// value) at time now. It allocates nothing for string values.
func (c *Condition) test(v string, ok bool, now time.Time) bool {
	switch c.Operator {
	case OpTimeBefore:
		return now.Before(c.at)
	case OpTimeAfter:
		return now.After(c.at)
	case OpBlank:
		return !ok || strings.TrimSpace(v) == ""
	case OpNotBlank:
		return ok && strings.TrimSpace(v) != ""
	}
	if !ok {
		return false
	}
	switch c.Operator {
	case OpEqual:
		return v == c.Value
	case OpNotEqual:
		return v != c.Value
	case OpIn:
		_, in := c.set[v]
		return in
	case OpNotIn:
		_, in := c.set[v]
		return !in
	case OpRegex:
		return c.re.MatchString(v)
	case OpWildcard:
		return wildcardMatch(c.Value, v)
	case OpContains:
		return strings.Contains(v, c.Value)
	case OpStartsWith:
		return strings.HasPrefix(v, c.Value)
	case OpEndsWith:
		return strings.HasSuffix(v, c.Value)
	case OpRange:
		f, ok := parseNumber(v)
		return ok && f >= c.lo && f <= c.hi
	}
	return false
}

// parseNumber parses a decimal number without allocating on failure (which
// strconv.ParseFloat would, for its error value) for the common junk inputs.
func parseNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// wildcardMatch matches s against a glob where '*' is any run of bytes and
// '?' exactly one byte. Linear-time greedy algorithm with one backtrack
// point; no allocation.
func wildcardMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matches reports whether a provider matches the matcher (compile time).
func (m *ProviderMatcher) matches(u *router.URL) bool {
	switch {
	case m.Tag != "":
		return u.Params.Value("dubbo.tag") == m.Tag
	case m.Address != "":
		return m.addr.Match(u.Host, u.Port)
	}
	v, ok := u.Get(m.Param)
	if !ok {
		return false
	}
	switch m.Kind {
	case "exact":
		return v == m.Value
	case "prefix":
		return strings.HasPrefix(v, m.Value)
	case "regex":
		return m.re.MatchString(v)
	case "wildcard":
		return wildcardMatch(m.Value, v)
	}
	return false
}

func (s *ProviderSelector) matches(u *router.URL) bool {
	and := s.MatchMode == MatchAnd
	for i := range s.Match {
		hit := s.Match[i].matches(u)
		if and && !hit {
			return false
		}
		if !and && hit {
			return true
		}
	}
	return and
}

// argString renders an argument for matching. Strings (the usual case)
// cost nothing; integers below 100 cost nothing (strconv's small-number
// table); other values are formatted and allocate.
func argString(a any) (string, bool) {
	switch v := a.(type) {
	case nil:
		return "", false
	case string:
		return v, true
	case *string:
		if v == nil {
			return "", false
		}
		return *v, true
	case bool:
		return strconv.FormatBool(v), true
	case interface{ String() string }:
		return v.String(), true
	}
	switch n := number.Of(a); n.Kind {
	case number.Int:
		return strconv.FormatInt(n.I, 10), true
	case number.Uint:
		return strconv.FormatUint(n.U, 10), true
	case number.Float:
		return strconv.FormatFloat(n.F, 'g', -1, n.Bits), true
	}
	return "", false
}
