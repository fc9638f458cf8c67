package mesh

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/javastr"
	"github.com/dubboroute/dubboroute/internal/javayaml"
)

// Java's mesh rule listener loads with SnakeYAML's default LoaderOptions
// (package javayaml: nesting, aliases to collections, code points).
const (
	maxNesting       = javayaml.MaxDepth
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
	if err := javayaml.Check(content); err != nil {
		var le *javayaml.Error
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

// scalar builds the Java value SnakeYAML's resolver and SafeConstructor
// make of a scalar (package javayaml).
func scalar(n *yaml.Node, doc int) (*jval, error) {
	v := &jval{line: n.Line, str: n.Value}
	var err error // a number SnakeYAML cannot construct (an explicit tag on other text) fails the load
	switch javayaml.Resolve(n) {
	case javayaml.Null:
		v.kind = jNull
	case javayaml.Bool:
		v.kind, v.b = jBool, javayaml.BoolValue(n.Value)
		v.str = strconv.FormatBool(v.b)
	case javayaml.Int:
		var i javayaml.IntValue
		i, err = javayaml.ConstructInt(n.Value)
		v.str, v.i = i.Text, i.Value
		switch i.Class {
		case javayaml.Integer:
			v.kind = jInt
		case javayaml.Long:
			v.kind = jLong
		default:
			v.kind = jBig
		}
	case javayaml.Float:
		v.kind = jDouble
		v.f, err = javayaml.ConstructFloat(n.Value)
		v.str = javastr.Double(v.f, 64)
	case javayaml.Timestamp:
		v.kind = jDate
	case javayaml.Binary:
		v.kind = jBinary
	default:
		v.kind = jString
	}
	if err != nil {
		return nil, &YAMLError{Document: doc, Line: n.Line, Msg: err.Error()}
	}
	return v, nil
}
