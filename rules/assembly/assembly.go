package assembly

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/router/script"
	"github.com/dubboroute/dubboroute/rules"
)

// AffinityParam is the reference parameter that puts Java's service
// affinity router (order 130) and dubboroute's provider-application one
// (135) in a consumer's chain (Java 3.3.6 compiles them in without
// registering them).
const AffinityParam = "dubboroute.affinity"

// Reference is one consumer reference's rule wiring.
type Reference struct {
	// Consumer is the consumer URL the routers see.
	Consumer *router.URL
	// App is the consumer application.
	App string
	// Affinity: the affinity routers are in the chain (AffinityParam).
	Affinity bool
}

// New is the wiring of the reference whose consumer URL is consumer; the
// affinity routers are in when its AffinityParam parameter is "true".
func New(consumer *router.URL) *Reference {
	return &Reference{Consumer: consumer, App: consumer.Application(), Affinity: consumer.Params.Value(AffinityParam) == "true"}
}

// ServiceKey is the reference's <interface>:<version>:<group>, as its
// service-scoped keys are named (Java's getColonSeparatedKey; version
// 0.0.0, which dubbo-go may fill in, counts as none).
func (r *Reference) ServiceKey() string {
	v := r.Consumer.Params.Value("version")
	if v == "0.0.0" {
		v = ""
	}
	return r.Consumer.Interface() + ":" + v + ":" + r.Consumer.Params.Value("group")
}

// ServiceConditionKey is <interface>:<version>:<group>.condition-router.
func (r *Reference) ServiceConditionKey() string { return r.ServiceKey() + rules.ConditionSuffix }

// ConfiguratorKeys are <consumer-app>.configurators and
// <interface>:<version>:<group>.configurators.
func (r *Reference) ConfiguratorKeys() (app, service string) {
	return r.App + rules.ConfiguratorsSuffix, r.ServiceKey() + rules.ConfiguratorsSuffix
}

// MeshKey is the mesh rule key of a provider application (Java's mesh
// router reads the key of every provider application among the invokers).
func MeshKey(app string) string { return app + rules.MeshSuffix }

// Sub is one key a reference subscribes and the chain slots its rule goes
// to (none: the key is read for what else it does — the gray balancer's
// rule, the log line of a script rule).
type Sub struct {
	Key   string
	Kind  rules.Kind
	Slots []cluster.Slot
	// OnlyIfSet: at the first read the rule goes to its slots only when the
	// key holds one (the provider-application condition key leaves the
	// consumer-application rule in the provider-app slot otherwise).
	OnlyIfSet bool
}

// ConsumerSubs are the keys the reference reads when its routers are
// built: the service condition key, the consumer-application condition key
// (which Java's ProviderAppStateRouter reads too: the provider-app slot
// takes whichever of the two changed last), and the service affinity key
// when the affinity routers are in.
func (r *Reference) ConsumerSubs() []Sub {
	subs := []Sub{
		{Key: r.ServiceConditionKey(), Kind: rules.KindCondition, Slots: []cluster.Slot{cluster.SlotService}},
		{Key: r.App + rules.ConditionSuffix, Kind: rules.KindCondition, Slots: []cluster.Slot{cluster.SlotConsumerApp, cluster.SlotProviderApp}},
	}
	if r.Affinity {
		subs = append(subs, Sub{Key: r.ServiceKey() + rules.AffinitySuffix, Kind: rules.KindAffinity, Slots: []cluster.Slot{cluster.SlotAffinity}})
	}
	return subs
}

