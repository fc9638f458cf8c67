package mesh

import (
	"math"
	"strconv"

	"github.com/dubboroute/dubboroute/internal/number"
	"github.com/dubboroute/dubboroute/router"
)

// Per-call matching. Every function returns (matched, throws): throws is
// true where Java throws (a NullPointerException on a null the binder kept,
// IndexOutOfBoundsException, NumberFormatException, PatternSyntaxException),
// which makes Java's router chain fail the call. None of them allocates.

// match is StringMatch.isMatch; present false is a Java null input.
func (m *StringMatch) match(input string, present bool) (bool, bool) {
	if m == nil {
		return false, true
	}
	return m.Match(input, present)
}

// javaDoubleEquals is Double.equals (doubleToLongBits: NaN equals NaN,
// -0.0 differs from 0.0).
func javaDoubleEquals(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// javaDoubleCompare is Double.compare.
func javaDoubleCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	// equal values: -0.0 < 0.0
	sa, sb := math.Signbit(a), math.Signbit(b)
	switch {
	case sa == sb:
		return 0
	case sa:
		return -1
	}
	return 1
}

func (m *DoubleMatch) match(x float64) (bool, bool) {
	if m == nil {
		return false, true
	}
	switch {
	case m.Exact != nil && m.Mod == nil:
		return javaDoubleEquals(x, *m.Exact), false
	case m.Range != nil:
		r := m.Range
		switch {
		case r.Start != nil && r.End != nil:
			return javaDoubleCompare(x, *r.Start) >= 0 && javaDoubleCompare(x, *r.End) < 0, false
		case r.Start != nil:
			return javaDoubleCompare(x, *r.Start) >= 0, false
		case r.End != nil:
			return javaDoubleCompare(x, *r.End) < 0, false
		}
		return false, false
	case m.Exact != nil:
		return javaDoubleEquals(math.Mod(x, *m.Mod), *m.Exact), false
	}
	return false, false
}

// argDouble is Double.valueOf(input.toString()) for an argument.
func argDouble(a any) (float64, bool) {
	switch n := number.Of(a); {
	case n.Kind == number.Int:
		return float64(n.I), true
	case n.Kind == number.Uint:
		return float64(n.U), true
	case n.Kind == number.Float && n.Bits == 32:
		// Float.toString's digits, read as a double.
		var buf [32]byte
		f, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], n.F, 'g', -1, 32)), 64)
		return f, err == nil
	case n.Kind == number.Float:
		return n.F, true
	}
	if s, ok := a.(string); ok {
		return javaParseDouble(s)
	}
	return 0, false // null, booleans, arrays, maps: Java throws
}

// javaParseDouble is Double.valueOf(String): surrounding characters <= ' '
// trimmed, optional sign, NaN, Infinity, decimal or hexadecimal floating
// literals with an optional f/F/d/D suffix.
func javaParseDouble(s string) (float64, bool) {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	body := s
	neg := false
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	if n := len(body); n > 0 {
		switch body[n-1] {
		case 'f', 'F', 'd', 'D':
			body = body[:n-1]
			s = s[:len(s)-1]
		}
	}
	if !validJavaFloat(body) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// Out of range: Java gives ±Infinity or ±0.0 as ParseFloat does.
		return f, isRangeErr(err)
	}
	return f, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// validJavaFloat checks the unsigned decimal or hexadecimal literal grammar
// of Java's FloatingDecimal (no underscores, no inf/nan words).
func validJavaFloat(s string) bool {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
		digits, i := 0, 0
		for ; i < len(s) && isHex(s[i]); i++ {
			digits++
		}
		if i < len(s) && s[i] == '.' {
			i++
			for ; i < len(s) && isHex(s[i]); i++ {
				digits++
			}
		}
		if digits == 0 || i >= len(s) || (s[i] != 'p' && s[i] != 'P') {
			return false
		}
		return validExp(s[i+1:])
	}
	digits, i := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != 'e' && s[i] != 'E' {
		return false
	}
	return validExp(s[i+1:])
}

func validExp(s string) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (a *MethodArg) match(input any) (bool, bool) {
	switch {
	case a.StrValue != nil:
		s, ok := input.(string)
		if !ok {
			return false, false
		}
		if a.StrValue.Oneof == nil {
			return false, true
		}
		return oneof(a.StrValue.Oneof, func(m *StringMatch) (bool, bool) { return m.match(s, true) })
	case a.NumValue != nil:
		x, ok := argDouble(input)
		if !ok || a.NumValue.Oneof == nil {
			return false, true
		}
		return oneof(a.NumValue.Oneof, func(m *DoubleMatch) (bool, bool) { return m.match(x) })
	case a.BoolValue != nil:
		b, ok := input.(bool)
		return ok && a.BoolValue.Exact != nil && b == *a.BoolValue.Exact, false
	}
	return false, false
}

