package rules

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/internal/javayaml"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/affinity"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/router/tag"
)

// Config-center key suffixes: Java Dubbo / Dubbo Admin's, and dubboroute's
// for gray rules. The group is always "dubbo".
const (
	ConditionSuffix = ".condition-router"
	TagSuffix       = ".tag-router"
	GraySuffix      = ".gray-router"
	MeshSuffix      = mesh.KeySuffix // Java's MeshRuleManager: <provider-app>.MESHAPPRULE
	ScriptSuffix    = ".script-router"
	AffinitySuffix  = affinity.KeySuffix // <interface>:<version>:<group>.affinity-router (only read when enabled)
	// ConfiguratorsSuffix is dynamic configuration (override rules):
	// <app>.configurators and <interface>:<version>:<group>.configurators.
	ConfiguratorsSuffix = ".configurators"
)

// Kind is the kind of rule a key holds.
type Kind string

// Rule kinds.
const (
	KindCondition Kind = "condition"
	KindTag       Kind = "tag"
	KindGray      Kind = "gray"
	KindMesh      Kind = "mesh"
	// KindScript is Java's script rule (<provider-app>.script-router,
	// AppScriptStateRouter at position 200), run by package router/script
	// in Java's dialect (Java 8/11 with Nashorn) or dubbo-go's, or never
	// (as Java 15+ without a script engine) when so configured.
	KindScript Kind = "script"
	// KindAffinity is Java's service affinity rule; Java 3.3.6 does not
	// register the router, so consumers read it only when they enable it.
	KindAffinity Kind = "affinity"
	// KindConfigurators is dynamic configuration (package configurator).
	KindConfigurators Kind = "configurators"
)

// Key is what a config-center key says about its rule.
type Key struct {
	Key  string
	Kind Kind
	// Prefix is the key without its suffix: an application name, or
	// interface:version:group for a service condition rule.
	Prefix string
	// Service is true for a condition or configurators key naming a
	// service (it has a colon).
	Service bool
}

// ParseKey classifies a config-center key by its suffix.
func ParseKey(key string) (Key, error) {
	k := Key{Key: key}
	switch {
	case strings.HasSuffix(key, ConditionSuffix):
		k.Kind, k.Prefix = KindCondition, strings.TrimSuffix(key, ConditionSuffix)
		k.Service = strings.Contains(k.Prefix, ":")
	case strings.HasSuffix(key, TagSuffix):
		k.Kind, k.Prefix = KindTag, strings.TrimSuffix(key, TagSuffix)
	case strings.HasSuffix(key, GraySuffix):
		k.Kind, k.Prefix = KindGray, strings.TrimSuffix(key, GraySuffix)
	case strings.HasSuffix(key, MeshSuffix):
		k.Kind, k.Prefix = KindMesh, strings.TrimSuffix(key, MeshSuffix)
	case strings.HasSuffix(key, ScriptSuffix):
		k.Kind, k.Prefix = KindScript, strings.TrimSuffix(key, ScriptSuffix)
	case strings.HasSuffix(key, AffinitySuffix):
		k.Kind, k.Prefix = KindAffinity, strings.TrimSuffix(key, AffinitySuffix)
		k.Service = strings.Contains(k.Prefix, ":")
	case strings.HasSuffix(key, ConfiguratorsSuffix):
		k.Kind, k.Prefix = KindConfigurators, strings.TrimSuffix(key, ConfiguratorsSuffix)
		k.Service = strings.Contains(k.Prefix, ":")
	default:
		return k, fmt.Errorf("key %q: not a rule key (want <app>%s, <interface>:<version>:<group>%s, <app>%s, <app>%s, <app>%s, <app>%s, <interface>:<version>:<group>%s or <app|interface:version:group>%s)",
			key, ConditionSuffix, ConditionSuffix, TagSuffix, GraySuffix, MeshSuffix, ScriptSuffix, AffinitySuffix, ConfiguratorsSuffix)
	}
	if k.Prefix == "" {
		return k, fmt.Errorf("key %q: nothing before the %s suffix", key, strings.TrimPrefix(key, k.Prefix))
	}
	if strings.ContainsAny(key, "/\x00") || strings.TrimSpace(key) != key {
		return k, fmt.Errorf("key %q: a config-center key cannot contain '/', NUL or surrounding blanks", key)
	}
	return k, nil
}

// ServiceKey is the service condition rule key of a consumer (or provider)
// URL, Java's getColonSeparatedKey plus the suffix: always two colons, e.g.
// com.foo.Bar::.condition-router.
func ServiceKey(u *router.URL) string { return u.ServiceKey() + ConditionSuffix }

