package tag

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/javayaml"
	"github.com/dubboroute/dubboroute/router"
)

// Keys of the tag router: the provider's static tag parameter and the request
// attachments (Java CommonConstants.TAG_KEY and Constants.FORCE_USE_TAG).
const (
	TagKey      = "dubbo.tag"
	ForceTagKey = "dubbo.force.tag"
)

// Rule is a parsed dynamic tag rule (<provider-app>.tag-router). It is
// immutable after ParseRule and may be compiled against any number of
// provider snapshots.
type Rule struct {
	// ConfigVersion is configVersion as written; "match" is read only when it
	// starts with "v3.0" (case-sensitive, like Java).
	ConfigVersion string
	// Force is the rule-level force: a tag found in the rule whose addresses
	// are all absent yields no provider instead of falling through.
	Force bool
	// Enabled false means static routing only. Default true.
	Enabled bool
	// Valid is Java's "valid" key (default true); a rule without tags is
	// invalid too. An invalid rule means static routing only.
	Valid bool
	// Runtime is read and ignored, as in Java.
	Runtime bool
	// Key and Scope are informational.
	Key   string
	Scope string
	// Tags in the order written.
	Tags []Tag
	// UnknownFields are keys Java ignores; lint reports them.
	UnknownFields []UnknownField
	// Warnings are things Java accepts silently that are probably mistakes
	// (an addresses value that is not a list, a hostname that does not
	// resolve, match ignored because of configVersion, ...).
	Warnings []Warning

	// counters is the branch counter layout of a usable rule, made by the
	// first Compile (it depends on the rule alone) and shared by every
	// compilation.
	counters atomic.Pointer[countTemplate]
}

// Tag is one entry of tags.
type Tag struct {
	Name string
	// Addresses are the address patterns as written.
	Addresses []string
	// Match is read only for v3.0 rules; it is used only when Addresses is empty.
	Match []ParamMatch
	// MatchSet is true when a match list was read (an empty list matches every
	// provider, as in Java).
	MatchSet bool
	// Line is the YAML line of the tag entry.
	Line int

	patterns []router.AddressPattern
}

// ParamMatch is one condition of a tag's match: the provider's own URL
// parameter Key must satisfy Value.
type ParamMatch struct {
	Key string
	// Value nil never matches (Java: a ParamMatch without value is false).
	Value *StringMatch
	Line  int
}

// StringMatch is Java's StringMatch (router.StringMatch): the first field
// that is set decides, in the order Exact, Prefix, Regex, Wildcard, Empty,
// Noempty. Exact, Prefix, Regex and Wildcard fall through to the next set
// field when the parameter is absent. Regex is a full match (Java
// String.matches) evaluated with Go's RE2 as ^(?:re)$: RE2 has no
// backreferences, lookaround, possessive or atomic groups (such a regex is
// rejected at parse time), and its \s, \w, \b and case folding are
// ASCII/Unicode-simple where java.util.regex differs in corner cases.
type StringMatch = router.StringMatch

// UnknownField is a key the rule format does not define.
type UnknownField struct {
	Path string
	Line int
}

// Warning is a lint finding on a rule Java would accept.
type Warning struct {
	Line    int
	Message string
}

func (w Warning) String() string { return fmt.Sprintf("line %d: %s", w.Line, w.Message) }

// Usable reports whether the rule drives dynamic routing: valid, enabled and
// with at least one tag. Otherwise the router routes by static tags only.
func (r *Rule) Usable() bool {
	return r != nil && r.Valid && r.Enabled && len(r.Tags) > 0
}

// matchEnabled reports whether tags' match lists are read.
func (r *Rule) matchEnabled() bool { return strings.HasPrefix(r.ConfigVersion, "v3.0") }

