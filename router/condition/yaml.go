package condition

import (
	"errors"
	"fmt"
	"github.com/dubboroute/dubboroute/internal/javastr"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// ParseRule parses a config-center condition rule (the YAML Dubbo Admin
// stores at /dubbo/config/dubbo/<key>.condition-router) the way Java 3.3's
// ConditionRuleParser does: SnakeYAML (YAML 1.1 scalars) into a map, then
// configVersion selects the v3.1 multi-destination parser, an "above v3.1"
// rejection, or the v3.0 parser.
//
// Errors: any failure rejects the whole rule with a *ParseError naming the
// field, the YAML line and, for a bad condition, its index and text. Two
// wrapped sentinels mark rules Java accepts but does not apply, so the
// caller keeps the rule in force: ErrUnsupportedVersion and ErrRuleInvalid.
// Fields Java ignores are accepted and listed in Rule.UnknownFields.
func ParseRule(content string) (*Rule, error) {
	dec := yaml.NewDecoder(strings.NewReader(content))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ruleErr(nil, "", "empty rule")
		}
		return nil, ruleErr(nil, "", "bad YAML: %v", err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, ruleErr(&more, "", "more than one YAML document")
	}
	root := deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = deref(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		return nil, ruleErr(root, "", "the rule must be a YAML mapping")
	}
	fields, order, err := mappingFields(root, "")
	if err != nil {
		return nil, err
	}
	r := &Rule{Source: SourceYAML, Enabled: true, Runtime: true}

	// String-typed fields: Java casts them, so another type rejects the rule.
	for _, name := range []string{"configVersion", "scope", "key", "rawRule"} {
		n := fields[name]
		if n == nil {
			continue
		}
		v, err := castString(n, name)
		if err != nil {
			return nil, err
		}
		switch name {
		case "configVersion":
			r.ConfigVersion = v
		case "scope":
			r.Scope = v
		case "key":
			r.Key = v
		}
	}
	cv := r.ConfigVersion
	_, hasCV := fields["configVersion"]
	hasCV = hasCV && !isNull(fields["configVersion"])
	switch {
	case hasCV && strings.HasPrefix(strings.ToLower(cv), V31):
		r.Version = V31
	case hasCV && compareToIgnoreCase(cv, V31) > 0:
		n := fields["configVersion"]
		return nil, &ParseError{Index: -1, Field: "configVersion", Line: n.Line,
			Msg: fmt.Sprintf("configVersion %q: only v3.1 and below are supported; Java ignores this rule", cv), Err: ErrUnsupportedVersion}
	default:
		r.Version = V30
	}

	boolField := func(name string, dst *bool) {
		if n := fields[name]; n != nil && !isNull(n) {
			*dst = javaParseBoolean(n)
		}
	}
	boolField("force", &r.Force)
	boolField("enabled", &r.Enabled)
	boolField("runtime", &r.Runtime)
	boolField("dynamic", &r.Dynamic)
	valid := true
	boolField("valid", &valid)
	if n := fields["priority"]; n != nil && !isNull(n) {
		s, _ := javaToString(n)
		p, ok := javaParseInt(s)
		if !ok {
			return nil, &ParseError{Index: -1, Field: "priority", Line: n.Line, Msg: fmt.Sprintf("priority %q is not an integer", s)}
		}
		r.Priority = int(p)
		if p != 0 {
			r.findings = append(r.findings, Finding{Code: FindNoEffectField, Condition: -1, Line: n.Line,
				Message: "priority has no effect in Dubbo 3.x: router order is fixed (service, provider-app, consumer-app)"})
		}
	}
	known := map[string]bool{"configVersion": true, "scope": true, "key": true, "rawRule": true, "force": true,
		"enabled": true, "runtime": true, "dynamic": true, "valid": true, "priority": true, "conditions": true}
	for _, k := range order {
		if !known[k.name] {
			r.unknown(k.name, k.line)
		}
	}

	cn := fields["conditions"]
	if r.Version == V31 {
		if err := r.parseV31Conditions(cn); err != nil {
			return nil, err
		}
	} else if err := r.parseV30Conditions(cn); err != nil {
		return nil, err
	}
	if len(r.Conditions) == 0 || !valid {
		line := root.Line
		if cn != nil {
			line = cn.Line
		}
		msg := "conditions is missing, not a list, or empty; Java keeps the conditions already in force"
		if !valid {
			msg = "valid: false; Java keeps the conditions already in force"
		}
		return nil, &ParseError{Index: -1, Field: "conditions", Line: line, Msg: msg, Err: ErrRuleInvalid}
	}
	return r, nil
}

