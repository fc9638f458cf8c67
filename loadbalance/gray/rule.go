package gray

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/javayaml"
	"github.com/dubboroute/dubboroute/router"
)

// Fallback says what happens to a gray request when the gray pool is empty.
type Fallback string

// Fallback policies.
const (
	FallbackNormal Fallback = "normal" // use the normal pool (default, seed 002)
	FallbackFail   Fallback = "fail"   // no provider, with an error saying why
)

// Delegate names the balancer used inside the chosen pool.
type Delegate string

// Delegate balancers.
const (
	DelegateRandom      Delegate = "random"      // weighted random with Java warm-up
	DelegateRoundRobin  Delegate = "roundrobin"  // smooth weighted round robin
	DelegateLeastActive Delegate = "leastactive" // fewest active calls, weighted ties
	DelegateP2C         Delegate = "p2c"         // power of two choices on active calls
)

// MatchMode combines several conditions or provider matchers.
type MatchMode string

// Match modes.
const (
	MatchAnd MatchMode = "and"
	MatchOr  MatchMode = "or"
)

// Operator is a request-condition operator.
type Operator string

// Operators of request conditions. Every operator except blank is false when
// the source has no value (a missing attachment, an argument index past the
// end): "userId != 3" does not match a call without userId.
const (
	OpEqual      Operator = "="
	OpNotEqual   Operator = "!="
	OpIn         Operator = "in"
	OpNotIn      Operator = "notIn"
	OpRegex      Operator = "regex"    // whole-value match (anchored)
	OpWildcard   Operator = "wildcard" // '*' any run, '?' one byte
	OpContains   Operator = "contains"
	OpStartsWith Operator = "startsWith"
	OpEndsWith   Operator = "endsWith"
	OpRange      Operator = "range"      // "a~b", numeric, inclusive
	OpBlank      Operator = "blank"      // missing, empty or whitespace
	OpNotBlank   Operator = "notBlank"   // present and not whitespace
	OpTimeBefore Operator = "timeBefore" // now < value (RFC 3339); no source
	OpTimeAfter  Operator = "timeAfter"  // now > value (RFC 3339); no source
)

var operators = []Operator{OpEqual, OpNotEqual, OpIn, OpNotIn, OpRegex, OpWildcard, OpContains,
	OpStartsWith, OpEndsWith, OpRange, OpBlank, OpNotBlank, OpTimeBefore, OpTimeAfter}

// Rule is a parsed, validated gray rule: the YAML stored under
// <provider-app>.gray-router. It is immutable once returned by ParseRule and
// may be shared by any number of Plans.
type Rule struct {
	// Enabled false turns gray release off: every request is normal and gray
	// providers get no traffic (the safe rollback switch).
	Enabled bool
	// Fallback applies when a gray request finds no gray provider.
	Fallback Fallback
	// Delegate picks inside the chosen pool; empty means Options.Delegate.
	Delegate Delegate
	// GrayProviders says which providers are gray; nil means the Options
	// default (provider parameter status equals gray).
	GrayProviders *ProviderSelector
	// Requests are tried in order; the first whose conditions match decides
	// the percentage of gray. With no match the request is normal.
	Requests []RequestRule
	// DefaultUsers is true when the rule has no requests key at all: the
	// Options' user list (attachment userId in consumer parameter
	// grayUserids) still decides who is gray.
	DefaultUsers bool
}

// ProviderSelector decides which providers are gray.
type ProviderSelector struct {
	// MatchMode or (default): a provider is gray when any matcher matches;
	// and: when all do.
	MatchMode MatchMode
	// Match lists the matchers (at least one).
	Match []ProviderMatcher
}

// ProviderMatcher is one test on a provider. Exactly one of Param, Address
// and Tag is set.
type ProviderMatcher struct {
	// Param is a provider URL key, looked up with Java's toOriginalMap view
	// (so host, port, address and protocol work too).
	Param string
	// Kind is exact, prefix, regex or wildcard; Value is what Param is tested
	// against.
	Kind  string
	Value string
	// Address is an address pattern, as in tag rules.
	Address string
	// Tag matches providers whose dubbo.tag equals it.
	Tag string
	// Line is the matcher's YAML line.
	Line int

	re   *regexp.Regexp
	addr router.AddressPattern
}

