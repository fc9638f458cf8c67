package condition

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dubboroute/dubboroute/internal/javastr"
	"github.com/dubboroute/dubboroute/internal/number"
	"github.com/dubboroute/dubboroute/router"
)

// NotFoundValue is Java's sentinel for a value a matcher could not extract
// (a missing argument, a malformed arguments/attachments key, or an
// arguments/attachments key in a then-part). It is a real string: "!=x"
// matches it and a range reads it as 0.
const NotFoundValue = "dubbo_internal_not_found_argument_condition_value"

type keyKind uint8

const (
	keyParam      keyKind = iota // URL map lookup (consumer in when-parts, provider in then-parts)
	keyMethod                    // method/methods: the call's method in when-parts
	keyArgument                  // arguments[N]
	keyAttachment                // attachments[k]
	keySentinel                  // arguments/attachments key Java cannot resolve: always NotFoundValue
)

// classifyKey picks Java's matcher for a key (attachments first, then
// arguments, then the URL-parameter matcher) and pre-extracts what the
// matcher would extract from the key on every call.
func classifyKey(key string) (keyKind, int, string) {
	switch {
	case strings.HasPrefix(key, "attachments"):
		head, _, _ := strings.Cut(key, ".")
		if name, ok := findAttachmentName(head); ok {
			return keyAttachment, 0, name
		}
		return keySentinel, 0, ""
	case strings.HasPrefix(key, "arguments"):
		head, _, _ := strings.Cut(key, ".")
		if idx, ok := findArgumentIndex(head); ok {
			return keyArgument, idx, ""
		}
		return keySentinel, 0, ""
	case key == "method" || key == "methods":
		return keyMethod, 0, ""
	}
	return keyParam, 0, ""
}

// findAttachmentName is Matcher.find() of attachments\[(.+)\]: the leftmost
// start, then the greedy group up to the last "]" before a line terminator.
func findAttachmentName(s string) (string, bool) {
	const pfx = "attachments["
	for i := 0; i+len(pfx) <= len(s); i++ {
		if !strings.HasPrefix(s[i:], pfx) {
			continue
		}
		region := s[i+len(pfx):]
		if j := strings.IndexAny(region, "\n\r\u0085\u2028\u2029"); j >= 0 {
			region = region[:j]
		}
		if j := strings.LastIndexByte(region, ']'); j >= 1 {
			return region[:j], true
		}
	}
	return "", false
}

// findArgumentIndex is Matcher.find() of arguments\[([0-9]+)\] followed by
// Integer.parseInt (an overflowing index throws, which Java turns into the
// sentinel).
func findArgumentIndex(s string) (int, bool) {
	const pfx = "arguments["
	for i := 0; i+len(pfx) <= len(s); i++ {
		if !strings.HasPrefix(s[i:], pfx) {
			continue
		}
		j := i + len(pfx)
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j || k >= len(s) || s[k] != ']' {
			continue
		}
		n, err := strconv.ParseInt(s[j:k], 10, 32)
		if err != nil {
			return 0, false
		}
		return int(n), true
	}
	return 0, false
}

// pattern is one "=" or "!=" value, compiled.
type pattern struct {
	raw     string
	isRange bool
	rng     rangePattern
	glob    globPattern
}

type globKind uint8

const (
	globExact globKind = iota
	globAny
	globEmpty // null or empty pattern (an unresolved $ref): matches only ""
	globPrefix
	globSuffix
	globBoth
)

type globPattern struct {
	kind globKind
	a, b string
}

// compileGlob is UrlUtils.isMatchGlobPattern's pattern side. Only the last
// "*" is special.
func compileGlob(p string) globPattern {
	switch {
	case p == "*":
		return globPattern{kind: globAny}
	case p == "":
		return globPattern{kind: globEmpty}
	}
	i := strings.LastIndexByte(p, '*')
	switch {
	case i < 0:
		return globPattern{kind: globExact, a: p}
	case i == len(p)-1:
		return globPattern{kind: globPrefix, a: p[:i]}
	case i == 0:
		return globPattern{kind: globSuffix, b: p[1:]}
	}
	return globPattern{kind: globBoth, a: p[:i], b: p[i+1:]}
}

func (g *globPattern) match(v string) bool {
	switch g.kind {
	case globAny:
		return true
	case globEmpty:
		return v == ""
	}
	if v == "" {
		return false
	}
	switch g.kind {
	case globExact:
		return v == g.a
	case globPrefix:
		return strings.HasPrefix(v, g.a)
	case globSuffix:
		return strings.HasSuffix(v, g.b)
	}
	return strings.HasPrefix(v, g.a) && strings.HasSuffix(v, g.b)
}

