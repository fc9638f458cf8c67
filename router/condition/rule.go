package condition

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dubboroute/dubboroute/router"
)

// Rule versions, as reported in Rule.Version.
const (
	// V30 is the one-string-per-condition format (v2.7/v3.0 YAML, a single
	// condition, a registry router URL).
	V30 = "v3.0"
	// V31 is the multi-destination format (configVersion v3.1...).
	V31 = "v3.1"
)

// Where a rule came from, as reported in Rule.Source.
const (
	SourceYAML      = "yaml"
	SourceCondition = "condition"
	SourceURL       = "url"
)

// ErrUnsupportedVersion is wrapped by ParseRule when configVersion compares
// above "v3.1" (case-insensitively, as a string) without starting with
// "v3.1". Java logs a warning and ignores such a rule; the caller should keep
// the rule already in force and log.
var ErrUnsupportedVersion = errors.New("unsupported configVersion (above v3.1)")

// ErrDubboGoApplies wraps ErrUnsupportedVersion for a configVersion that
// dubbo-go v3.3.2 alone reads as a version of at least v3.1 and so applies
// as a v3.1 rule (e.g. the dubbo-go samples' "V3.3.2"): Java, and
// dubboroute with it, ignore the rule; a dubbo-go user loses it on import,
// so it is reported as such (lint, log, console, metric).
var ErrDubboGoApplies = fmt.Errorf("%w, which dubbo-go alone applies as a v3.1 rule", ErrUnsupportedVersion)

// ErrRuleInvalid is wrapped by ParseRule when the text parses but Java marks
// the rule invalid: a missing, non-list or empty conditions list, or
// "valid: false". Java then keeps the conditions already in force (only a
// delete clears them), so the caller should keep its previous rule.
var ErrRuleInvalid = errors.New("condition rule is invalid (no conditions)")

// Field is a YAML field that Java ignores. Rules that carry one are accepted;
// lint reports them.
type Field struct {
	// Name is the field path, e.g. "ratio" or "conditions[0].to[1].priority".
	Name string
	// Line is the 1-based YAML line.
	Line int
}

// Rule is one parsed condition rule: a v3.0 YAML rule, a v3.1 YAML rule, a
// single condition, or a registry router URL. It is immutable once parsed
// and can be compiled against any number of provider snapshots.
type Rule struct {
	// Version is V30 or V31.
	Version string
	// ConfigVersion is the configVersion field as written ("" when absent).
	ConfigVersion string
	// Source is SourceYAML, SourceCondition or SourceURL.
	Source string
	// Force: an empty then-result yields no provider instead of the input.
	Force bool
	// Enabled=false makes every condition pass its input through.
	Enabled bool
	// Priority, Runtime, Key, Scope and Dynamic are parsed (with Java's type
	// rules) but, as in Java 3.x, have no routing effect: the config-center
	// key decides where a rule applies and the chain decides the order.
	Priority int
	Runtime  bool
	Dynamic  bool
	Key      string
	Scope    string
	// Conditions in list order; each filters the output of the previous one.
	Conditions []Condition
	// UnknownFields are YAML fields Java ignores (lint warns about them).
	UnknownFields []Field

	findings []Finding
	// counters is the branch counter layout, made by the first Compile
	// (it depends on the rule alone) and shared by every compilation.
	counters atomic.Pointer[countTemplate]
}

// Condition is one element of a rule's conditions list.
type Condition struct {
	// Index is the 0-based position in the rule.
	Index int
	// Text is the condition as written. For v3.1 it is a rendering of the
	// element: "<from.match> => <to[0].match> (weight) | ...".
	Text string
	// Line is the 1-based YAML line of the element (0 when not from YAML).
	Line int
	// Parsed is false only for v3.0 conditions of a disabled rule: Java
	// never parses those, so a syntax error in them does not reject the rule
	// (lint still reports it).
	Parsed bool
	// When is the when-part; nil matches every call (absent, blank, "true").
	When *Part
	// Then is the v3.0 then-part; nil is a blacklist (blank or "false").
	Then *Part
	// Targets are the v3.1 destinations; none means "traffic disabled".
	Targets []Target
}

// Target is one v3.1 destination (one element of "to").
type Target struct {
	// Match is to[i].match as written.
	Match string
	// Then is the parsed match; nil selects every provider (blank, absent
	// or "false" — unlike v3.0, where that is a blacklist).
	Then *Part
	// Weight is the effective weight (values <= 0 become 100, as in Java).
	Weight int64
	// Line is the 1-based YAML line of the element.
	Line int
}

// Part is one parsed when- or then-part.
type Part struct {
	// Text is the part as tokenised (v3.0: after consumer./provider.
	// removal and trimming).
	Text string
	// Terms are the keys in first-appearance order; all must match.
	Terms []Term
}

// Term is one key of a part with its "=" (Match) and "!=" (Mismatch)
// patterns, duplicates removed (Java keeps them in HashSets).
type Term struct {
	Key      string
	Match    []string
	Mismatch []string
}