func (r *Rule) unknown(name string, line int) {
	r.UnknownFields = append(r.UnknownFields, Field{Name: name, Line: line})
	r.findings = append(r.findings, Finding{Code: FindUnknownField, Condition: -1, Line: line,
		Message: fmt.Sprintf("field %q is not read by Java Dubbo 3.3 and has no effect", name)})
}

func (r *Rule) parseV30Conditions(cn *yaml.Node) error {
	if cn == nil {
		return nil
	}
	cn = deref(cn)
	if cn.Kind != yaml.SequenceNode {
		// Java only reads a List; anything else leaves the rule without
		// conditions (invalid).
		return nil
	}
	for i, el := range cn.Content {
		text, err := javaToString(el)
		if err != nil {
			return &ParseError{Index: i, Field: fmt.Sprintf("conditions[%d]", i), Line: el.Line, Msg: err.Error()}
		}
		c, err := parseV30Condition(i, text, el.Line, r.Enabled, &r.findings)
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.Field = fmt.Sprintf("conditions[%d]", i)
			}
			return err
		}
		r.Conditions = append(r.Conditions, c)
	}
	return nil
}

func (r *Rule) parseV31Conditions(cn *yaml.Node) error {
	if cn == nil || isNull(cn) {
		return &ParseError{Index: -1, Field: "conditions", Msg: "a v3.1 rule needs a conditions list (Java fails on a missing one)"}
	}
	cn = deref(cn)
	if cn.Kind != yaml.SequenceNode {
		return &ParseError{Index: -1, Field: "conditions", Line: cn.Line, Msg: "conditions must be a list"}
	}
	for i, el := range cn.Content {
		el = deref(el)
		field := fmt.Sprintf("conditions[%d]", i)
		if el.Kind != yaml.MappingNode {
			return &ParseError{Index: i, Field: field, Line: el.Line, Msg: "a v3.1 condition must be a mapping with from/to"}
		}
		fs, order, err := mappingFields(el, field+".")
		if err != nil {
			return err
		}
		for _, k := range order {
			if k.name != "from" && k.name != "to" {
				r.unknown(field+"."+k.name, k.line)
			}
		}
		c := Condition{Index: i, Line: el.Line, Parsed: true}
		fromMatch, fromSet, err := r.stringMap(fs["from"], field+".from", "match")
		if err != nil {
			return err
		}
		if fromSet && !javaBlank(fromMatch) && fromMatch != "true" {
			p, err := parsePart(fromMatch, i, el.Line, true, &r.findings)
			if err != nil {
				return &ParseError{Index: i, Condition: fromMatch, Field: field + ".from.match", Line: el.Line, Msg: "when-part: " + err.Error()}
			}
			c.When = p
		}
		var parts []string
		if fromSet {
			parts = append(parts, fromMatch)
		} else {
			parts = append(parts, "")
		}
		to := fs["to"]
		var thenTexts []string
		if to != nil && !isNull(to) {
			to = deref(to)
			if to.Kind != yaml.SequenceNode {
				return &ParseError{Index: i, Field: field + ".to", Line: to.Line, Msg: "to must be a list of {match, weight}"}
			}
			for j, te := range to.Content {
				te = deref(te)
				tf := fmt.Sprintf("%s.to[%d]", field, j)
				if te.Kind != yaml.MappingNode {
					return &ParseError{Index: i, Field: tf, Line: te.Line, Msg: "a destination must be a mapping with match/weight"}
				}
				tfs, torder, err := mappingFields(te, tf+".")
				if err != nil {
					return err
				}
				for _, k := range torder {
					if k.name != "match" && k.name != "weight" {
						r.unknown(tf+"."+k.name, k.line)
					}
				}
				tg := Target{Line: te.Line, Weight: 100}
				if mn := tfs["match"]; mn != nil && !isNull(mn) {
					s, err := scalarJSONString(mn)
					if err != nil {
						return &ParseError{Index: i, Field: tf + ".match", Line: mn.Line, Msg: err.Error()}
					}
					tg.Match = s
				}
				if javaBlank(tg.Match) || tg.Match == "false" {
					r.findings = append(r.findings, Finding{Code: FindTargetAll, Condition: i, Line: te.Line,
						Message: fmt.Sprintf("%s.match is blank or false: in v3.1 this selects every provider (in v3.0 it would block)", tf)})
				} else {
					p, err := parsePart(tg.Match, i, te.Line, false, &r.findings)
					if err != nil {
						return &ParseError{Index: i, Condition: tg.Match, Field: tf + ".match", Line: te.Line, Msg: "then-part: " + err.Error()}
					}
					tg.Then = p
				}
				if wn := tfs["weight"]; wn != nil && !isNull(wn) {
					s, err := scalarJSONString(wn)
					if err != nil {
						return &ParseError{Index: i, Field: tf + ".weight", Line: wn.Line, Msg: err.Error()}
					}
					w, ok := javaParseInt(s)
					if !ok {
						return &ParseError{Index: i, Field: tf + ".weight", Line: wn.Line, Msg: fmt.Sprintf("weight %q is not an integer", s)}
					}
					if w <= 0 {
						r.findings = append(r.findings, Finding{Code: FindWeightDefaulted, Condition: i, Line: wn.Line,
							Message: fmt.Sprintf("%s.weight %d is not positive: Java uses 100", tf, w)})
						w = 100
					}
					tg.Weight = w
				}
				c.Targets = append(c.Targets, tg)
				thenTexts = append(thenTexts, fmt.Sprintf("%s (%d)", tg.Match, tg.Weight))
			}
		}
		if len(c.Targets) == 0 {
			r.findings = append(r.findings, Finding{Code: FindTrafficDisabled, Condition: i, Line: el.Line,
				Message: "no destination (to absent or empty): matching consumers get no provider (traffic disabled), whatever force says"})
		} else if len(c.Targets) > 1 {
			r.findings = append(r.findings, Finding{Code: FindFirstDestinationOdd, Condition: i, Line: el.Line,
				Message: "weighted pick: Java gives the first candidate destination one extra unit of weight (and the last one unit less); dubboroute uses exact weights"})
		}
		c.Text = parts[0] + " => " + strings.Join(thenTexts, " | ")
		r.Conditions = append(r.Conditions, c)
	}
	return nil
}

