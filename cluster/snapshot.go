package cluster

import (
	"strings"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/affinity"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/router/script"
	"github.com/dubboroute/dubboroute/router/tag"
)

// MockAttachment is the invocation attachment Java's MockInvokersSelector
// reads: "true" selects only mock:// invokers, absent excludes them.
const MockAttachment = "invocation.need.mock"

// Snapshot is one immutable routing state: invokers, their URLs, the
// universe over them and every router compiled against them. It is safe for
// concurrent use.
type Snapshot struct {
	// Generation increases with every published snapshot of a chain.
	Generation uint64
	// Invokers are the providers; Invokers[i] is member i of Universe.
	Invokers []base.Invoker
	// URLs are the parsed provider URLs (URLs[i] belongs to Invokers[i]).
	URLs []*router.URL
	// Universe is the index space of this snapshot.
	Universe *router.Universe
	// Consumer is the consumer URL the rules were compiled against.
	Consumer *router.URL
	// Rules are the rules compiled into this snapshot.
	Rules [numSlots]RuleRef

	// Configurators are the dynamic configuration lists applied (nil:
	// none); Consumer is then the configured consumer URL and
	// OriginalConsumer the one before, ConsumerApplied the configurators
	// that changed it. Configured[i] is provider i after the configurators
	// (nil without lists); Disabled are the providers they (or the
	// providers' own enabled=false / disabled=true) kept out.
	Configurators    *configurator.Lists
	OriginalConsumer *router.URL
	ConsumerApplied  []configurator.Applied
	Configured       []*configurator.Provider
	Disabled         []Disabled

	mockOnly, noMock *router.Set

	mesh        *mesh.Compiled
	tag         *tag.Compiled
	affinity    *affinity.Compiled
	affinityApp *affinity.Compiled
	service     *condition.Compiled
	providerApp *condition.Compiled
	consumerApp *condition.Compiled
	script      *script.Compiled
}

// Disabled is a provider the directory keeps out before any router.
type Disabled struct {
	// URL is the provider's own URL.
	URL *router.URL
	// Provider is its configured view (nil when no configurator list
	// exists: it registered itself disabled).
	Provider *configurator.Provider
}

func (s *Snapshot) setConfigured(l *configurator.Lists, original *router.URL, applied []configurator.Applied, provs []*configurator.Provider, disabled []Disabled) {
	s.OriginalConsumer = original
	s.Disabled = disabled
	if l.Empty() {
		return
	}
	s.Configurators, s.ConsumerApplied, s.Configured = l, applied, provs
}

// configuredView is what the configurators made of a snapshot's input:
// the original consumer URL (consumer being the configured one) and each
// member's configured view (nil: no configurator list).
type configuredView struct {
	original *router.URL
	provs    []*configurator.Provider
}

// overrides are the members' override URLs (nil: none).
func (v configuredView) overrides() []*router.URL {
	if v.provs == nil {
		return nil
	}
	out := make([]*router.URL, len(v.provs))
	for i, p := range v.provs {
		if p != nil {
			out[i] = p.Override
		}
	}
	return out
}