// oneof is Java's ListStringMatch and ListDoubleMatch isMatch over their
// entries: the first entry that matches decides, one that throws (th) ends
// the call.
func oneof[M any](ms []*M, match func(*M) (ok, th bool)) (bool, bool) {
	for _, m := range ms {
		ok, th := match(m)
		if th {
			return false, true
		}
		if ok {
			return true, false
		}
	}
	return false, false
}

// javaType is the Class of an argument as the invocation declares it:
// getName and getSimpleName. Go values are read as the route command's JSON
// arguments reach Java (integers as int when they fit, else long).
func javaType(call *router.Call, i int) (string, string) {
	a := call.Args[i]
	if call.Generic && len(call.Args) == 3 && i > 0 {
		switch a.(type) {
		case []any, []string:
			if i == 1 {
				return "[Ljava.lang.String;", "String[]"
			}
			return "[Ljava.lang.Object;", "Object[]"
		}
	}
	switch n := number.Of(a); {
	case n.Kind == number.Int && n.Bits == 8:
		return "byte", "byte"
	case n.Kind == number.Int && n.Bits == 16:
		return "short", "short"
	case n.Kind == number.Int && n.I >= math.MinInt32 && n.I <= math.MaxInt32:
		return "int", "int"
	case n.Kind == number.Int:
		return "long", "long"
	case n.Kind == number.Float && n.Bits == 32:
		return "float", "float"
	case n.Kind == number.Float:
		return "double", "double"
	}
	switch a.(type) {
	case string:
		return "java.lang.String", "String"
	case bool:
		return "boolean", "boolean"
	case []any:
		return "[Ljava.lang.Object;", "Object[]"
	case []string:
		return "[Ljava.lang.String;", "String[]"
	}
	return "java.lang.Object", "Object"
}

func (m *MethodMatch) match(call *router.Call) (bool, bool) {
	if m.NameMatch != nil {
		ok, th := m.NameMatch.match(call.Method, true)
		if th || !ok {
			return false, th
		}
	}
	if m.Argc != nil && int(*m.Argc) != len(call.Args) {
		return false, false
	}
	if len(m.Argp) > 0 {
		if len(call.Args) == 0 || len(m.Argp) != len(call.Args) {
			return false, false
		}
		for i, p := range m.Argp {
			name, simple := javaType(call, i)
			ok, th := p.match(name, true)
			if th {
				return false, true
			}
			if !ok {
				if ok, th = p.match(simple, true); th || !ok {
					return false, th
				}
			}
		}
	}
	if len(m.Args) > 0 {
		if len(call.Args) == 0 {
			return false, false
		}
		for _, a := range m.Args {
			if a == nil || a.Index < 0 || int(a.Index) >= len(call.Args) {
				return false, true
			}
			ok, th := a.match(call.Args[a.Index])
			if th || !ok {
				return false, th
			}
		}
	}
	return true, false
}

// match is DubboMatchRequest.isMatch; src is the precomputed sourceLabels
// result against the consumer URL (1 match, 0 no match, -1 throws).
func (r *MatchRequest) match(call *router.Call, src int8) (bool, bool) {
	if r == nil {
		return false, true
	}
	if r.Method != nil {
		ok, th := r.Method.match(call)
		if th || !ok {
			return false, th
		}
	}
	switch src {
	case -1:
		return false, true
	case 0:
		return false, false
	}
	if a := r.Attachments; a != nil {
		if a.dubboSet {
			for _, km := range a.DubboContext {
				v, present := call.Attachment(km.Key)
				ok, th := km.Match.match(v, present)
				if th || !ok {
					return false, th
				}
			}
		}
		if a.tracingSet && len(a.TracingContext) > 0 {
			return false, false // no TracingContextProvider in Java Dubbo 3.3.6
		}
	}
	return true, false
}

// sourceLabels evaluates a request's sourceLabels against the consumer URL.
func (r *MatchRequest) sourceLabels(consumer *router.URL) int8 {
	if r == nil || !r.sourceSet {
		return 1
	}
	for _, kv := range r.SourceLabels {
		if kv.Value == nil {
			return -1
		}
		v, ok := consumer.Params.Get(kv.Key)
		if !ok || v != *kv.Value {
			return 0
		}
	}
	return 1
}