// RequestRule is one entry of the ordered request rules.
type RequestRule struct {
	// Name labels the rule in explanations.
	Name string
	// MatchMode and (default): all conditions must hold; or: any.
	MatchMode MatchMode
	// Conditions; none means the rule matches every request.
	Conditions []Condition
	// Percent of matching requests that are gray (0..100, resolution 0.01).
	Percent float64
	// HashKey makes the percentage sticky: attachment:<key>, argument[N] or
	// method. Empty means a fresh random draw per request.
	HashKey string
	// Ramp, when set, replaces Percent with a value rising linearly in time.
	Ramp *Ramp
	// Line is the rule's YAML line.
	Line int

	hash valueRef
}

// Ramp raises the gray percentage linearly from From at Start to To at
// Start+Duration; before Start it is From, after the end it is To.
type Ramp struct {
	// Start is when the ramp begins.
	Start time.Time
	// From and To are percentages (0..100).
	From, To float64
	// Duration is how long the rise takes (> 0).
	Duration time.Duration
}

// Condition is one test on a call.
type Condition struct {
	// Source as written: attachment, argument[N], method or param (a
	// consumer URL parameter). Empty for timeBefore/timeAfter.
	Source string
	// Key is the attachment or parameter name (sources attachment, param).
	Key      string
	Operator Operator
	// Value as written; for in/notIn, Values holds the members.
	Value  string
	Values []string
	// Line is the condition's YAML line.
	Line int

	ref    valueRef
	re     *regexp.Regexp
	set    map[string]struct{}
	lo, hi float64
	at     time.Time
}

type sourceKind uint8

const (
	srcNone sourceKind = iota
	srcAttachment
	srcArgument
	srcMethod
	srcParam
)

// valueRef says where a per-call value comes from.
type valueRef struct {
	kind sourceKind
	key  string
	arg  int
}

func (r valueRef) String() string {
	switch r.kind {
	case srcAttachment:
		return "attachment:" + r.key
	case srcArgument:
		return "argument[" + strconv.Itoa(r.arg) + "]"
	case srcMethod:
		return "method"
	case srcParam:
		return "param:" + r.key
	}
	return ""
}

// maxRuleBytes bounds rule text; config-center rules are small.
const maxRuleBytes = 1 << 20