// rangePattern is RangeValuePattern, decided at compile time as far as the
// pattern goes: broken patterns always give the default result.
type rangePattern struct {
	broken       bool
	hasLo, hasHi bool
	lo, hi       int64
	rawBounds    []string
}

// parseInteger is Dubbo's StringUtils.parseInteger: digits-only text is
// parsed (overflow is an error), anything else is 0.
func parseInteger(s string) (int64, bool) {
	if !javastr.Digits(s) {
		return 0, true
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return n, true
}

func compileRange(p string) rangePattern {
	arr := javastr.Split(p, "~")
	if len(arr) < 2 {
		return rangePattern{broken: true}
	}
	start, end := arr[0], arr[1]
	r := rangePattern{rawBounds: []string{start, end}}
	if start == "" && end == "" {
		r.broken = true
		return r
	}
	var okLo, okHi bool
	r.lo, r.hasLo, okLo = parseBound(start)
	r.hi, r.hasHi, okHi = parseBound(end)
	r.broken = !okLo || !okHi
	return r
}

// parseBound reads one bound of a range: "" is none (has is false); ok is
// false when parseInteger fails, which breaks the range.
func parseBound(s string) (n int64, has, ok bool) {
	if s == "" {
		return 0, false, true
	}
	n, ok = parseInteger(s)
	return n, ok, ok
}

func (r *rangePattern) match(v string, when bool) bool {
	if r.broken {
		return !when
	}
	n, ok := parseInteger(v)
	if !ok {
		return !when
	}
	if r.hasLo && n < r.lo {
		return false
	}
	if r.hasHi && n > r.hi {
		return false
	}
	return true
}

// compilePattern compiles one value. ref is the consumer URL for then-parts
// ($x is resolved through Java's getRawParameter) and nil for when-parts,
// where $x stays literal.
func compilePattern(v string, ref *router.URL) pattern {
	if strings.Contains(v, "~") {
		return pattern{raw: v, isRange: true, rng: compileRange(v)}
	}
	p := v
	if ref != nil && strings.HasPrefix(p, "$") {
		if rv, ok := ref.RawParameter(p[1:]); ok {
			p = rv
		} else {
			return pattern{raw: v, glob: globPattern{kind: globEmpty}}
		}
	}
	return pattern{raw: v, glob: compileGlob(p)}
}

func (p *pattern) match(v string, when bool) bool {
	if p.isRange {
		return p.rng.match(v, when)
	}
	return p.glob.match(v)
}

// matchValues is AbstractConditionMatcher.isMatch after value extraction.
func matchValues(v string, present bool, match, mismatch []pattern, when bool) bool {
	if !present {
		return false
	}
	for i := range mismatch {
		if mismatch[i].match(v, when) {
			return false
		}
	}
	if len(match) == 0 {
		return len(mismatch) > 0
	}
	for i := range match {
		if match[i].match(v, when) {
			return true
		}
	}
	return false
}

// ArgumentString renders an invocation argument as Java's String.valueOf
// would: strings as they are (no allocation), nil as "null", booleans as
// "true"/"false", integers in decimal (no allocation below 100), floats like
// Double.toString / Float.toString, fmt.Stringer through String(). Other
// types (structs, slices, maps, pointers) have no Java equivalent here and
// are rendered with fmt.Sprint (which allocates); Java would print a class
// name and hash for them, so only "*" or "!=" conditions are meaningful.
func ArgumentString(a any) string {
	switch x := a.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case *string:
		if x == nil {
			return "null"
		}
		return *x
	case fmt.Stringer:
		return x.String()
	}
	switch n := number.Of(a); n.Kind {
	case number.Int:
		return strconv.FormatInt(n.I, 10)
	case number.Uint:
		return strconv.FormatUint(n.U, 10)
	case number.Float:
		return javastr.Double(n.F, n.Bits)
	}
	return fmt.Sprint(a)
}

// MatchThenValue reports whether a provider's value v (present false: the
// provider has no such key) matches the single then-part pattern p, as
// Java's ConditionMatcher does with one match pattern and no mismatch
// pattern: globs, integer ranges a~b and $references resolved against ref
// (the consumer URL). Java's affinity router matches providers this way.
func MatchThenValue(p string, ref *router.URL, v string, present bool) bool {
	return matchValues(v, present, []pattern{compilePattern(p, ref)}, nil, false)
}
