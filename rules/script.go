package rules

import (
	"github.com/dubboroute/dubboroute/router/script"
)

// ScriptRule is what a <provider-app>.script-router value says, for lint,
// explain and the chain's script slot.
type ScriptRule struct {
	Type    string // engine name; Java's default "javascript"
	Enabled bool
	Script  bool // a script is present
	// Dialect is whose meaning the rule has (see script.Dialect).
	Dialect script.Dialect
	// Why is, for a rule that never routes, the reason (as shown by lint
	// and logged when the rule is accepted); empty for a rule that routes.
	Why string
	// Rule is the compiled rule (the chain's cluster.RuleRef.Script).
	Rule *script.Rule
}

// ParseScript reads a script rule in the default dialect (script.DialectAuto:
// Java's meaning, or dubbo-go's for a script written against dubbo-go's Go
// names). A rule Java ignores (not a YAML mapping, a field of the wrong
// type, an engine name Java does not have) or whose script does not compile
// (the error names the script's line and column) is an error: the rule in
// force stays.
func ParseScript(content string) (*ScriptRule, error) {
	return ParseScriptAs(content, script.DialectAuto)
}

// ParseScriptAs is ParseScript in dialect d: the glue passes
// script.DialectDubboGo for a rule read from dubbo-go's own config-center
// group or namespace, and script.DialectOff when the consumer is told to
// behave as Java 15+ without a script engine (no script routes).
func ParseScriptAs(content string, d script.Dialect) (*ScriptRule, error) {
	r, err := script.Parse(content, d)
	if err != nil {
		return nil, err
	}
	return &ScriptRule{Type: r.Type, Enabled: r.Enabled, Script: r.Script != "", Dialect: r.Dialect, Why: r.Why, Rule: r}, nil
}

// ParseScriptRule is Parse for a script rule in dialect d.
func ParseScriptRule(content string, d script.Dialect) (Parsed, error) {
	if err := CheckText(KindScript, content); err != nil {
		return Parsed{Kind: KindScript}, err
	}
	sr, err := ParseScriptAs(content, d)
	if err != nil {
		return Parsed{Kind: KindScript}, err
	}
	return Parsed{Kind: KindScript, Script: sr, Version: "1"}, nil
}
