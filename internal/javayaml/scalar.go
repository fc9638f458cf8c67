package javayaml

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/javastr"
)

// Kind is the Java class SnakeYAML's SafeConstructor builds for a node.
type Kind uint8

// The kinds Resolve reports.
const (
	String     Kind = iota // java.lang.String
	Null                   // null
	Bool                   // java.lang.Boolean
	Int                    // Integer, Long or BigInteger (ConstructInt tells which)
	Float                  // java.lang.Double
	Timestamp              // java.util.Date (!!timestamp)
	Binary                 // byte[] (!!binary)
	Collection             // a mapping or a sequence (LinkedHashMap, ArrayList, LinkedHashSet)
)

// YAML 1.1's implicit resolvers for int, float and timestamp, as SnakeYAML's
// Resolver has them.
var (
	reInt       = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat     = regexp.MustCompile(`^(?:[-+]?(?:\.[0-9]+|[0-9_]+(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reTimestamp = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

// Deref follows alias nodes (at most 100 hops).
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// Resolve classifies a node (aliases followed) as SnakeYAML resolves it: an
// explicit tag wins (an unknown one reads as a string), a quoted, literal or
// folded scalar is a string, and a plain scalar goes through YAML 1.1's
// implicit resolvers. A nil node is Null.
func Resolve(n *yaml.Node) Kind {
	n = Deref(n)
	if n == nil {
		return Null
	}
	if n.Kind != yaml.ScalarNode {
		return Collection
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!null":
			return Null
		case "!!bool":
			return Bool
		case "!!int":
			return Int
		case "!!float":
			return Float
		case "!!timestamp":
			return Timestamp
		case "!!binary":
			return Binary
		}
		return String
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return String
	}
	return resolvePlain(n.Value)
}

func resolvePlain(v string) Kind {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return Null
	case "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF":
		return Bool
	}
	if c := v[0]; !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
		return String // every int, float and timestamp form starts with [-+.0-9]
	}
	// A plain decimal ([-+]?[1-9][0-9]*) is an int without the regular
	// expressions, which take ~0.1 s on a megabyte of digits (~1 s built
	// with -race).
	d := v
	if d[0] == '-' || d[0] == '+' {
		d = d[1:]
	}
	if d != "" && d[0] != '0' && javastr.Digits(d) {
		return Int
	}
	return resolveByPattern(v)
}

// resolveByPattern is YAML 1.1's int, float and timestamp resolvers, in
// SnakeYAML's order; anything else is a string.
func resolveByPattern(v string) Kind {
	switch {
	case reInt.MatchString(v):
		return Int
	case reFloat.MatchString(v):
		return Float
	case reTimestamp.MatchString(v):
		return Timestamp
	}
	return String
}

// IsNull reports whether a node is absent or resolves to null.
func IsNull(n *yaml.Node) bool { return Resolve(n) == Null }

// BoolValue is SnakeYAML's ConstructYamlBool on the text of a bool scalar:
// true for yes, true and on in any case.
func BoolValue(v string) bool {
	switch strings.ToLower(v) {
	case "yes", "true", "on":
		return true
	}
	return false
}

// IntClass is the Java class ConstructInt builds.
type IntClass uint8

// The classes of a YAML integer.
const (
	Integer    IntClass = iota // java.lang.Integer: fits 32 bits
	Long                       // java.lang.Long: fits 64 bits
	BigInteger                 // java.math.BigInteger
)

// IntValue is the number ConstructInt builds.
type IntValue struct {
	Text  string   // its toString: decimal digits (as written for a non-decimal number too long to normalise)
	Class IntClass // Integer, Long or BigInteger
	Value int64    // the value when Class is Integer or Long
}

// MaxRadixDigits bounds the binary, octal, hex and sexagesimal integers
// ConstructInt normalises; a longer one (a hostile rule: no rule field can
// hold it) is a BigInteger kept as written.
const MaxRadixDigits = 4096

// ConstructInt is SnakeYAML's ConstructYamlInt on the text of an int scalar
// (underscores dropped; 0b binary, 0 octal, 0x hex, a:b sexagesimal): an
// Integer if the value fits 32 bits, else a Long, else a BigInteger. A
// decimal is rendered without math/big, so a megabyte-long number stays
// linear. The error reports digits that do not parse in their base (an
// explicit !!int tag on other text), where SnakeYAML fails the load; the
// returned value then holds the digits read before the bad one.
func ConstructInt(text string) (IntValue, error) {
	s := strings.ReplaceAll(text, "_", "")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// Decimal (no leading 0, which YAML 1.1 reads as octal): Java's
	// toString is the digits themselves.
	if s != "" && s[0] != '0' && !strings.Contains(s, ":") && javastr.Digits(s) {
		if neg {
			s = "-" + s
		}
		v := IntValue{Text: s, Class: BigInteger}
		if len(s) <= 20 {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				v.Value, v.Class = i, Long
				if i >= math.MinInt32 && i <= math.MaxInt32 {
					v.Class = Integer
				}
			}
		}
		return v, nil
	}
	if len(s) > MaxRadixDigits {
		return IntValue{Text: text, Class: BigInteger}, nil
	}
	n := new(big.Int)
	ok := true
	switch {
	case s == "0":
	case strings.HasPrefix(s, "0b"):
		_, ok = n.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		_, ok = n.SetString(s[2:], 16)
	case strings.HasPrefix(s, "0"):
		_, ok = n.SetString(s[1:], 8)
	case strings.Contains(s, ":"):
		for _, d := range strings.Split(s, ":") {
			x, _ := strconv.ParseInt(d, 10, 64)
			n.Mul(n, big.NewInt(60))
			n.Add(n, big.NewInt(x))
		}
	default:
		_, ok = n.SetString(s, 10)
	}
	if neg {
		n.Neg(n)
	}
	v := IntValue{Text: n.String(), Class: BigInteger}
	if n.IsInt64() {
		v.Value, v.Class = n.Int64(), Long
		if v.Value >= math.MinInt32 && v.Value <= math.MaxInt32 {
			v.Class = Integer
		}
	}
	if !ok {
		return v, fmt.Errorf("bad integer %q", text)
	}
	return v, nil
}

// ConstructFloat is SnakeYAML's ConstructYamlFloat on the text of a float
// scalar (underscores dropped; .inf, .nan, a:b.c sexagesimal). Out-of-range
// values are infinities, as Double.valueOf makes them; other text that does
// not parse is an error.
func ConstructFloat(text string) (float64, error) {
	s := strings.ReplaceAll(text, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case ".nan":
		return math.NaN(), nil
	}
	if strings.Contains(s, ":") {
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimLeft(s, "+-")
		f := 0.0
		for _, d := range strings.Split(s, ":") {
			x, _ := strconv.ParseFloat(d, 64)
			f = f*60 + x
		}
		if neg {
			f = -f
		}
		return f, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("bad float %q", text)
	}
	return f, nil
}

// maxRenderNodes bounds the work of rendering one value: aliases can make a
// small document expand exponentially (SnakeYAML refuses documents with
// more than 50 collection aliases for the same reason).
const maxRenderNodes = 10000

// ToString is String.valueOf(Object) of the value SnakeYAML builds for a
// node: integers in decimal, booleans as true/false, floats as Java's
// Double.toString (text that does not parse as written), a LinkedHashMap as
// {k=v, ...}, an ArrayList as [a, b], null as "null"; strings, timestamps
// and binaries as their text. A value nested deeper than 50 or expanding
// past 10,000 nodes (aliases) is an error.
func ToString(n *yaml.Node) (string, error) {
	budget := maxRenderNodes
	return toString(n, 0, &budget)
}

func toString(n *yaml.Node, depth int, budget *int) (string, error) {
	*budget--
	if depth > 50 || *budget < 0 {
		return "", fmt.Errorf("value nested too deeply or too large (alias expansion)")
	}
	n = Deref(n)
	switch Resolve(n) {
	case Null:
		return "null", nil
	case Bool:
		return strconv.FormatBool(BoolValue(n.Value)), nil
	case Int:
		v, _ := ConstructInt(n.Value)
		return v.Text, nil
	case Float:
		f, err := ConstructFloat(n.Value)
		if err != nil {
			return n.Value, nil // Double.valueOf would fail too; keep the text
		}
		return javastr.Double(f, 64), nil
	case String, Timestamp, Binary:
		return n.Value, nil
	}
	var b strings.Builder
	switch n.Kind {
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			k, err := toString(n.Content[i], depth+1, budget)
			if err != nil {
				return "", err
			}
			v, err := toString(n.Content[i+1], depth+1, budget)
			if err != nil {
				return "", err
			}
			b.WriteString(k + "=" + v)
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteString(", ")
			}
			v, err := toString(c, depth+1, budget)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		}
		b.WriteByte(']')
	default:
		return "", fmt.Errorf("unsupported YAML node")
	}
	return b.String(), nil
}

// CastString is Java's (String) cast of a map value: a string's text, ""
// with isString false for null, and ok false for any other kind (Java's
// ClassCastException). A !!binary scalar reads as its text.
func CastString(n *yaml.Node) (s string, isString, ok bool) {
	switch Resolve(n) {
	case Null:
		return "", false, true
	case String, Binary:
		return Deref(n).Value, true, true
	}
	return "", false, false
}

// KindName names what n is for an error message: "a mapping", "a list",
// "null", `the scalar "v"`, "an alias" or "nothing".
func KindName(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}
