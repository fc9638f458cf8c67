package mesh

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/yamllimit"
	"github.com/dubboroute/dubboroute/router/condition"
)

// Java's mesh rule listener loads with SnakeYAML's default LoaderOptions
// (package yamllimit: nesting, aliases to collections, code points).
const (
	maxNesting       = yamllimit.MaxDepth
	maxValueNodes    = 1 << 20 // bound on the expanded value tree of one document
	maxFallbackChain = 1000    // bound on nested fallbacks (Java has none; a cycle loops forever)
)

// jkind is the Java class SnakeYAML's SafeConstructor builds for a node.
type jkind uint8

const (
	jNull   jkind = iota
	jString       // java.lang.String
	jBool         // java.lang.Boolean
	jInt          // java.lang.Integer
	jLong         // java.lang.Long
	jBig          // java.math.BigInteger
	jDouble       // java.lang.Double
	jDate         // java.util.Date (!!timestamp)
	jBinary       // byte[] (!!binary)
	jMap          // LinkedHashMap
	jList         // ArrayList
	jSet          // !!set: LinkedHashSet
)

// jval is one value as Java's YAML loader hands it to the rule binder.
type jval struct {
	kind jkind
	line int
	str  string  // jString; decimal text of jInt/jLong/jBig; Double.toString of jDouble
	i    int64   // jInt, jLong
	f    float64 // jDouble
	b    bool    // jBool
	keys []*jval // jMap: keys in insertion order (duplicates: first position, last value)
	vals []*jval // jMap values, jList/jSet elements
}

// javaString is String.valueOf for the scalar kinds PojoUtils converts to a
// String field (Byte, Short, Integer, Long, Float, Double, Boolean, Character).
func (v *jval) canBeString() bool {
	switch v.kind {
	case jInt, jLong, jDouble, jBool:
		return true
	}
	return false
}

// get returns the value of a String key of a map, or nil.
func (v *jval) get(key string) *jval {
	if v == nil || v.kind != jMap {
		return nil
	}
	for i, k := range v.keys {
		if k.kind == jString && k.str == key {
			return v.vals[i]
		}
	}
	return nil
}

// YAMLError is a document Java's YAML loader refuses (syntax, or one of
// SnakeYAML's default limits).
type YAMLError struct {
	Document int // 0-based index of the document, -1 when unknown
	Line     int
	Msg      string
}