// ParseRule parses and validates a gray rule. Any error rejects the whole
// rule and names the field path and YAML line, e.g.
//
//	gray rule: line 9: requests[0].conditions[1].operator: unknown operator "like"
func ParseRule(content string) (*Rule, error) {
	if len(content) > maxRuleBytes {
		return nil, fmt.Errorf("gray rule: %d bytes, more than the %d allowed", len(content), maxRuleBytes)
	}
	if strings.TrimSpace(content) == "" {
		return nil, fmt.Errorf("gray rule: empty")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(content), &doc); err != nil {
		return nil, fmt.Errorf("gray rule: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("gray rule: empty")
	}
	root := deref(doc.Content[0])
	r := &Rule{Enabled: true, Fallback: FallbackNormal, DefaultUsers: true}
	err := fields(root, "rule", func(key string, k, v *yaml.Node) error {
		switch key {
		case "key", "name", "description", "version":
			// Informational (Dubbo Admin writes key and configVersion-like
			// fields); validated as strings only.
			_, err := scalar(v, key)
			return err
		case "enabled":
			b, err := boolean(v, key)
			r.Enabled = b
			return err
		case "fallback":
			s, err := scalar(v, key)
			if err != nil {
				return err
			}
			switch Fallback(s) {
			case FallbackNormal, FallbackFail:
				r.Fallback = Fallback(s)
				return nil
			}
			return errAt(v, key, "unknown fallback %q (want normal or fail)", s)
		case "delegate":
			s, err := scalar(v, key)
			if err != nil {
				return err
			}
			d, ok := parseDelegate(s)
			if !ok {
				return errAt(v, key, "unknown delegate %q (want random, roundrobin, leastactive or p2c)", s)
			}
			r.Delegate = d
			return nil
		case "grayProviders":
			sel, err := parseProviderSelector(v)
			r.GrayProviders = sel
			return err
		case "requests":
			r.DefaultUsers = false
			if v.Tag == "!!null" {
				return nil
			}
			rs, err := items(v, key, "request rules", parseRequestRule)
			r.Requests = rs
			return err
		}
		return errAt(k, key, "unknown field")
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func parseDelegate(s string) (Delegate, bool) {
	switch Delegate(s) {
	case DelegateRandom, DelegateRoundRobin, DelegateLeastActive, DelegateP2C:
		return Delegate(s), true
	}
	return "", false
}

func parseProviderSelector(n *yaml.Node) (*ProviderSelector, error) {
	sel := &ProviderSelector{MatchMode: MatchOr}
	seenMatch := false
	err := fields(n, "grayProviders", func(key string, k, v *yaml.Node) error {
		path := "grayProviders." + key
		switch key {
		case "matchMode":
			m, err := matchMode(v, path)
			sel.MatchMode = m
			return err
		case "match":
			seenMatch = true
			ms, err := items(v, path, "matchers", parseProviderMatcher)
			sel.Match = ms
			return err
		}
		return errAt(k, path, "unknown field")
	})
	if err != nil {
		return nil, err
	}
	if !seenMatch || len(sel.Match) == 0 {
		return nil, errAt(n, "grayProviders.match", "at least one matcher is required")
	}
	return sel, nil
}

func parseProviderMatcher(n *yaml.Node, path string) (ProviderMatcher, error) {
	pm := ProviderMatcher{Line: n.Line}
	kinds := 0
	err := fields(n, path, func(key string, k, v *yaml.Node) error {
		p := path + "." + key
		s, err := scalar(v, p)
		if err != nil {
			return err
		}
		switch key {
		case "param":
			pm.Param = s
		case "exact", "prefix", "regex", "wildcard":
			if pm.Kind != "" {
				return errAt(k, p, "only one of exact, prefix, regex, wildcard may be given (already %s)", pm.Kind)
			}
			pm.Kind, pm.Value = key, s
			if key == "regex" {
				re, err := regexp.Compile("^(?:" + s + ")$")
				if err != nil {
					return errAt(v, p, "bad regex %q: %v", s, err)
				}
				pm.re = re
			}
		case "address":
			// No resolver: a hostname would make parsing depend on DNS
			// (and on when the rule happened to be parsed), so gray rules
			// accept IP patterns only.
			ap, err := router.ParseAddressPatternWith(s, nil)
			if errors.Is(err, router.ErrHostUnresolved) {
				return errAt(v, p, "address pattern %q: hostnames are not supported, use an IP pattern", s)
			}
			if err != nil {
				return errAt(v, p, "bad address pattern: %v", err)
			}
			pm.Address, pm.addr = s, ap
			kinds++
		case "tag":
			if s == "" {
				return errAt(v, p, "empty tag")
			}
			pm.Tag = s
			kinds++
		default:
			return errAt(k, p, "unknown field")
		}
		return nil
	})
	if err != nil {
		return pm, err
	}
	if pm.Param != "" {
		kinds++
		if pm.Kind == "" {
			return pm, errAt(n, path, "param %q needs one of exact, prefix, regex, wildcard", pm.Param)
		}
	} else if pm.Kind != "" {
		return pm, errAt(n, path, "%s given without param", pm.Kind)
	}
	if kinds != 1 {
		return pm, errAt(n, path, "exactly one of param, address, tag is required")
	}
	return pm, nil
}

func parseRequestRule(n *yaml.Node, path string) (RequestRule, error) {
	rr := RequestRule{MatchMode: MatchAnd, Percent: 100, Line: n.Line}
	percentSet := false
	err := fields(n, path, func(key string, k, v *yaml.Node) error {
		p := path + "." + key
		switch key {
		case "name":
			s, err := scalar(v, p)
			rr.Name = s
			return err
		case "matchMode":
			m, err := matchMode(v, p)
			rr.MatchMode = m
			return err
		case "conditions":
			if v.Tag == "!!null" {
				return nil
			}
			cs, err := items(v, p, "conditions", parseCondition)
			rr.Conditions = cs
			return err
		case "percent":
			f, err := percent(v, p)
			rr.Percent, percentSet = f, true
			return err
		case "hashKey":
			s, err := scalar(v, p)
			if err != nil {
				return err
			}
			ref, ok := parseHashKey(s)
			if !ok {
				return errAt(v, p, "bad hash key %q (want attachment:<key>, argument[N] or method)", s)
			}
			rr.HashKey, rr.hash = s, ref
			return nil
		case "ramp":
			rp, err := parseRamp(v, p)
			rr.Ramp = rp
			return err
		}
		return errAt(k, p, "unknown field")
	})
	if err != nil {
		return rr, err
	}
	if rr.Ramp != nil && percentSet {
		return rr, errAt(n, path, "percent and ramp are exclusive")
	}
	return rr, nil
}

func parseRamp(n *yaml.Node, path string) (*Ramp, error) {
	rp := &Ramp{From: 0, To: 100}
	var seenStart, seenDur bool
	err := fields(n, path, func(key string, k, v *yaml.Node) error {
		p := path + "." + key
		switch key {
		case "start":
			s, err := scalar(v, p)
			if err != nil {
				return err
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return errAt(v, p, "bad time %q (want RFC 3339, e.g. 2025-06-01T08:00:00+08:00)", s)
			}
			rp.Start, seenStart = t, true
		case "from":
			f, err := percent(v, p)
			if err != nil {
				return err
			}
			rp.From = f
		case "to":
			f, err := percent(v, p)
			if err != nil {
				return err
			}
			rp.To = f
		case "duration":
			s, err := scalar(v, p)
			if err != nil {
				return err
			}
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return errAt(v, p, "bad duration %q (want a positive Go duration, e.g. 2h30m)", s)
			}
			rp.Duration, seenDur = d, true
		default:
			return errAt(k, p, "unknown field")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !seenStart || !seenDur {
		return nil, errAt(n, path, "start and duration are required")
	}
	return rp, nil
}

func parseHashKey(s string) (valueRef, bool) {
	switch {
	case s == "method":
		return valueRef{kind: srcMethod}, true
	case strings.HasPrefix(s, "attachment:") && len(s) > len("attachment:"):
		return valueRef{kind: srcAttachment, key: s[len("attachment:"):]}, true
	}
	if i, ok := argumentIndex(s); ok {
		return valueRef{kind: srcArgument, arg: i}, true
	}
	return valueRef{}, false
}

// argumentIndex parses "argument[N]".
func argumentIndex(s string) (int, bool) {
	if !strings.HasPrefix(s, "argument[") || !strings.HasSuffix(s, "]") {
		return 0, false
	}
	i, err := strconv.Atoi(s[len("argument[") : len(s)-1])
	if err != nil || i < 0 || i > 1<<16 {
		return 0, false
	}
	return i, true
}

func parseCondition(n *yaml.Node, path string) (Condition, error) {
	c := Condition{Line: n.Line}
	var valueNode, opNode *yaml.Node
	err := fields(n, path, func(key string, k, v *yaml.Node) error {
		p := path + "." + key
		switch key {
		case "source":
			s, err := scalar(v, p)
			c.Source = s
			return err
		case "key":
			s, err := scalar(v, p)
			c.Key = s
			return err
		case "operator":
			s, err := scalar(v, p)
			c.Operator, opNode = Operator(s), v
			return err
		case "value":
			valueNode = v
			return nil
		}
		return errAt(k, p, "unknown field")
	})
	if err != nil {
		return c, err
	}
	if opNode == nil {
		return c, errAt(n, path+".operator", "required")
	}
	known := false
	for _, o := range operators {
		known = known || o == c.Operator
	}
	if !known {
		return c, errAt(opNode, path+".operator", "unknown operator %q", string(c.Operator))
	}
	timeOp := c.Operator == OpTimeBefore || c.Operator == OpTimeAfter
	// Source.
	switch {
	case timeOp:
		if c.Source != "" || c.Key != "" {
			return c, errAt(n, path+".source", "%s compares the current time; source and key must be omitted", c.Operator)
		}
	case c.Source == "attachment" || c.Source == "param":
		if c.Key == "" {
			return c, errAt(n, path+".key", "required for source %s", c.Source)
		}
		c.ref = valueRef{kind: srcAttachment, key: c.Key}
		if c.Source == "param" {
			c.ref.kind = srcParam
		}
	case c.Source == "method":
		if c.Key != "" {
			return c, errAt(n, path+".key", "not allowed for source method")
		}
		c.ref = valueRef{kind: srcMethod}
	case c.Source == "":
		return c, errAt(n, path+".source", "required (attachment, argument[N], method or param)")
	default:
		i, ok := argumentIndex(c.Source)
		if !ok {
			return c, errAt(n, path+".source", "unknown source %q (want attachment, argument[N], method or param)", c.Source)
		}
		if c.Key != "" {
			return c, errAt(n, path+".key", "not allowed for source %s", c.Source)
		}
		c.ref = valueRef{kind: srcArgument, arg: i}
	}
	// Value.
	vpath := path + ".value"
	if c.Operator == OpBlank || c.Operator == OpNotBlank {
		if valueNode != nil {
			return c, errAt(valueNode, vpath, "%s takes no value", c.Operator)
		}
		return c, nil
	}
	if valueNode == nil {
		return c, errAt(n, vpath, "required for operator %s", c.Operator)
	}
	if c.Operator == OpIn || c.Operator == OpNotIn {
		switch valueNode.Kind {
		case yaml.SequenceNode:
			for i, item := range valueNode.Content {
				s, err := scalar(deref(item), fmt.Sprintf("%s[%d]", vpath, i))
				if err != nil {
					return c, err
				}
				c.Values = append(c.Values, s)
			}
		default:
			s, err := scalar(valueNode, vpath)
			if err != nil {
				return c, err
			}
			c.Value = s
			for _, part := range strings.Split(s, ",") {
				c.Values = append(c.Values, strings.TrimSpace(part))
			}
		}
		if len(c.Values) == 0 {
			return c, errAt(valueNode, vpath, "empty list")
		}
		c.set = make(map[string]struct{}, len(c.Values))
		for _, v := range c.Values {
			c.set[v] = struct{}{}
		}
		return c, nil
	}
	s, err := scalar(valueNode, vpath)
	if err != nil {
		return c, err
	}
	c.Value = s
	switch c.Operator {
	case OpRegex:
		re, err := regexp.Compile("^(?:" + s + ")$")
		if err != nil {
			return c, errAt(valueNode, vpath, "bad regex %q: %v", s, err)
		}
		c.re = re
	case OpRange:
		a, b, ok := strings.Cut(s, "~")
		lo, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		hi, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if !ok || err1 != nil || err2 != nil || math.IsNaN(lo) || math.IsNaN(hi) || lo > hi {
			return c, errAt(valueNode, vpath, "bad range %q (want a~b with numbers a <= b)", s)
		}
		c.lo, c.hi = lo, hi
	case OpTimeBefore, OpTimeAfter:
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return c, errAt(valueNode, vpath, "bad time %q (want RFC 3339, e.g. 2025-06-01T08:00:00+08:00)", s)
		}
		c.at = t
	}
	return c, nil
}

// --- YAML node helpers -----------------------------------------------------

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

func errAt(n *yaml.Node, path, format string, args ...any) error {
	return fmt.Errorf("gray rule: line %d: %s: %s", n.Line, path, fmt.Sprintf(format, args...))
}

// items parses the list at path item by item (the item at path[i]); what
// names the items when the value is not a list.
func items[T any](n *yaml.Node, path, what string, parse func(n *yaml.Node, path string) (T, error)) ([]T, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, errAt(n, path, "want a list of %s, got %s", what, javayaml.KindName(n))
	}
	var out []T
	for i, item := range n.Content {
		x, err := parse(deref(item), fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// fields walks a mapping, rejecting non-scalar and duplicate keys.
func fields(n *yaml.Node, path string, f func(key string, k, v *yaml.Node) error) error {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return errAt(n, path, "want a mapping, got %s", javayaml.KindName(n))
	}
	seen := make(map[string]bool, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return errAt(k, path, "keys must be scalars, got %s", javayaml.KindName(k))
		}
		if seen[k.Value] {
			return errAt(k, path+"."+k.Value, "duplicate field")
		}
		seen[k.Value] = true
		if err := f(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func scalar(n *yaml.Node, path string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", errAt(n, path, "want a scalar, got %s", javayaml.KindName(n))
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

func boolean(n *yaml.Node, path string) (bool, error) {
	s, err := scalar(n, path)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, errAt(n, path, "want true or false, got %q", s)
}

func percent(n *yaml.Node, path string) (float64, error) {
	s, err := scalar(n, path)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 100 {
		return 0, errAt(n, path, "want a percentage from 0 to 100, got %q", s)
	}
	return f, nil
}

func matchMode(n *yaml.Node, path string) (MatchMode, error) {
	s, err := scalar(n, path)
	if err != nil {
		return "", err
	}
	switch MatchMode(s) {
	case MatchAnd, MatchOr:
		return MatchMode(s), nil
	}
	return "", errAt(n, path, "unknown match mode %q (want and or or)", s)
}

// AttachmentKeys lists the attachments the rule's request rules read
// (conditions with source attachment, attachment hash keys), sorted and
// without duplicates. With DefaultUsers the user key is read too; it is
// not listed here because it is an Options setting.
func (r *Rule) AttachmentKeys() []string {
	if r == nil {
		return nil
	}
	seen := map[string]bool{}
	var keys []string
	add := func(ref valueRef) {
		if ref.kind == srcAttachment && ref.key != "" && !seen[ref.key] {
			seen[ref.key] = true
			keys = append(keys, ref.key)
		}
	}
	for i := range r.Requests {
		rq := &r.Requests[i]
		add(rq.hash)
		for j := range rq.Conditions {
			add(rq.Conditions[j].ref)
		}
	}
	sort.Strings(keys)
	return keys
}
