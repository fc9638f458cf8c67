package affinity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
)

// KeySuffix is the config-center key suffix: <interface>:<version>:<group>.affinity-router.
const KeySuffix = ".affinity-router"

// ErrInvalid marks a rule Java parses but does not apply (configVersion not
// v3.1, no key, ratio outside [0, 100], valid: false): the rule in force
// stays, as in Java.
var ErrInvalid = errors.New("affinity rule not applied (Java keeps the affinity rule in force)")

// Rule is a parsed affinity rule.
type Rule struct {
	Key     string  // affinityAware.key: the URL parameter compared
	Ratio   float64 // affinityAware.ratio, percent
	Enabled bool
	Force   bool // parsed; Java's chain does not consult it
}

// ParseRule parses an affinity rule as Java's AffinityRuleParser and
// AffinityListenableStateRouter do. An error rejects the rule (the one in
// force stays); errors wrapping ErrInvalid are rules Java ignores silently.
func ParseRule(content string) (*Rule, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(content), &doc); err != nil {
		return nil, fmt.Errorf("affinity rule: bad YAML: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("affinity rule, line 1: the rule must be a YAML mapping")
	}
	root := doc.Content[0]
	field := func(m *yaml.Node, name string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == name {
				v := m.Content[i+1]
				for v.Kind == yaml.AliasNode && v.Alias != nil {
					v = v.Alias
				}
				return v
			}
		}
		return nil
	}
	isNull := func(n *yaml.Node) bool {
		return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
	}
	str := func(n *yaml.Node, name string) (string, bool, error) {
		if isNull(n) {
			return "", false, nil
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return "", false, fmt.Errorf("affinity rule, line %d: %s must be a string (Java's cast throws)", n.Line, name)
		}
		return n.Value, true, nil
	}
	toString := func(n *yaml.Node) string {
		if n.Kind == yaml.ScalarNode {
			return n.Value
		}
		return ""
	}
	r := &Rule{Enabled: true}
	valid := true
	// AbstractRouterRule.parseFromMap0: String casts and Boolean.parseBoolean.
	for _, name := range []string{"rawRule", "scope", "key"} {
		if _, _, err := str(field(root, name), name); err != nil {
			return nil, err
		}
	}
	cv, hasCV, err := str(field(root, "configVersion"), "configVersion")
	if err != nil {
		return nil, err
	}
	boolOf := func(name string, dst *bool) {
		if n := field(root, name); !isNull(n) {
			*dst = strings.EqualFold(toString(n), "true")
		}
	}
	boolOf("enabled", &r.Enabled)
	boolOf("force", &r.Force)
	boolOf("valid", &valid)
	if n := field(root, "priority"); !isNull(n) {
		if _, err := strconv.ParseInt(toString(n), 10, 32); err != nil {
			return nil, fmt.Errorf("affinity rule, line %d: priority %q is not an integer (Java throws)", n.Line, toString(n))
		}
	}
	aa := field(root, "affinityAware")
	if isNull(aa) {
		return nil, fmt.Errorf("affinity rule, line %d: affinityAware is missing (Java: NullPointerException)", root.Line)
	}
	if aa.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("affinity rule, line %d: affinityAware must be a mapping (Java's cast throws)", aa.Line)
	}
	key, _, err := str(field(aa, "key"), "affinityAware.key")
	if err != nil {
		return nil, err
	}
	r.Key = key
	r.Ratio = 0
	if n := field(aa, "ratio"); n != nil {
		s := "null"
		if !isNull(n) {
			s = toString(n)
		}
		f, ok := javaDouble(s)
		if !ok || n.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("affinity rule, line %d: ratio %q is not a number (Java: NumberFormatException)", n.Line, s)
		}
		r.Ratio = f
	}
	// AffinityRuleParser.parse: an empty key makes the rule invalid before
	// configVersion is read; a missing configVersion then throws.
	if key == "" {
		return nil, fmt.Errorf("affinity rule, line %d: affinityAware.key is empty: %w", aa.Line, ErrInvalid)
	}
	if !hasCV {
		return nil, fmt.Errorf("affinity rule, line %d: configVersion is missing (Java: NullPointerException)", root.Line)
	}
	if !strings.HasPrefix(cv, "v3.1") {
		return nil, fmt.Errorf("affinity rule: configVersion %q does not start with v3.1: %w", cv, ErrInvalid)
	}
	if r.Ratio > 100 || r.Ratio < 0 {
		return nil, fmt.Errorf("affinity rule, line %d: ratio %v outside 0..100: %w", aa.Line, r.Ratio, ErrInvalid)
	}
	if !valid {
		return nil, fmt.Errorf("affinity rule: valid: false: %w", ErrInvalid)
	}
	if r.Enabled && strings.TrimSpace(key) == "" {
		return nil, fmt.Errorf("affinity rule, line %d: affinityAware.key is blank (Java: Illegal affinity rule!)", aa.Line)
	}
	return r, nil
}