// ParseRule parses a tag rule as Dubbo Admin writes it, resolving hostname
// address patterns once with router.DefaultResolve. A rule that Java would
// fail to load, or that holds a regex Go cannot compile or an address pattern
// that can never match, is rejected whole with an error naming the tag and
// the YAML line.
func ParseRule(content string) (*Rule, error) {
	return ParseRuleWith(content, router.DefaultResolve)
}

// ParseRuleWith is ParseRule with an injected hostname resolver (nil: no
// hostname resolves; such patterns match nothing and are warned about).
func ParseRuleWith(content string, resolve func(host string) ([]string, error)) (r *Rule, err error) {
	defer func() {
		// yaml.v3 recovers its own panics; this is the last line of defence
		// for the promise that no input takes the router down.
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("tag rule: internal error parsing rule: %v", p)
		}
	}()
	if strings.TrimSpace(content) == "" {
		return nil, errors.New("tag rule: empty content")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(content), &doc); err != nil {
		return nil, fmt.Errorf("tag rule: invalid YAML: %w", err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, errors.New("tag rule: empty document")
		}
		root = root.Content[0]
	}
	root = javayaml.Deref(root)
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("tag rule: line %d: the rule must be a YAML mapping, got %s", root.Line, javayaml.KindName(root))
	}
	r = &Rule{Enabled: true, Valid: true, Runtime: true}
	var tagsNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], javayaml.Deref(root.Content[i+1])
		switch k.Value {
		case "configVersion":
			r.ConfigVersion = scalarText(v)
		case "force":
			r.Force = javaBool(v)
		case "enabled":
			r.Enabled = javaBool(v)
		case "valid":
			r.Valid = javaBool(v)
		case "runtime":
			r.Runtime = javaBool(v)
		case "key":
			r.Key = scalarText(v)
		case "scope":
			r.Scope = scalarText(v)
		case "priority":
			// Read by Java's AbstractRouterRule for ordering; no effect on tags.
		case "tags":
			tagsNode = v
		default:
			r.UnknownFields = append(r.UnknownFields, UnknownField{Path: k.Value, Line: k.Line})
		}
	}
	if tagsNode != nil && !isNull(tagsNode) && tagsNode.Kind != yaml.SequenceNode {
		// Java's TagRouterRule reads tags only when it is a List: anything
		// else is a rule without tags (it replaces the rule in force).
		r.warn(tagsNode.Line, "tags is %s, not a list: Java ignores it, so the rule has no tags", javayaml.KindName(tagsNode))
		tagsNode = nil
	}
	if tagsNode != nil && !isNull(tagsNode) {
		for i, tn := range tagsNode.Content {
			t, err := r.parseTag(i, javayaml.Deref(tn), resolve)
			if err != nil {
				return nil, fmt.Errorf("tag rule: %w", err)
			}
			r.Tags = append(r.Tags, t)
		}
	}
	if len(r.Tags) == 0 {
		r.Valid = false
		r.warn(root.Line, "rule has no tags: it is invalid and routing uses static tags only")
	}
	return r, nil
}

func (r *Rule) warn(line int, format string, args ...any) {
	r.Warnings = append(r.Warnings, Warning{Line: line, Message: fmt.Sprintf(format, args...)})
}