// stringMap reads a Map<String,String> field (v3.1 from) and returns the
// value of key. A null or absent map is empty (fastjson keeps the default).
func (r *Rule) stringMap(n *yaml.Node, field, key string) (string, bool, error) {
	if n == nil || isNull(n) {
		return "", false, nil
	}
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return "", false, &ParseError{Index: -1, Field: field, Line: n.Line, Msg: "must be a mapping"}
	}
	fs, order, err := mappingFields(n, field+".")
	if err != nil {
		return "", false, err
	}
	for _, k := range order {
		if k.name != key {
			r.unknown(field+"."+k.name, k.line)
		}
	}
	v := fs[key]
	if v == nil || isNull(v) {
		return "", false, nil
	}
	s, err := scalarJSONString(v)
	if err != nil {
		return "", false, &ParseError{Index: -1, Field: field + "." + key, Line: v.Line, Msg: err.Error()}
	}
	return s, true, nil
}

type keyLine struct {
	name string
	line int
}

// mappingFields indexes a mapping by its string keys (the last duplicate
// wins, as in SnakeYAML's default) and lists the keys in order.
func mappingFields(m *yaml.Node, prefix string) (map[string]*yaml.Node, []keyLine, error) {
	fs := map[string]*yaml.Node{}
	var order []keyLine
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := deref(m.Content[i])
		if k.Kind != yaml.ScalarNode {
			return nil, nil, &ParseError{Index: -1, Field: prefix + "?", Line: k.Line, Msg: "mapping keys must be scalars"}
		}
		if k.Value == "<<" && k.Style == 0 {
			return nil, nil, &ParseError{Index: -1, Field: prefix + "<<", Line: k.Line, Msg: "YAML merge keys are not supported"}
		}
		if _, dup := fs[k.Value]; !dup {
			order = append(order, keyLine{k.Value, k.Line})
		}
		fs[k.Value] = m.Content[i+1]
	}
	return fs, order, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func ruleErr(n *yaml.Node, field, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &ParseError{Index: -1, Field: field, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// YAML 1.1 scalar kinds as SnakeYAML's SafeConstructor resolves them.
type scalarKind uint8

const (
	kindString scalarKind = iota
	kindNull
	kindBool
	kindInt
	kindFloat
	kindTimestamp
	kindOther // mapping, sequence
)

var (
	reInt       = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat     = regexp.MustCompile(`^(?:[-+]?(?:\.[0-9]+|[0-9_]+(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reTimestamp = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

// resolve classifies a node as SnakeYAML (YAML 1.1) would.
func resolve(n *yaml.Node) scalarKind {
	n = deref(n)
	if n == nil {
		return kindNull
	}
	if n.Kind != yaml.ScalarNode {
		return kindOther
	}
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str", "tag:yaml.org,2002:str":
			return kindString
		case "!!null":
			return kindNull
		case "!!bool":
			return kindBool
		case "!!int":
			return kindInt
		case "!!float":
			return kindFloat
		case "!!timestamp":
			return kindTimestamp
		}
		return kindString
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return kindString
	}
	v := n.Value
	switch v {
	case "", "~", "null", "Null", "NULL":
		return kindNull
	case "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF":
		return kindBool
	}
	switch {
	case reInt.MatchString(v):
		return kindInt
	case reFloat.MatchString(v):
		return kindFloat
	case reTimestamp.MatchString(v):
		return kindTimestamp
	}
	return kindString
}

func isNull(n *yaml.Node) bool { return resolve(n) == kindNull }

func yamlBool(v string) bool {
	switch v {
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true
	}
	return false
}

// yamlInt is SnakeYAML's ConstructYamlInt, as a decimal string.
func yamlInt(v string) string {
	s := strings.ReplaceAll(v, "_", "")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// Decimal (no leading 0, which YAML 1.1 reads as octal): Java's
	// BigInteger/Long toString is the digits themselves. Rendering them
	// without math/big keeps a megabyte-long number (a hostile rule) linear
	// instead of quadratic.
	if s != "" && s[0] != '0' && !strings.Contains(s, ":") && javastr.Digits(s) {
		if neg {
			return "-" + s
		}
		return s
	}
	// Other bases of absurd length are left as written rather than spending
	// quadratic time normalising a number no rule field can hold.
	if len(s) > maxRadixDigits {
		return v
	}
	n := new(big.Int)
	switch {
	case s == "0":
	case strings.HasPrefix(s, "0b"):
		n.SetString(s[2:], 2)
	case strings.HasPrefix(s, "0x"):
		n.SetString(s[2:], 16)
	case strings.HasPrefix(s, "0"):
		n.SetString(s[1:], 8)
	case strings.Contains(s, ":"):
		for _, d := range strings.Split(s, ":") {
			x, _ := strconv.ParseInt(d, 10, 64)
			n.Mul(n, big.NewInt(60))
			n.Add(n, big.NewInt(x))
		}
	default:
		n.SetString(s, 10)
	}
	if neg {
		n.Neg(n)
	}
	return n.String()
}

// maxRadixDigits bounds the binary, octal, hex and sexagesimal integers
// yamlInt normalises.
const maxRadixDigits = 4096

// yamlFloat is SnakeYAML's ConstructYamlFloat rendered by Double.toString.
func yamlFloat(v string) string {
	s := strings.ReplaceAll(v, "_", "")
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return "-Infinity"
		}
		return "Infinity"
	case ".nan":
		return "NaN"
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
		return JavaDouble(f, 64)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		// Java's Double.valueOf would fail too; keep the text.
		return v
	}
	return JavaDouble(f, 64)
}

// javaToString is String.valueOf(Object) of the value SnakeYAML builds: a
// LinkedHashMap prints as {k=v, ...}, an ArrayList as [a, b].
func javaToString(n *yaml.Node) (string, error) {
	budget := maxRenderNodes
	return javaToStringDepth(n, 0, &budget)
}

// maxRenderNodes bounds the work of rendering one value: aliases can make a
// small document expand exponentially (SnakeYAML refuses documents with
// more than 50 collection aliases for the same reason).
const maxRenderNodes = 10000

func javaToStringDepth(n *yaml.Node, depth int, budget *int) (string, error) {
	*budget--
	if depth > 50 || *budget < 0 {
		return "", fmt.Errorf("value nested too deeply or too large (alias expansion)")
	}
	n = deref(n)
	switch resolve(n) {
	case kindNull:
		return "null", nil
	case kindBool:
		if yamlBool(n.Value) || (n.Style&yaml.TaggedStyle != 0 && strings.EqualFold(n.Value, "true")) {
			return "true", nil
		}
		return "false", nil
	case kindInt:
		return yamlInt(n.Value), nil
	case kindFloat:
		return yamlFloat(n.Value), nil
	case kindString, kindTimestamp:
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
			k, err := javaToStringDepth(n.Content[i], depth+1, budget)
			if err != nil {
				return "", err
			}
			v, err := javaToStringDepth(n.Content[i+1], depth+1, budget)
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
			v, err := javaToStringDepth(c, depth+1, budget)
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

// scalarJSONString is how the v3.1 JSON conversion turns a value into a
// map's String: scalars as their text, null as absent; nested structures
// are rejected (dubboroute does not emulate fastjson's rendering of them).
func scalarJSONString(n *yaml.Node) (string, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("must be a scalar")
	}
	return javaToString(n)
}

// castString is Java's (String) cast of a map value.
func castString(n *yaml.Node, field string) (string, error) {
	switch resolve(n) {
	case kindNull:
		return "", nil
	case kindString:
		return deref(n).Value, nil
	}
	return "", &ParseError{Index: -1, Field: field, Line: n.Line, Msg: fmt.Sprintf("%s must be a string (Java casts it; %q is not)", field, deref(n).Value)}
}

// javaParseBoolean is Boolean.parseBoolean(value.toString()).
func javaParseBoolean(n *yaml.Node) bool {
	s, err := javaToString(n)
	return err == nil && strings.EqualFold(s, "true")
}

// compareToIgnoreCase is Java's String.compareToIgnoreCase (per rune).
func compareToIgnoreCase(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ra, rb = unicode.ToUpper(ra), unicode.ToUpper(rb)
		if ra == rb {
			continue
		}
		ra, rb = unicode.ToLower(ra), unicode.ToLower(rb)
		if ra != rb {
			return int(ra) - int(rb)
		}
	}
	return len(a) - len(b)
}