// javaDouble is Double.valueOf(String) for the plain forms YAML scalars take.
func javaDouble(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	switch t {
	case "NaN":
		return 0, false // accepted by Java, but NaN makes every ratio check fail: treat as not a number
	case "Infinity", "+Infinity", "-Infinity":
		return 0, false
	}
	t = strings.TrimRight(t, "dDfF")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || strings.ContainsAny(t, "_xXpPnN") {
		return 0, false
	}
	return f, true
}

// Compiled is the affinity router over one provider snapshot.
type Compiled struct {
	rule    *Rule
	u       *router.Universe
	match   *router.Set // providers whose value matches the consumer's
	hasKey  *router.Set // providers that have the key at all
	noValue bool        // the consumer has no value for the key

	// Counted counts the branch of every call routed without a step (the call
	// path), one cell per branch of route (see Compile).
	router.Counted
	ids [numBranches]int32
}

// The branches route returns, as counter cell indexes.
const (
	brAffine = iota
	brTooFew
	brNone
	brNoValue
	brDisabled
	brEmptyInput
	numBranches
)

var branchOf = [numBranches]router.Branch{BranchAffine, BranchTooFew, BranchNone, BranchNoValue, BranchDisabled, router.BranchEmptyInput}

// Compile computes the affinity set once per snapshot.
func Compile(r *Rule, u *router.Universe, consumer *router.URL, urls []*router.URL) *Compiled {
	return CompileFor(r, u, consumer, consumer, urls)
}

// CompileFor is Compile for a consumer whose URL the configurators changed:
// the affinity value is own's (Java reads it from the router's own URL,
// the original consumer URL), a $ref in it resolves against routed (the
// configured consumer URL the chain routes with), and the providers are
// matched on their own parameters (toOriginalMap: configurators never
// change them; the providers they disabled are not in urls).
func CompileFor(r *Rule, u *router.Universe, own, routed *router.URL, urls []*router.URL) *Compiled {
	if r == nil {
		return nil
	}
	consumer := routed
	c := &Compiled{rule: r, u: u}
	var l router.CounterLayout
	scope := "key " + r.Key
	for i, br := range branchOf {
		c.ids[i] = l.Add(scope, br)
	}
	c.SetCounters(l.Build(r))
	cv, ok := own.Params.Get(r.Key)
	c.noValue = !ok
	c.hasKey = u.Build(func(i int) bool {
		_, present := urls[i].Get(r.Key)
		return present
	})
	if c.noValue {
		c.match = u.None()
		return c
	}
	c.match = u.Build(func(i int) bool {
		v, present := urls[i].Get(r.Key)
		return condition.MatchThenValue(cv, consumer, v, present)
	})
	return c
}

// Branches of affinity routing.
const (
	BranchAffine   router.Branch = "affinity"          // the affine providers, enough of them
	BranchTooFew   router.Branch = "affinity-too-few"  // below the ratio: the input
	BranchNone     router.Branch = "affinity-none"     // no affine provider: the input (Java: none with ratio 0)
	BranchDisabled router.Branch = "disabled"          // enabled: false
	BranchNoValue  router.Branch = "affinity-no-value" // the consumer has no value for the key (Java throws and keeps the input)
)

// Route applies the rule: no allocation, constant time.
func (c *Compiled) Route(in *router.Set, step *router.Step) *router.Set {
	if c == nil {
		if step != nil {
			step.Branch = router.BranchNoRule
		}
		return in
	}
	b, out := c.route(in)
	// Only the call path (no step) counts (Took): explain and what-if do not.
	if c.Took(step, c.ids[b], branchOf[b]) {
		step.Detail = fmt.Sprintf("key %s, ratio %v%%", c.rule.Key, c.rule.Ratio)
	}
	return out
}

func (c *Compiled) route(in *router.Set) (int, *router.Set) {
	if !c.rule.Enabled {
		return brDisabled, in
	}
	if in.Empty() {
		return brEmptyInput, in
	}
	if c.noValue && !c.u.And(in, c.hasKey).Empty() {
		return brNoValue, in
	}
	res := c.u.And(in, c.match)
	if res.Empty() {
		return brNone, in
	}
	if float64(res.Len())/float64(in.Len()) >= c.rule.Ratio/100 {
		return brAffine, res
	}
	return brTooFew, in
}

// Cells are c's branch counters (router.Counted); nil for no rule.
func (c *Compiled) Cells() *router.Counted {
	if c == nil {
		return nil
	}
	return &c.Counted
}