func (r *Rule) parseTag(i int, n *yaml.Node, resolve func(string) ([]string, error)) (Tag, error) {
	where := fmt.Sprintf("tags[%d] (line %d)", i, n.Line)
	if n.Kind != yaml.MappingNode {
		return Tag{}, fmt.Errorf("%s: a tag must be a mapping with name/addresses/match, got %s", where, javayaml.KindName(n))
	}
	t := Tag{Line: n.Line}
	var matchNode *yaml.Node
	matchLine := n.Line
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], javayaml.Deref(n.Content[j+1])
		switch k.Value {
		case "name":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.ScalarNode || !isStringScalar(v) {
				return Tag{}, fmt.Errorf("%s: name must be a string (Java casts it to String), got %s", where, javayaml.KindName(v))
			}
			t.Name = v.Value
		case "addresses":
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				r.warn(v.Line, "tag %q: addresses is not a list; Java ignores it", t.Name)
				continue
			}
			t.Addresses = make([]string, 0, len(v.Content))
			for _, an := range v.Content {
				an = javayaml.Deref(an)
				if an.Kind != yaml.ScalarNode {
					return Tag{}, fmt.Errorf("%s: addresses element at line %d must be a scalar, got %s", where, an.Line, javayaml.KindName(an))
				}
				text := an.Value
				if isNull(an) {
					text = "null" // Java's String.valueOf(null)
				}
				t.Addresses = append(t.Addresses, text)
			}
		case "match":
			matchNode, matchLine = v, k.Line
		default:
			r.UnknownFields = append(r.UnknownFields, UnknownField{Path: fmt.Sprintf("tags[%d].%s", i, k.Value), Line: k.Line})
		}
	}
	if t.Name != "" {
		where = fmt.Sprintf("tag %q (tags[%d], line %d)", t.Name, i, n.Line)
	} else {
		r.warn(n.Line, "tags[%d] has no name: no request can select it, but its addresses still count as claimed", i)
	}
	if len(t.Addresses) > 0 {
		t.patterns = make([]router.AddressPattern, 0, len(t.Addresses))
	}
	for _, a := range t.Addresses {
		p, err := router.ParseAddressPatternWith(a, resolve)
		if err != nil {
			if !errors.Is(err, router.ErrHostUnresolved) {
				return Tag{}, fmt.Errorf("%s: %w", where, err)
			}
			r.warn(n.Line, "tag %q: %v", t.Name, err)
		}
		t.patterns = append(t.patterns, p)
	}
	if matchNode != nil && !isNull(matchNode) {
		if !r.matchEnabled() {
			r.warn(matchLine, "tag %q: match is ignored because configVersion %q does not start with v3.0", t.Name, r.ConfigVersion)
		} else {
			ms, err := r.parseMatch(i, t.Name, matchNode)
			if err != nil {
				return Tag{}, fmt.Errorf("%s: %w", where, err)
			}
			t.Match, t.MatchSet = ms, true
			if len(t.Addresses) > 0 {
				r.warn(matchLine, "tag %q: match is ignored because the tag has addresses", t.Name)
			} else if len(ms) == 0 {
				r.warn(matchLine, "tag %q: an empty match list claims every provider", t.Name)
			}
		}
	}
	if len(t.Addresses) == 0 && !t.MatchSet {
		if r.matchEnabled() {
			// Java 3.3's TagRouterRule.init runs the match of every tag
			// without addresses in a v3.0 rule and throws a
			// NullPointerException on a missing match; TagStateRouter.process
			// logs it and keeps the previous rule. Found by the differential
			// oracle (integration/interop).
			return Tag{}, fmt.Errorf("%s: a v3.0 tag needs addresses or match (Java rejects the whole rule: NullPointerException in TagRouterRule.init)", where)
		}
		r.warn(n.Line, "tag %q has neither addresses nor match: it is not part of the dynamic rule", t.Name)
	}
	return t, nil
}

