package rules

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
)

// Config-center key suffixes: Java Dubbo / Dubbo Admin's, and dubboroute's
// for gray rules. The group is always "dubbo".
const (
	ConditionSuffix = ".condition-router"
	TagSuffix       = ".tag-router"
	GraySuffix      = ".gray-router"
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
	case strings.HasSuffix(key, ConfiguratorsSuffix):
		k.Kind, k.Prefix = KindConfigurators, strings.TrimSuffix(key, ConfiguratorsSuffix)
		k.Service = strings.Contains(k.Prefix, ":")
	default:
		return k, fmt.Errorf("key %q: not a rule key (want <app>%s, <interface>:<version>:<group>%s, <app>%s, <app>%s or <app|interface:version:group>%s)",
			key, ConditionSuffix, ConditionSuffix, TagSuffix, GraySuffix, ConfiguratorsSuffix)
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
// Condition, Tag, Gray and Configurators is set.
type Parsed struct {
	Kind          Kind
	Condition     *condition.Rule
	Tag           *tag.Rule
	Gray          *gray.Rule
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
	return errors.Is(err, condition.ErrUnsupportedVersion) || errors.Is(err, condition.ErrRuleInvalid)
}
