package condition

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/javayaml"
)

// dubboGoVersionRE is the configVersion form dubbo-go v3.3.2 parses (a
// "v" and dot-separated numbers); it compares it with v3.1 numerically.
var dubboGoVersionRE = regexp.MustCompile(`^[Vv][0-9]+(\.[0-9]+)*$`)

// ParseRule parses a config-center condition rule (the YAML Dubbo Admin
// stores at /dubbo/config/dubbo/<key>.condition-router) the way Java 3.3's
// ConditionRuleParser does: SnakeYAML (YAML 1.1 scalars) into a map, then
// configVersion selects the v3.1 multi-destination parser, an "above v3.1"
// rejection, or the v3.0 parser.
//
// Errors: any failure rejects the whole rule with a *ParseError naming the
// field, the YAML line and, for a bad condition, its index and text. Two
// wrapped sentinels mark rules Java accepts but does not apply, so the
// caller keeps the rule in force: ErrUnsupportedVersion (ErrDubboGoApplies
// when dubbo-go alone would apply the rule) and ErrRuleInvalid.
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
	root := javayaml.Deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = javayaml.Deref(root.Content[0])
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
	hasCV = hasCV && !javayaml.IsNull(fields["configVersion"])
	switch {
	case hasCV && strings.HasPrefix(strings.ToLower(cv), V31):
		r.Version = V31
	case hasCV && compareToIgnoreCase(cv, V31) > 0:
		n := fields["configVersion"]
		if dubboGoVersionRE.MatchString(cv) {
			return nil, &ParseError{Index: -1, Field: "configVersion", Line: n.Line,
				Msg: fmt.Sprintf("configVersion %q: only v3.1 and below are supported; Java ignores this rule and keeps the previous one, and so does dubboroute, but dubbo-go alone would apply it as a v3.1 rule (write configVersion: v3.1 to have it applied everywhere)", cv), Err: ErrDubboGoApplies}
		}
		return nil, &ParseError{Index: -1, Field: "configVersion", Line: n.Line,
			Msg: fmt.Sprintf("configVersion %q: only v3.1 and below are supported; Java ignores this rule", cv), Err: ErrUnsupportedVersion}
	default:
		r.Version = V30
	}

	boolField := func(name string, dst *bool) {
		if n := fields[name]; n != nil && !javayaml.IsNull(n) {
			*dst = javaParseBoolean(n)
		}
	}
	boolField("force", &r.Force)
	boolField("enabled", &r.Enabled)
	boolField("runtime", &r.Runtime)
	boolField("dynamic", &r.Dynamic)
	valid := true
	boolField("valid", &valid)
	if n := fields["priority"]; n != nil && !javayaml.IsNull(n) {
		s, _ := javayaml.ToString(n)
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
	r.unknownBut(order, "", "configVersion", "scope", "key", "rawRule", "force",
		"enabled", "runtime", "dynamic", "valid", "priority", "conditions")

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

// unknownBut notes as unknown each key of a mapping (order, from
// mappingFields) that is not one of known; prefix is the mapping's field
// path with its trailing dot ("" at the top).
func (r *Rule) unknownBut(order []keyLine, prefix string, known ...string) {
	for _, k := range order {
		if !slices.Contains(known, k.name) {
			r.unknown(prefix+k.name, k.line)
		}
	}
}

// entryFields reads el, an entry of condition i's YAML at field: a mapping
// (else a ParseError saying notMapping) whose keys other than known are
// noted as unknown.
func (r *Rule) entryFields(el *yaml.Node, i int, field, notMapping string, known ...string) (map[string]*yaml.Node, error) {
	if el.Kind != yaml.MappingNode {
		return nil, &ParseError{Index: i, Field: field, Line: el.Line, Msg: notMapping}
	}
	fs, order, err := mappingFields(el, field+".")
	if err != nil {
		return nil, err
	}
	r.unknownBut(order, field+".", known...)
	return fs, nil
}

func (r *Rule) parseV30Conditions(cn *yaml.Node) error {
	if cn == nil {
		return nil
	}
	cn = javayaml.Deref(cn)
	if cn.Kind != yaml.SequenceNode {
		// Java only reads a List; anything else leaves the rule without
		// conditions (invalid).
		return nil
	}
	for i, el := range cn.Content {
		text, err := javayaml.ToString(el)
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
	if cn == nil || javayaml.IsNull(cn) {
		return &ParseError{Index: -1, Field: "conditions", Msg: "a v3.1 rule needs a conditions list (Java fails on a missing one)"}
	}
	cn = javayaml.Deref(cn)
	if cn.Kind != yaml.SequenceNode {
		return &ParseError{Index: -1, Field: "conditions", Line: cn.Line, Msg: "conditions must be a list"}
	}
	for i, el := range cn.Content {
		el = javayaml.Deref(el)
		field := fmt.Sprintf("conditions[%d]", i)
		fs, err := r.entryFields(el, i, field, "a v3.1 condition must be a mapping with from/to", "from", "to")
		if err != nil {
			return err
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
		if to != nil && !javayaml.IsNull(to) {
			to = javayaml.Deref(to)
			if to.Kind != yaml.SequenceNode {
				return &ParseError{Index: i, Field: field + ".to", Line: to.Line, Msg: "to must be a list of {match, weight}"}
			}
			for j, te := range to.Content {
				te = javayaml.Deref(te)
				tf := fmt.Sprintf("%s.to[%d]", field, j)
				tfs, err := r.entryFields(te, i, tf, "a destination must be a mapping with match/weight", "match", "weight")
				if err != nil {
					return err
				}
				tg := Target{Line: te.Line, Weight: 100}
				if mn := tfs["match"]; mn != nil && !javayaml.IsNull(mn) {
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
				if wn := tfs["weight"]; wn != nil && !javayaml.IsNull(wn) {
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
				Message: drawMessage(c.Targets)})
		}
		c.Text = parts[0] + " => " + strings.Join(thenTexts, " | ")
		r.Conditions = append(r.Conditions, c)
	}
	return nil
}

// stringMap reads a Map<String,String> field (v3.1 from) and returns the
// value of key. A null or absent map is empty (fastjson keeps the default).
func (r *Rule) stringMap(n *yaml.Node, field, key string) (string, bool, error) {
	if n == nil || javayaml.IsNull(n) {
		return "", false, nil
	}
	n = javayaml.Deref(n)
	if n.Kind != yaml.MappingNode {
		return "", false, &ParseError{Index: -1, Field: field, Line: n.Line, Msg: "must be a mapping"}
	}
	fs, order, err := mappingFields(n, field+".")
	if err != nil {
		return "", false, err
	}
	r.unknownBut(order, field+".", key)
	v := fs[key]
	if v == nil || javayaml.IsNull(v) {
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
		k := javayaml.Deref(m.Content[i])
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

func ruleErr(n *yaml.Node, field, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &ParseError{Index: -1, Field: field, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// scalarJSONString is how the v3.1 JSON conversion turns a value into a
// map's String: scalars as their text, null as absent; nested structures
// are rejected (dubboroute does not emulate fastjson's rendering of them).
func scalarJSONString(n *yaml.Node) (string, error) {
	n = javayaml.Deref(n)
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("must be a scalar")
	}
	return javayaml.ToString(n)
}

// castString is Java's (String) cast of a map value.
func castString(n *yaml.Node, field string) (string, error) {
	if v, _, ok := javayaml.CastString(n); ok {
		return v, nil
	}
	return "", &ParseError{Index: -1, Field: field, Line: n.Line, Msg: fmt.Sprintf("%s must be a string (Java casts it; %q is not)", field, javayaml.Deref(n).Value)}
}

// javaParseBoolean is Boolean.parseBoolean(value.toString()).
func javaParseBoolean(n *yaml.Node) bool {
	s, err := javayaml.ToString(n)
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