// ParseError is the error of a rejected rule. It names the condition (index
// and text), the YAML field and line when known, and the offset in the part.
type ParseError struct {
	// Index is the condition index, or -1 for rule-level errors.
	Index int
	// Condition is the condition text (empty for rule-level errors).
	Condition string
	// Field is the YAML field path, e.g. "priority" or "conditions[2]".
	Field string
	// Line is the 1-based YAML line (0 when unknown).
	Line int
	// Msg says what is wrong.
	Msg string
	// Err is the wrapped cause (a sentinel such as ErrUnsupportedVersion).
	Err error
}

// Error implements error.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("condition rule")
	if e.Line > 0 {
		fmt.Fprintf(&b, ", line %d", e.Line)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ", field %s", e.Field)
	}
	if e.Index >= 0 {
		fmt.Fprintf(&b, ", condition #%d %q", e.Index, e.Condition)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseCondition parses one condition string with the given force and
// enabled flags — what one registry router URL, or one element of a v3.0
// conditions list, carries. As in Java, a disabled condition is not parsed,
// so it is accepted whatever its text (lint reports a bad one).
func ParseCondition(text string, force, enabled bool) (*Rule, error) {
	r := &Rule{Version: V30, Source: SourceCondition, Force: force, Enabled: enabled, Runtime: true}
	c, err := parseV30Condition(0, text, 0, enabled, &r.findings)
	if err != nil {
		return nil, err
	}
	r.Conditions = []Condition{c}
	return r, nil
}

// ParseRouterURL parses a registry router URL, as Java 2.6/2.7 consumers
// read it from /dubbo/<interface>/routers:
//
//	condition://0.0.0.0/<iface>?category=routers&rule=<encoded>&force=..&enabled=..&priority=..
//	route://0.0.0.0/<iface>?category=routers&router=condition&rule=<encoded>&...
//
// raw is the URL as Java sees it after the registry decoded the node name
// once (so the rule parameter is still URL-encoded); a fully encoded node
// name ("condition%3A%2F%2F...") is decoded once first. The rule parameter
// is URL-decoded once ("+" and "%20" are spaces). force and enabled follow
// Java's URL.getParameter(key, default) (default false/true, "true" in any
// case), priority must be an integer (default 0).
func ParseRouterURL(raw string) (*Rule, error) {
	s := strings.TrimSpace(raw)
	if !strings.Contains(s, "://") && strings.Contains(strings.ToLower(s), "%3a%2f%2f") {
		d, err := url.QueryUnescape(s)
		if err != nil {
			return nil, urlErr("decode router url: %v", err)
		}
		s = d
	}
	u, err := router.ParseURL(s)
	if err != nil {
		return nil, urlErr("%v", err)
	}
	proto := u.Protocol
	if rt := u.Params.Value("router"); rt != "" {
		// Java replaces the protocol with the router parameter to pick the
		// router factory.
		proto = rt
	}
	if proto != "condition" {
		return nil, urlErr("router url %q: router type %q is not condition", raw, proto)
	}
	if c, ok := u.Params.Get("category"); ok && c != "routers" && u.Protocol != "route" {
		return nil, urlErr("router url %q: category %q is not routers", raw, c)
	}
	param := func(k string) (string, error) {
		v, ok := u.Params.Get(k)
		if !ok {
			return "", nil
		}
		d, err := url.QueryUnescape(v)
		if err != nil {
			return "", urlErr("router url %q: parameter %s: %v", raw, k, err)
		}
		return d, nil
	}
	boolParam := func(k string, def bool) (bool, error) {
		v, err := param(k)
		if err != nil || v == "" {
			return def, err
		}
		return strings.EqualFold(v, "true"), nil
	}
	force, err := boolParam("force", false)
	if err != nil {
		return nil, err
	}
	enabled, err := boolParam("enabled", true)
	if err != nil {
		return nil, err
	}
	runtime, err := boolParam("runtime", false)
	if err != nil {
		return nil, err
	}
	prio := 0
	if p, err := param("priority"); err != nil {
		return nil, err
	} else if p != "" {
		n, ok := javaParseInt(p)
		if !ok {
			return nil, urlErr("router url %q: priority %q is not an integer", raw, p)
		}
		prio = int(n)
	}
	text, err := param("rule")
	if err != nil {
		return nil, err
	}
	r := &Rule{Version: V30, Source: SourceURL, Force: force, Enabled: enabled, Runtime: runtime, Priority: prio, Key: u.Interface()}
	c, err := parseV30Condition(0, text, 0, enabled, &r.findings)
	if err != nil {
		return nil, err
	}
	r.Conditions = []Condition{c}
	return r, nil
}

func urlErr(format string, a ...any) error {
	return &ParseError{Index: -1, Msg: fmt.Sprintf(format, a...)}
}

// javaParseInt is Java's Integer.parseInt for ASCII input: an optional sign
// and decimal digits, within int32.
func javaParseInt(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	d := s
	if d[0] == '+' || d[0] == '-' {
		d = d[1:]
	}
	if d == "" {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return n, true
}