func (e *YAMLError) Error() string {
	var b strings.Builder
	b.WriteString("mesh rule")
	if e.Document >= 0 {
		fmt.Fprintf(&b, ", document %d", e.Document)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ", line %d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

var reYAMLLine = regexp.MustCompile(`line (\d+)`)

// loadAll reads every YAML document of content as SnakeYAML's loadAll does.
func loadAll(content string) ([]*jval, error) {
	if err := yamllimit.Check(content); err != nil {
		var le *yamllimit.Error
		errors.As(err, &le)
		return nil, &YAMLError{Document: -1, Line: le.Line, Msg: le.Msg}
	}
	dec := yaml.NewDecoder(strings.NewReader(content))
	var out []*jval
	for i := 0; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			line := 0
			if m := reYAMLLine.FindStringSubmatch(err.Error()); m != nil {
				line, _ = strconv.Atoi(m[1])
			}
			return nil, &YAMLError{Document: i, Line: line, Msg: "bad YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		}
		c := &converter{doc: i}
		root := &doc
		if root.Kind == yaml.DocumentNode {
			if len(root.Content) == 0 {
				out = append(out, &jval{kind: jNull, line: root.Line})
				continue
			}
			root = root.Content[0]
		}
		v, err := c.convert(root, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

type converter struct {
	doc   int
	nodes int
	// anchored holds the value of every anchored node converted so far: an
	// alias shares it, as SnakeYAML shares the object, instead of copying
	// (so a document of 50 nested aliases does not expand exponentially).
	anchored map[*yaml.Node]*jval
}

func (c *converter) convert(n *yaml.Node, depth int) (*jval, error) {
	v, err := c.convertNode(n, depth)
	if err == nil && n.Anchor != "" {
		if c.anchored == nil {
			c.anchored = map[*yaml.Node]*jval{}
		}
		c.anchored[n] = v
	}
	return v, err
}

func (c *converter) convertNode(n *yaml.Node, depth int) (*jval, error) {
	c.nodes++
	if c.nodes > maxValueNodes || depth > 4*maxNesting {
		return nil, &YAMLError{Document: c.doc, Line: n.Line, Msg: "the document expands to too many values (aliases)"}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return &jval{kind: jNull, line: n.Line}, nil
		}
		if v, ok := c.anchored[n.Alias]; ok {
			return v, nil
		}
		return c.convert(n.Alias, depth+1)
	case yaml.MappingNode:
		v := &jval{kind: jMap, line: n.Line}
		if n.Tag == "!!set" {
			v.kind = jSet
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind == yaml.ScalarNode && kn.Tag == "!!merge" {
				// <<: merge keys: the merged entries come first, explicit keys win.
				if err := c.merge(v, vn, depth); err != nil {
					return nil, err
				}
				continue
			}
			k, err := c.convert(kn, depth+1)
			if err != nil {
				return nil, err
			}
			val, err := c.convert(vn, depth+1)
			if err != nil {
				return nil, err
			}
			v.put(k, val)
		}
		if v.kind == jSet {
			v.vals, v.kind = v.keys, jSet
			v.keys = nil
		}
		return v, nil
	case yaml.SequenceNode:
		v := &jval{kind: jList, line: n.Line, vals: make([]*jval, 0, len(n.Content))}
		for _, ch := range n.Content {
			e, err := c.convert(ch, depth+1)
			if err != nil {
				return nil, err
			}
			v.vals = append(v.vals, e)
		}
		return v, nil
	case yaml.ScalarNode:
		return scalar(n, c.doc)
	}
	return &jval{kind: jNull, line: n.Line}, nil
}

func (c *converter) merge(dst *jval, src *yaml.Node, depth int) error {
	var sources []*jval
	s, err := c.convert(src, depth+1)
	if err != nil {
		return err
	}
	switch s.kind {
	case jMap:
		sources = []*jval{s}
	case jList:
		sources = s.vals
	default:
		return &YAMLError{Document: c.doc, Line: src.Line, Msg: "a merge key (<<) needs a mapping or a list of mappings"}
	}
	for _, m := range sources {
		if m.kind != jMap {
			return &YAMLError{Document: c.doc, Line: src.Line, Msg: "a merge key (<<) needs a mapping or a list of mappings"}
		}
		for i, k := range m.keys {
			if dst.indexOf(k) < 0 {
				dst.put(k, m.vals[i])
			}
		}
	}
	return nil
}

func (v *jval) indexOf(k *jval) int {
	for i, x := range v.keys {
		if x.kind == k.kind && x.str == k.str && (x.kind == jString || x.kind == jInt || x.kind == jLong || x.kind == jBig || x.kind == jDouble || x.kind == jBool) {
			return i
		}
	}
	return -1
}

func (v *jval) put(k, val *jval) {
	if i := v.indexOf(k); i >= 0 {
		v.vals[i] = val
		return
	}
	v.keys = append(v.keys, k)
	v.vals = append(v.vals, val)
}

var (
	reInt       = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat     = regexp.MustCompile(`^(?:[-+]?(?:\.[0-9]+|[0-9_]+(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reTimestamp = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

// scalar resolves a scalar as SnakeYAML's YAML 1.1 resolver and
// SafeConstructor do.
// numberStart reports whether c can begin one of YAML 1.1's int, float or
// timestamp forms (the regexps above); a scalar starting otherwise is a
// string without running them.
func numberStart(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.'
}

func scalar(n *yaml.Node, doc int) (*jval, error) {
	v := &jval{line: n.Line, str: n.Value}
	tag := ""
	if n.Style&yaml.TaggedStyle != 0 {
		tag = n.Tag
	} else if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		tag = "!!str"
	}
	s := n.Value
	if tag == "" {
		switch {
		case s == "" || s == "~" || s == "null" || s == "Null" || s == "NULL":
			tag = "!!null"
		case isYAMLBool(s):
			tag = "!!bool"
		case !numberStart(s[0]):
			tag = "!!str" // every int, float and timestamp form starts with [-+.0-9]
		case reInt.MatchString(s):
			tag = "!!int"
		case reFloat.MatchString(s):
			tag = "!!float"
		case reTimestamp.MatchString(s):
			tag = "!!timestamp"
		default:
			tag = "!!str"
		}
	}
	switch tag {
	case "!!null":
		v.kind = jNull
	case "!!bool":
		v.kind = jBool
		switch s {
		case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
			v.b = true
		}
		v.str = strconv.FormatBool(v.b)
	case "!!int":
		if err := setInt(v, s); err != nil {
			return nil, &YAMLError{Document: doc, Line: n.Line, Msg: err.Error()}
		}
	case "!!float":
		f, err := yamlFloat(s)
		if err != nil {
			return nil, &YAMLError{Document: doc, Line: n.Line, Msg: err.Error()}
		}
		v.kind, v.f, v.str = jDouble, f, condition.JavaDouble(f, 64)
	case "!!timestamp":
		v.kind = jDate
	case "!!binary":
		v.kind = jBinary
	default:
		v.kind = jString
	}
	return v, nil
}

func isYAMLBool(s string) bool {
	switch s {
	case "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF":
		return true
	}
	return false
}

// setInt is SnakeYAML's ConstructYamlInt: Integer if it fits, else Long,
// else BigInteger.
func setInt(v *jval, text string) error {
	s := strings.ReplaceAll(text, "_", "")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	n := new(big.Int)
	ok := true
	switch {
	case s == "0":
	case len(s) > 4096:
		// A number no rule field can hold; only its kind matters.
		v.kind, v.str = jBig, text
		return nil
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
	if !ok {
		return fmt.Errorf("bad integer %q", text)
	}
	if neg {
		n.Neg(n)
	}
	v.str = n.String()
	switch {
	case n.IsInt64() && n.Int64() >= -1<<31 && n.Int64() < 1<<31:
		v.kind, v.i = jInt, n.Int64()
	case n.IsInt64():
		v.kind, v.i = jLong, n.Int64()
	default:
		v.kind = jBig
	}
	return nil
}

func yamlFloat(text string) (float64, error) {
	s := strings.ReplaceAll(text, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return negInf, nil
		}
		return posInf, nil
	case ".nan":
		return nan, nil
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