// build compiles a snapshot over u (of len(invokers) members); mocks are
// the members whose URL has protocol mock. tagIndex and opt.Index, made for
// u and urls, carry what was read from the provider URLs for the previous
// snapshot (nil: read them all). consumer is the configured consumer URL;
// view says what the configurators did.
//
// Every router sees the providers the configurators left enabled and the
// URLs Java's routers read on a configured DubboServiceAddressURL: mesh
// subset labels and the tag router's static tag read the override URL
// first (getParameter), the condition then-parts and affinity read the
// provider's own parameters (toOriginalMap); the mesh router's source
// labels and the affinity value come from the router's own URL (the
// original consumer), the rest from the configured consumer URL.
func build(gen uint64, u *router.Universe, invokers []base.Invoker, urls, tagURLs []*router.URL, mocks []int, consumer *router.URL, view configuredView, rules [numSlots]RuleRef, tagIndex *tag.Index, opt condition.CompileOptions) *Snapshot {
	s := &Snapshot{
		Generation: gen,
		Invokers:   invokers,
		URLs:       urls,
		Universe:   u,
		Consumer:   consumer,
		Rules:      rules,
	}
	s.mockOnly = u.Of(mocks...)
	s.noMock = u.AndNot(u.All(), s.mockOnly)
	original := view.original
	if original == nil {
		original = consumer
	}
	var overrides []*router.URL
	if len(rules[SlotMesh].Mesh) > 0 || rules[SlotScript].Script != nil {
		overrides = view.overrides()
	}
	s.mesh = mesh.CompileConfigured(u, original, urls, overrides, rules[SlotMesh].Mesh, opt.Rand)
	s.affinity = affinity.CompileFor(rules[SlotAffinity].Affinity, u, original, consumer, urls)
	s.affinityApp = affinity.CompileFor(rules[SlotAffinityApp].Affinity, u, original, consumer, urls)
	s.tag = tag.CompileWith(rules[SlotTag].Tag, u, consumer, tagURLs, tagIndex)
	// The condition rules share one provider index, so a then-part key they
	// have in common (e.g. region) is read from the provider URLs once.
	if opt.Index == nil {
		opt.Index = condition.NewProviderIndex(u, urls)
	}
	compile := func(r *condition.Rule) *condition.Compiled {
		if r == nil {
			return nil
		}
		return r.Compile(u, consumer, urls, opt)
	}
	s.service = compile(rules[SlotService].Condition)
	s.providerApp = compile(rules[SlotProviderApp].Condition)
	s.consumerApp = compile(rules[SlotConsumerApp].Condition)
	// The script router (Java's order 200) sees the providers' URLs as Java's
	// DubboServiceAddressURL: the override URL first, the configured consumer
	// URL, the provider's own parameters.
	s.script = rules[SlotScript].Script.Compile(u, consumer, urls, script.CompileOptions{Overrides: overrides})
	// The full set materialises to the snapshot's own slice.
	u.All().StorePayload(invokers)
	u.None().StorePayload([]base.Invoker{})
	return s
}

// Outcome is what one router did with a call, as counted by an Observer
// (known without recording a trace, so counting costs nothing).
type Outcome uint8

// Outcomes.
const (
	OutcomeKept     Outcome = iota // output = input
	OutcomeFiltered                // output a non-empty strict subset
	OutcomeEmpty                   // no provider left (the chain stops)
)

// String names the outcome (a metrics label).
func (o Outcome) String() string {
	switch o {
	case OutcomeKept:
		return "kept"
	case OutcomeFiltered:
		return "filtered"
	default:
		return "empty"
	}
}

// Observer receives per-call and per-rebuild events (metrics). Methods are
// called on the hot path and must not block or allocate.
type Observer interface {
	// Routed reports router RouterNames[router]'s outcome for one call.
	Routed(router int, outcome Outcome)
	// Rebuilt reports a published snapshot.
	Rebuilt(providers int, seconds float64)
}

func outcome(in, out *router.Set) Outcome {
	switch {
	case out.Empty():
		return OutcomeEmpty
	case out == in:
		return OutcomeKept
	default:
		return OutcomeFiltered
	}
}

// CallOf is the router view of a dubbo-go invocation: the method name as Java
// sees it (generic $invoke resolved to the real method), the raw arguments,
// and the invocation itself as the attachment source. It does not allocate.
//
// The arguments stay raw on purpose: Java's condition router reads
// invocation.getArguments(), not RpcUtils.getArguments, so for a generic
// $invoke arguments[0] is the method name and arguments[2] the argument
// array (spec §5.3). Only the method name is resolved.
func CallOf(inv base.Invocation) router.Call {
	if inv == nil {
		return router.Call{}
	}
	args := inv.Arguments()
	m := inv.MethodName()
	return router.Call{Method: router.RealMethodName(m, args), Args: args, Attachments: inv, Generic: m == "$invoke" || m == "$invokeAsync"}
}

