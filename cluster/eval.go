package cluster

import (
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
)

// Rules are the rules of the four slots, indexed by Slot.
type Rules = [numSlots]RuleRef

// NewSnapshot compiles a snapshot straight from parsed provider URLs, without
// dubbo-go invokers: the form the CLI (route, explain, lint) and tests
// evaluate. providers[i] is member i of the snapshot's Universe; the
// snapshot's Invokers are nil placeholders, so use RouteSet (not Route or
// Materialize) on it. The compiled routers are exactly those a Chain
// publishes for the same consumer, providers and rules. opts.Rand is used;
// the other options are ignored.
func NewSnapshot(consumer *router.URL, providers []*router.URL, rules Rules, opts Options) *Snapshot {
	s, _ := NewConfiguredSnapshot(consumer, providers, rules, nil, opts)
	return s
}

// NewConfiguredSnapshot is NewSnapshot after dynamic configuration, as a
// Chain with Input.Configurators builds it: the consumer URL configured,
// every provider's override URL computed, the disabled ones left out. It
// also returns, for each snapshot member, its index in providers.
func NewConfiguredSnapshot(consumer *router.URL, providers []*router.URL, rules Rules, cfg *configurator.Lists, opts Options) (*Snapshot, []int) {
	configured, applied := consumer, []configurator.Applied(nil)
	if !cfg.Empty() {
		configured, applied = cfg.ConfigureConsumer(consumer, localHost(consumer))
	}
	var urls, tagURLs []*router.URL
	var provs []*configurator.Provider
	var disabled []Disabled
	var mocks, index []int
	for i, p := range providers {
		e := &cfgState{}
		configureEntry(e, p, cfg, consumer, configured)
		if !e.enabled {
			disabled = append(disabled, Disabled{URL: p, Provider: e.prov})
			continue
		}
		if p != nil && p.Protocol == "mock" {
			mocks = append(mocks, len(urls))
		}
		index = append(index, i)
		urls = append(urls, p)
		tagURLs = append(tagURLs, e.tagURL)
		provs = append(provs, e.prov)
	}
	s := build(1, router.NewUniverse(len(urls)), make([]base.Invoker, len(urls)), urls, tagURLs, mocks, configured, configuredView{consumer, provs}, rules, nil, condition.CompileOptions{Rand: opts.Rand})
	s.setConfigured(cfg, consumer, applied, provs, disabled)
	return s, index
}

// ExtraRouter is a condition router outside the four config-center slots:
// a single condition or a registry router URL (the forms the route command's
// cases and the Java oracle accept). It runs right after the tag router, in
// the order given, as the oracle inserts it into Java's chain.
type ExtraRouter struct {
	// Name appears as the router name in traces (e.g. "condition[0]").
	Name string
	// Rule is the parsed condition rule.
	Rule *condition.Rule
}

// Evaluator routes calls over one snapshot plus extra condition routers.
// Without extra routers it is exactly Snapshot.RouteSet.
type Evaluator struct {
	snap   *Snapshot
	head   *Snapshot // snap without condition slots: mock + tag only
	extras []ExtraRouter
	comp   []*condition.Compiled
}

// NewEvaluator compiles the extra routers against s (with opts.Rand for
// their v3.1 picks).
func NewEvaluator(s *Snapshot, extras []ExtraRouter, opts Options) *Evaluator {
	e := &Evaluator{snap: s, extras: extras}
	if len(extras) == 0 {
		return e
	}
	head := *s
	head.service, head.providerApp, head.consumerApp, head.script = nil, nil, nil, nil
	e.head = &head
	for _, x := range extras {
		var c *condition.Compiled
		if x.Rule != nil {
			c = x.Rule.Compile(s.Universe, s.Consumer, s.URLs, condition.CompileOptions{Rand: opts.Rand})
		}
		e.comp = append(e.comp, c)
	}
	return e
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// RouteSet routes one call: mock, mesh and tag (Snapshot.RouteSet's own code),
// the extra routers, then the service, provider-app and consumer-app
// condition routers and the script router, with Java's fail-fast between
// routers. trace may be nil.
func (e *Evaluator) RouteSet(call *router.Call, trace *router.Trace) *router.Set {
	if len(e.extras) == 0 {
		return e.snap.RouteSet(call, trace, nil)
	}
	// mock, mesh and tag: the head snapshot's condition slots are empty, so
	// its RouteSet stops after the tag router in effect; its three "no-rule"
	// steps are dropped from the trace.
	var headTrace *router.Trace
	if trace != nil {
		headTrace = &router.Trace{}
	}
	out := e.head.RouteSet(call, headTrace, nil)
	if trace != nil {
		n := len(headTrace.Steps)
		if m := 2 + btoi(e.snap.mesh.Active()) + btoi(e.snap.affinity != nil) + btoi(e.snap.affinityApp != nil); n > m {
			n = m
		}
		trace.Steps = append(trace.Steps, headTrace.Steps[:n]...)
	}
	if out.Empty() {
		return out
	}
	routers := make([]evalRouter, 0, len(e.comp)+3)
	for i, c := range e.comp {
		routers = append(routers, evalRouter{name: e.extras[i].Name, version: versionOf(e.extras[i].Rule), c: c})
	}
	slots := [...]struct {
		slot Slot
		c    *condition.Compiled
	}{{SlotService, e.snap.service}, {SlotProviderApp, e.snap.providerApp}, {SlotConsumerApp, e.snap.consumerApp}}
	for _, sc := range slots {
		ref := &e.snap.Rules[sc.slot]
		routers = append(routers, evalRouter{name: sc.slot.String(), key: ref.Key, version: ref.Version, c: sc.c})
	}
	for _, r := range routers {
		in := out
		var step *router.Step
		if trace != nil {
			step = trace.Add(router.Step{Router: r.name, Key: r.key, Version: r.version, In: in.Len()})
		}
		out = routeCond(r.c, in, call, step)
		if step != nil {
			step.Out = out.Len()
		}
		if out.Empty() { // fail-fast, as in Snapshot.RouteSet
			return out
		}
	}
	// The script router (200) comes last, as in Snapshot.RouteSet.
	if e.snap.script != nil {
		in := out
		var step *router.Step
		if trace != nil {
			ref := &e.snap.Rules[SlotScript]
			step = trace.Add(router.Step{Router: RouterScript, Key: ref.Key, Version: ref.Version, In: in.Len()})
		}
		out = e.snap.script.Route(in, call, step)
		if step != nil {
			step.Out = out.Len()
		}
	}
	return out
}

type evalRouter struct {
	name, key, version string
	c                  *condition.Compiled
}

func versionOf(r *condition.Rule) string {
	if r == nil {
		return ""
	}
	return r.Version
}