// Parsed is one rule's content parsed by its kind. Exactly one of
// Condition, Tag, Gray, Mesh, Script, Affinity and Configurators is set.
type Parsed struct {
	Kind      Kind
	Condition *condition.Rule
	Tag       *tag.Rule
	Gray      *gray.Rule
	// Mesh is a mesh rule; Mesh.Empty() means the value clears the
	// application's mesh routing (Java: no document of type standard).
	Mesh *mesh.Rule
	// Script is a script rule (Script.Rule goes to cluster.RuleRef.Script).
	Script *ScriptRule
	// Affinity is a service affinity rule.
	Affinity *affinity.Rule
	// Configurators is dynamic configuration (package configurator).
	Configurators *configurator.Rule
	// Version is the rule format's version as shown in traces: "3.0" or
	// "3.1" for condition rules, the configVersion of a tag rule (without
	// the leading v), "1" otherwise.
	Version string
}

// Parse parses content as a rule of the given kind. Blank content is not a
// rule (the config-center convention makes it a delete); callers check that
// first.
func Parse(kind Kind, content string) (Parsed, error) {
	if err := CheckText(kind, content); err != nil {
		return Parsed{Kind: kind}, err
	}
	p := Parsed{Kind: kind, Version: "1"}
	switch kind {
	case KindCondition, KindTag, KindGray, KindAffinity:
		// Java parses rules with SnakeYAML's default limits (the mesh parser
		// applies them itself, naming the document).
		if err := javayaml.Check(content); err != nil {
			return Parsed{Kind: kind}, fmt.Errorf("%s rule, %w", kind, err)
		}
	}
	var err error
	switch kind {
	case KindCondition:
		p.Condition, err = condition.ParseRule(content)
		if err == nil {
			p.Version = strings.TrimPrefix(p.Condition.Version, "v")
		}
	case KindTag:
		p.Tag, err = tag.ParseRule(content)
		if err == nil && p.Tag.ConfigVersion != "" {
			p.Version = strings.TrimPrefix(p.Tag.ConfigVersion, "v")
		}
	case KindGray:
		p.Gray, err = gray.ParseRule(content)
	case KindMesh:
		p.Mesh, err = mesh.ParseRule(content)
	case KindScript:
		p.Script, err = ParseScript(content)
	case KindAffinity:
		p.Affinity, err = affinity.ParseRule(content)
	case KindConfigurators:
		p.Configurators, err = configurator.Parse("", content)
		if err == nil && p.Configurators.ConfigVersion != "" {
			p.Version = strings.TrimPrefix(p.Configurators.ConfigVersion, "v")
		}
	default:
		err = fmt.Errorf("unknown rule kind %q", kind)
	}
	if err != nil {
		return Parsed{Kind: kind}, err
	}
	return p, nil
}

// CheckText rejects content that is not UTF-8 text, naming the line and
// byte of the first bad byte (the YAML parser reports it without a
// position). Parse runs it first.
func CheckText(kind Kind, content string) error {
	if utf8.ValidString(content) {
		return nil
	}
	for i, r := range content {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(content[i:]); size <= 1 {
				line := 1 + strings.Count(content[:i], "\n")
				return fmt.Errorf("%s rule, line %d: not UTF-8 text (byte 0x%02x at offset %d)", kind, line, content[i], i)
			}
		}
	}
	return fmt.Errorf("%s rule: not UTF-8 text", kind)
}

// IsIgnored reports whether a parse error is one Java Dubbo treats as "rule
// ignored, previous conditions kept" (a configVersion above v3.1, an empty
// conditions list, valid: false) rather than a broken rule. Either way the
// previous rule stays in force; the difference is only how it is reported.
func IsIgnored(err error) bool {
	return errors.Is(err, condition.ErrUnsupportedVersion) || errors.Is(err, condition.ErrRuleInvalid) || errors.Is(err, mesh.ErrIncomplete) || errors.Is(err, affinity.ErrInvalid)
}

// Deletes reports whether a state of key leaves it without a rule: the key
// does not exist (exists false), or it is a routing rule key (every kind
// but configurators) whose content is blank. A configurators key's blank
// content is content, which Java's configurator listener rejects (the list
// in force stays). This is the one place the decision is made:
// extension/source.NewRuleEvent builds every rule source's events with it,
// and a reader of rule contents from elsewhere (a file, the CLI's store)
// asks it too.
func Deletes(key string, exists bool, content string) bool {
	return !exists || (strings.TrimSpace(content) == "" && !strings.HasSuffix(key, ConfiguratorsSuffix))
}
