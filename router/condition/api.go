package condition

import (
	"errors"

	"github.com/dubboroute/dubboroute/router"
)

// Rule versions.
const (
	V30 = "v3.0"
	V31 = "v3.1"
)

// ErrUnsupportedVersion is wrapped by ParseRule when configVersion compares
// above v3.1 without starting with v3.1: Java logs a warning and ignores the
// rule, so the caller should keep the rule already in force.
var ErrUnsupportedVersion = errors.New("unsupported condition rule configVersion")

// ErrRuleInvalid is wrapped by ParseRule when the rule parses but Java would
// mark it invalid (empty or missing conditions, or valid: false): Java keeps
// the conditions already in force, so the caller should too.
var ErrRuleInvalid = errors.New("condition rule is invalid")

// Field is a YAML field Java ignores; lint reports it.
type Field struct {
	Name string
	Line int
}

// Rule is one parsed condition rule.
type Rule struct {
	Version       string
	Force         bool
	Enabled       bool
	Priority      int
	Runtime       bool
	Key           string
	Scope         string
	Conditions    []Condition
	UnknownFields []Field
}

// Condition is one element of a rule's conditions.
type Condition struct {
	Index int
	Text  string
	Line  int
}

// ParseRule parses a config-center condition rule.
func ParseRule(content string) (*Rule, error) { return nil, errors.New("not implemented") }

// ParseCondition parses one condition string.
func ParseCondition(text string, force, enabled bool) (*Rule, error) {
	return nil, errors.New("not implemented")
}

// ParseRouterURL parses a registry router URL.
func ParseRouterURL(raw string) (*Rule, error) { return nil, errors.New("not implemented") }

// CompileOptions tunes Compile.
type CompileOptions struct {
	// Rand draws v3.1 destinations; nil means router.DefaultRand.
	Rand router.Rand
}

// Compiled is a rule compiled against one consumer URL and provider list.
type Compiled struct{}

// Compile compiles r against providers (providers[i] is member i of u).
func (r *Rule) Compile(u *router.Universe, consumer *router.URL, providers []*router.URL, opt CompileOptions) *Compiled {
	return &Compiled{}
}

// Route filters in for one call.
func (c *Compiled) Route(in *router.Set, call *router.Call, step *router.Step) *router.Set { return in }

// Destination is one candidate v3.1 destination of a call.
type Destination struct {
	Index  int
	Weight int64
	Set    *router.Set
}

// Destinations returns the v3.1 candidate destinations for a call.
func (c *Compiled) Destinations(in *router.Set, call *router.Call) []Destination { return nil }