// ProviderAppSubs are the keys of the provider application the routers
// follow (the first invoker's): its tag rule, its gray rule (the gray
// balancer's), its script rule (the script slot), its affinity rule (dubboroute's order 135, when the
// affinity routers are in and it is not the consumer's application) and
// its condition rule (when it is not the consumer's application).
func (r *Reference) ProviderAppSubs(app string) []Sub {
	subs := []Sub{
		{Key: app + rules.TagSuffix, Kind: rules.KindTag, Slots: []cluster.Slot{cluster.SlotTag}},
		{Key: app + rules.GraySuffix, Kind: rules.KindGray},
		{Key: app + rules.ScriptSuffix, Kind: rules.KindScript, Slots: []cluster.Slot{cluster.SlotScript}},
	}
	if app != r.App && r.Affinity {
		subs = append(subs, Sub{Key: app + rules.AffinitySuffix, Kind: rules.KindAffinity, Slots: []cluster.Slot{cluster.SlotAffinityApp}})
	}
	if app != r.App {
		subs = append(subs, Sub{Key: app + rules.ConditionSuffix, Kind: rules.KindCondition, Slots: []cluster.Slot{cluster.SlotProviderApp}, OnlyIfSet: true})
	}
	return subs
}

// Following is what the routers follow when a key is read: the provider
// application (the first invoker's), one they followed before (its keys
// were read then), the applications of the enabled providers (the mesh
// router's), and whether gray keys are read (explain: yes; route: gray
// rules steer the balancer, not eligibility).
type Following struct {
	ProviderApp, EarlierApp string
	MeshApps                map[string]bool
	GrayRead                bool
}

// Slots says which chain slots the rule of key k goes to, whether it is
// the gray balancer's rule, and, when no router of this reference reads
// it, why ("" with no slots: read, but by no slot — a script rule, a
// configurators key, or a key of an application followed before).
func (r *Reference) Slots(k rules.Key, f Following) (slots []cluster.Slot, isGray bool, unread string) {
	consumerApp, providerApp := r.App, f.ProviderApp
	switch k.Kind {
	case rules.KindCondition:
		if k.Service {
			if k.Key == r.ServiceConditionKey() {
				return []cluster.Slot{cluster.SlotService}, false, ""
			}
			return nil, false, "service key of another service (this consumer reads " + r.ServiceConditionKey() + ")"
		}
		if k.Prefix == consumerApp {
			// ProviderAppStateRouter subscribes the consumer-app key too.
			return []cluster.Slot{cluster.SlotConsumerApp, cluster.SlotProviderApp}, false, ""
		}
		if k.Prefix == providerApp {
			return []cluster.Slot{cluster.SlotProviderApp}, false, ""
		}
		if k.Prefix == f.EarlierApp {
			return nil, false, "" // read while the routers followed that application
		}
		return nil, false, "application is neither the consumer's (" + consumerApp + ") nor the first provider's (" + providerApp + ")"
	case rules.KindTag:
		if k.Prefix == providerApp {
			return []cluster.Slot{cluster.SlotTag}, false, ""
		}
		if k.Prefix == f.EarlierApp {
			return nil, false, "" // read while the tag router followed that application
		}
		return nil, false, "not the first provider's application (" + providerApp + ")"
	case rules.KindAffinity:
		want := r.ServiceKey() + rules.AffinitySuffix
		switch {
		case !r.Affinity:
			return nil, false, "the affinity router is not in this consumer's chain (Java 3.3.6 does not register it; enable it with \"affinity\": true / dubboroute.affinity=true)"
		case !k.Service && k.Prefix == providerApp && providerApp != consumerApp:
			// dubboroute's provider-application affinity router (order 135):
			// Java 3.3.6's reads .condition-router keys instead (a defect).
			return []cluster.Slot{cluster.SlotAffinityApp}, false, ""
		case k.Key != want:
			return nil, false, "neither this consumer's service affinity key (" + want + ") nor the first provider's application key"
		}
		return []cluster.Slot{cluster.SlotAffinity}, false, ""
	case rules.KindScript:
		// Java's AppScriptStateRouter reads the first provider's application
		// key; its rule runs in the script slot (router/script's dialects;
		// off as on Java 15+ without an engine, by setting).
		if k.Prefix == providerApp {
			return []cluster.Slot{cluster.SlotScript}, false, ""
		}
		if k.Prefix == f.EarlierApp {
			return nil, false, ""
		}
		return nil, false, "not the first provider's application (" + providerApp + ")"
	case rules.KindMesh:
		if f.MeshApps[k.Prefix] {
			return []cluster.Slot{cluster.SlotMesh}, false, ""
		}
		return nil, false, "no provider of application " + k.Prefix
	case rules.KindConfigurators:
		app, svc := r.ConfiguratorKeys()
		if k.Key == app || k.Key == svc {
			return nil, false, ""
		}
		return nil, false, "neither the consumer application's (" + consumerApp + ") nor this service's (" + r.ServiceKey() + ") configurators"
	case rules.KindGray:
		if k.Prefix == providerApp && f.GrayRead {
			return nil, true, ""
		}
		if k.Prefix == providerApp {
			return nil, false, "gray rules steer the gray load balancer, not routing (explain shows its pick)"
		}
		return nil, false, "not the first provider's application (" + providerApp + ")"
	}
	return nil, false, "unknown kind"
}