func (r *Rule) parseMatch(i int, name string, n *yaml.Node) ([]ParamMatch, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("match must be a list, got %s at line %d", javayaml.KindName(n), n.Line)
	}
	ms := []ParamMatch{}
	for j, mn := range n.Content {
		mn = javayaml.Deref(mn)
		if mn.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("match[%d] (line %d) must be a mapping with key and value, got %s", j, mn.Line, javayaml.KindName(mn))
		}
		pm := ParamMatch{Line: mn.Line}
		keySet := false
		for k := 0; k+1 < len(mn.Content); k += 2 {
			kn, vn := mn.Content[k], javayaml.Deref(mn.Content[k+1])
			switch kn.Value {
			case "key":
				if !isNull(vn) {
					pm.Key, keySet = scalarText(vn), true
				}
			case "value":
				if isNull(vn) {
					continue
				}
				sm, err := r.parseStringMatch(fmt.Sprintf("tags[%d].match[%d].value", i, j), vn)
				if err != nil {
					return nil, fmt.Errorf("match[%d] (line %d): %w", j, mn.Line, err)
				}
				pm.Value = sm
			default:
				r.UnknownFields = append(r.UnknownFields, UnknownField{Path: fmt.Sprintf("tags[%d].match[%d].%s", i, j, kn.Value), Line: kn.Line})
			}
		}
		if !keySet {
			r.warn(mn.Line, "tag %q: match[%d] has no key: the parameter is always absent", name, j)
		}
		if pm.Value == nil {
			r.warn(mn.Line, "tag %q: match[%d] has no value: it never matches", name, j)
		}
		ms = append(ms, pm)
	}
	return ms, nil
}

func (r *Rule) parseStringMatch(path string, n *yaml.Node) (*StringMatch, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("value must be a mapping (exact/prefix/regex/wildcard/empty/noempty), got %s at line %d", javayaml.KindName(n), n.Line)
	}
	sm := &StringMatch{}
	for k := 0; k+1 < len(n.Content); k += 2 {
		kn, vn := n.Content[k], javayaml.Deref(n.Content[k+1])
		if isNull(vn) {
			continue
		}
		if vn.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("value.%s at line %d must be a scalar, got %s", kn.Value, vn.Line, javayaml.KindName(vn))
		}
		s := vn.Value
		switch kn.Value {
		case "exact":
			sm.Exact = &s
		case "prefix":
			sm.Prefix = &s
		case "regex":
			sm.Regex = &s
		case "wildcard":
			sm.Wildcard = &s
		case "empty":
			sm.Empty = &s
		case "noempty":
			sm.Noempty = &s
		default:
			r.UnknownFields = append(r.UnknownFields, UnknownField{Path: path + "." + kn.Value, Line: kn.Line})
		}
	}
	// Java evaluates regex only when exact and prefix are unset; compile it
	// exactly when it can be evaluated.
	if sm.Exact == nil && sm.Prefix == nil {
		if err := sm.CompileRegex(); err != nil {
			return nil, fmt.Errorf("regex %q does not compile (Go RE2 has no backreferences or lookaround): %w", *sm.Regex, err)
		}
	}
	return sm, nil
}

// Match reports whether a provider's own parameters satisfy the condition.
func (pm *ParamMatch) Match(params router.Params) bool {
	v, ok := params.Get(pm.Key)
	if pm.Key == "" {
		v, ok = "", false
	}
	if pm.Value == nil {
		return false
	}
	matched, _ := pm.Value.Match(v, ok) // a regex that could throw is rejected at parse time
	return matched
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// isStringScalar approximates SnakeYAML (YAML 1.1) typing: a plain scalar
// that resolves to a number, boolean or null is not a String in Java.
func isStringScalar(n *yaml.Node) bool {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return true
	}
	switch n.Tag {
	case "!!int", "!!float", "!!bool", "!!null":
		return false
	}
	_, isBool := yaml11Bool(n.Value)
	return !isBool
}

// yaml11Bool is SnakeYAML's boolean resolver (YAML 1.1).
func yaml11Bool(s string) (value, ok bool) {
	switch s {
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, true
	case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}

// javaBool is Boolean.parseBoolean(value.toString()) after SnakeYAML typed
// the value: a plain yes/on is Boolean.TRUE, a quoted "yes" is the string
// "yes" and parses as false.
func javaBool(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	if n.Style == 0 || n.Style == yaml.TaggedStyle {
		if v, ok := yaml11Bool(n.Value); ok {
			return v
		}
	}
	return strings.EqualFold(n.Value, "true")
}

func scalarText(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return ""
	}
	return n.Value
}
