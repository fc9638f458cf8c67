package rules

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// ScriptRule is what a <provider-app>.script-router value says (Java's
// ScriptRule fields), kept for lint and explain. It never routes.
type ScriptRule struct {
	Type    string // engine name; Java's default "javascript"
	Enabled bool
	Script  bool // a script is present
	// Why is the reason the rule does not route, as shown by lint.
	Why string
}

// ParseScript reads a script rule as far as lint needs. Whatever the text,
// Java 3.3.6 on Java 17 routes every call through unchanged: a value that
// does not parse is logged, one that parses fails to build its script
// router ("unsupported route engine type"), so ParseScript never fails.
func ParseScript(content string) *ScriptRule {
	r := &ScriptRule{Type: "javascript", Enabled: true}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(content), &m); err != nil {
		r.Why = "the value is not a YAML mapping (Java logs the parse error); every call passes through"
		return r
	}
	if t, ok := m["type"].(string); ok && t != "" {
		r.Type = t
	}
	if e, ok := m["enabled"]; ok {
		r.Enabled = strings.EqualFold(strings.TrimSpace(toString(e)), "true")
	}
	if s, ok := m["script"]; ok && s != nil && toString(s) != "" {
		r.Script = true
	}
	switch {
	case !r.Script:
		r.Why = "no script: Java treats the rule as invalid; every call passes through"
	case !r.Enabled:
		r.Why = "enabled: false; every call passes through"
	default:
		r.Why = "Java Dubbo 3.3.6 on Java 15+ has no " + r.Type + " script engine: building the script router throws (\"unsupported route engine type: " + r.Type + "\", logged as error 2-11 on every update) and every call passes through; dubboroute does the same"
	}
	return r
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	b, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(b))
}