// Outcome is what one content of a key does.
type Outcome int

// The outcomes of Accept and AcceptConfigurators.
const (
	// OutcomeAccepted: the content is the key's rule from now on.
	OutcomeAccepted Outcome = iota
	// OutcomeDeleted: the key holds no rule from now on (blank content, a delete).
	OutcomeDeleted
	// OutcomeRejected: the content does not parse; the previous rule stays.
	OutcomeRejected
	// OutcomeIgnored: Java accepts the content but does not apply it (a
	// configVersion above v3.1, no conditions, valid: false, an incomplete
	// mesh rule, an invalid affinity rule): the previous rule stays, and
	// Java logs no error (a warning at most: ConditionRuleParser's "Ignore
	// this configuration" for a configVersion above v3.1).
	OutcomeIgnored
	// OutcomeKept: configurators content that yields no configurator; the list in
	// force stays (as in Java: delete the key to clear it).
	OutcomeKept
)

// Change is one content of a key as Accept judged it.
type Change struct {
	Outcome Outcome
	// Ref is the key's rule after the change (Accepted: the new rule with
	// Version "<format>#<rev>"; Deleted: the empty rule of the key).
	Ref cluster.RuleRef
	// Gray is the gray balancer's rule of a gray key (Accepted).
	Gray *gray.Rule
	// Rev is the key's count of accepted changes after this one.
	Rev int
	// Parsed is the parsed content (Accepted), for what else it carries
	// (a script rule's reason, a mesh rule's Cleared note).
	Parsed rules.Parsed
	// Err is the parse error (Rejected, Ignored).
	Err error
}

// Accept judges one content of key (of kind) whose accepted changes so
// far number rev: blank content deletes, content that fails to parse is
// rejected (or ignored as Java ignores it: rules.IsIgnored), other content
// is accepted as the key's rule with version <format>#<rev+1>.
func Accept(key string, kind rules.Kind, content string, rev int) Change {
	return AcceptAs(key, kind, content, rev, script.DialectAuto)
}

// AcceptAs is Accept with the dialect a script rule runs in (the
// consumer's setting: auto, Java's, dubbo-go's, or off as Java 15+ without
// a script engine); other kinds ignore it.
func AcceptAs(key string, kind rules.Kind, content string, rev int, d script.Dialect) Change {
	if strings.TrimSpace(content) == "" {
		return Change{Outcome: OutcomeDeleted, Ref: cluster.RuleRef{Key: key}, Rev: rev + 1}
	}
	parsed, err := parseSafe(kind, content, d)
	if err != nil {
		o := OutcomeRejected
		if rules.IsIgnored(err) {
			o = OutcomeIgnored
		}
		return Change{Outcome: o, Rev: rev, Parsed: parsed, Err: err}
	}
	rev++
	ref := cluster.RuleRef{Key: key, Condition: parsed.Condition, Tag: parsed.Tag, Affinity: parsed.Affinity,
		Version: parsed.Version + "#" + strconv.Itoa(rev)}
	if parsed.Script != nil {
		ref.Script = parsed.Script.Rule
	}
	if parsed.Mesh != nil {
		ref.Mesh = []mesh.AppRule{{App: strings.TrimSuffix(key, rules.MeshSuffix), Key: key, Version: ref.Version, Rule: parsed.Mesh}}
	}
	return Change{Outcome: OutcomeAccepted, Ref: ref, Gray: parsed.Gray, Rev: rev, Parsed: parsed}
}