// RouteSet runs the chain over the snapshot for one call and returns the
// routed set. trace may be nil (no recording, no allocation): that is the
// call path, counted in the routers' branch counters (BranchCounters) and
// reported to obs. A traced route explains a call and counts nothing.
func (s *Snapshot) RouteSet(call *router.Call, trace *router.Trace, obs Observer) *router.Set {
	if trace != nil {
		// A traced route explains a call (explain, what-if, the no-provider
		// re-route); it is not one, so nothing counts it, as the routers
		// count only when they record no step.
		obs = nil
	}
	in := s.Universe.All()
	// mock (-100)
	out := in
	var mockBranch router.Branch
	if v, ok := call.Attachment(MockAttachment); !ok {
		out = s.noMock
		mockBranch = router.BranchNoMock
	} else if strings.EqualFold(v, "true") {
		out = s.mockOnly
		mockBranch = router.BranchMockOnly
	} else {
		mockBranch = router.BranchNotApplicable
	}
	if trace != nil {
		trace.Add(router.Step{Router: RouterMock, In: in.Len(), Out: out.Len(), Branch: mockBranch})
	}
	if obs != nil {
		obs.Routed(0, outcome(in, out))
	}
	if out.Empty() {
		return out
	}
	for slot := Slot(0); slot < numSlots; slot++ {
		in = out
		var step *router.Step
		// The mesh router shows in traces only while a mesh rule is in force.
		if trace != nil && (slot != SlotMesh || s.mesh.Active()) && (slot != SlotAffinity || s.affinity != nil) && (slot != SlotAffinityApp || s.affinityApp != nil) && (slot != SlotScript || s.script != nil) {
			ref := &s.Rules[slot]
			step = trace.Add(router.Step{Router: slot.String(), Key: ref.Key, Version: ref.Version, In: in.Len()})
			if slot == SlotMesh {
				step.Key = s.mesh.Keys()
			}
		}
		switch slot {
		case SlotMesh:
			out = s.mesh.Route(in, call, step)
		case SlotAffinity:
			out = s.affinity.Route(in, step)
		case SlotAffinityApp:
			out = s.affinityApp.Route(in, step)
		case SlotTag:
			out = s.tag.Route(in, call, step)
		case SlotService:
			out = routeCond(s.service, in, call, step)
		case SlotProviderApp:
			out = routeCond(s.providerApp, in, call, step)
		case SlotConsumerApp:
			out = routeCond(s.consumerApp, in, call, step)
		case SlotScript:
			out = s.script.Route(in, call, step)
		}
		if step != nil {
			step.Out = out.Len()
		}
		if obs != nil {
			obs.Routed(int(slot)+1, outcome(in, out))
		}
		if out.Empty() { // Java's fail-fast (dubbo.router.should-fail-fast=true)
			return out
		}
	}
	return out
}

func routeCond(c *condition.Compiled, in *router.Set, call *router.Call, step *router.Step) *router.Set {
	if c == nil {
		if step != nil {
			step.Branch = router.BranchNoRule
		}
		return in
	}
	return c.Route(in, call, step)
}

// Materialize returns the invokers of a set of this snapshot in registry
// order. The slice is built once per set and cached on it; callers must not
// modify it.
func (s *Snapshot) Materialize(set *router.Set) []base.Invoker {
	if p, ok := set.Payload().([]base.Invoker); ok {
		return p
	}
	out := make([]base.Invoker, 0, set.Len())
	set.ForEach(func(i int) { out = append(out, s.Invokers[i]) })
	if set.Interned() {
		set.StorePayload(out)
	}
	return out
}

// Route routes one call and returns the routed invokers (possibly empty).
func (s *Snapshot) Route(inv base.Invocation, trace *router.Trace, obs Observer) []base.Invoker {
	call := CallOf(inv)
	return s.Materialize(s.RouteSet(&call, trace, obs))
}