// AcceptConfigurators is Java's AbstractConfiguratorListener for one
// event of a .configurators key whose accepted changes so far number rev:
// a delete clears the list; content that fails to parse (empty content on
// a change included) is rejected and the list in force stays; content
// that yields no configurator keeps it too (Kept); other content is the
// new list (Ref.Configurators, Version configurators#<rev+1>).
func AcceptConfigurators(key, content string, deleted bool, rev int) Change {
	if deleted {
		return Change{Outcome: OutcomeDeleted, Ref: cluster.RuleRef{Key: key}, Rev: rev + 1}
	}
	r, err := parseConfiguratorsSafe(key, content)
	if err != nil {
		return Change{Outcome: OutcomeRejected, Rev: rev, Err: err}
	}
	if r.Keep {
		return Change{Outcome: OutcomeKept, Rev: rev}
	}
	rev++
	return Change{Outcome: OutcomeAccepted, Rev: rev,
		Ref: cluster.RuleRef{Key: key, Version: "configurators#" + strconv.Itoa(rev), Configurators: r.List}}
}

// parseSafe is rules.Parse with a panic turned into a rejection: a rule
// that crashes its parser is refused and the rule in force stays.
func parseSafe(kind rules.Kind, content string, d script.Dialect) (rules.Parsed, error) {
	p, err := recovered(string(kind)+" rule", func() (rules.Parsed, error) {
		if kind == rules.KindScript {
			return rules.ParseScriptRule(content, d)
		}
		return rules.Parse(kind, content)
	})
	if err != nil && p.Kind == "" {
		p.Kind = kind
	}
	return p, err
}

// parseConfiguratorsSafe is configurator.Parse with a panic turned into a
// rejection.
func parseConfiguratorsSafe(key, content string) (*configurator.Rule, error) {
	return recovered("configurators rule "+key, func() (*configurator.Rule, error) { return configurator.Parse(key, content) })
}

// recovered runs a parser; a panic becomes an error naming what was parsed.
func recovered[T any](what string, parse func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("%s: the parser panicked: %v", what, r)
		}
	}()
	return parse()
}

// KeySource is one config-center key as a rule source judges its
// contents (the running consumer's rule store and Replay alike): the rule
// in force, kept across contents that fail, and the count of accepted
// changes that versions it.
type KeySource struct {
	Key  string
	Kind rules.Kind
	// Last is the judgement of the last content.
	Last Change
	rev  int
	rule Rule
}

// Rule is the key's rule in force.
func (s *KeySource) Rule() Rule { return s.rule }

// Read is the initial read of the key: nil (no such key) or an empty
// value leaves the rule as it is (routers skip an empty value unparsed).
// It reports whether the rule changed.
func (s *KeySource) Read(content *string) bool {
	if content == nil || *content == "" {
		return false
	}
	return s.judge(*content, false)
}

// Event is a change event of the key: nil is a delete. It reports whether
// the rule changed (false: the content was rejected, ignored or kept, and
// the rule in force stays).
func (s *KeySource) Event(content *string) bool {
	if content == nil {
		return s.judge("", true)
	}
	return s.judge(*content, false)
}

func (s *KeySource) judge(content string, deleted bool) bool {
	if s.Kind == rules.KindConfigurators {
		s.Last = AcceptConfigurators(s.Key, content, deleted, s.rev)
	} else {
		s.Last = Accept(s.Key, s.Kind, content, s.rev)
	}
	switch s.Last.Outcome {
	case OutcomeAccepted, OutcomeDeleted:
		s.rev = s.Last.Rev
		s.rule = Rule{Ref: s.Last.Ref, Gray: s.Last.Gray}
		return true
	}
	return false
}
