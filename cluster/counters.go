package cluster

import (
	"time"

	"github.com/dubboroute/dubboroute/router"
)

// BranchCounters are one router's per-branch call counters in a snapshot:
// what the rule in force (Key, Version) did with the calls routed through
// the chain since Since.
type BranchCounters struct {
	// Router is the router's name (RouterNames).
	Router string
	// Key and Version name the rule the counters belong to (empty for the
	// mock router and for static tag routing without a rule).
	Key, Version string
	// Since is when the counting started: when this rule version was first
	// compiled into a snapshot (a rebuild for a provider change keeps the
	// counters; a new version starts from zero).
	Since time.Time
	// Values are the cells in the router's layout order.
	Values []router.CounterValue
}

// adoptCounters makes the routers of s (not yet published) count into the
// cells of prev's routers compiled from the same rule versions, so
// counters survive a rebuild that did not change the rule.
func (s *Snapshot) adoptCounters(prev *Snapshot) {
	if prev == nil {
		return
	}
	s.mesh.AdoptCounters(prev.mesh)
	s.tag.Cells().AdoptCounters(prev.tag.Cells())
	s.affinity.Cells().AdoptCounters(prev.affinity.Cells())
	s.affinityApp.Cells().AdoptCounters(prev.affinityApp.Cells())
	s.service.Cells().AdoptCounters(prev.service.Cells())
	s.providerApp.Cells().AdoptCounters(prev.providerApp.Cells())
	s.consumerApp.Cells().AdoptCounters(prev.consumerApp.Cells())
}

// BranchCounters reads the per-branch counters of every router with a
// rule (and of the tag router, which always routes), in chain order (the
// mock router has none: its per-router outcomes say it all); a mesh router gives one entry per provider application with
// a rule. Counted is every route without a trace: Chain.Route and
// Chain.List (the call path), and Snapshot.Route or RouteSet called
// without a trace (a probe that routes without calling counts too);
// explain, what-if and the re-route that records a no-provider trace pass
// a trace and are not counted.
func (s *Snapshot) BranchCounters() []BranchCounters {
	var out []BranchCounters
	add := func(name string, ref *RuleRef, c *router.Counters) {
		if c == nil {
			return
		}
		b := BranchCounters{Router: name, Since: c.Since(), Values: c.Values()}
		if ref != nil {
			b.Key, b.Version = ref.Key, ref.Version
		}
		out = append(out, b)
	}
	for _, a := range s.mesh.Counters() {
		add(RouterMesh, &RuleRef{Key: a.Key, Version: a.Version}, a.Counters)
	}
	var tagRef *RuleRef
	if s.tag != nil && s.tag.Rule() != nil {
		tagRef = &s.Rules[SlotTag]
	}
	add(RouterTag, tagRef, s.tag.Cells().Counters())
	add(RouterAffinity, &s.Rules[SlotAffinity], s.affinity.Cells().Counters())
	add(RouterAffinityApp, &s.Rules[SlotAffinityApp], s.affinityApp.Cells().Counters())
	add(RouterService, &s.Rules[SlotService], s.service.Cells().Counters())
	add(RouterProviderApp, &s.Rules[SlotProviderApp], s.providerApp.Cells().Counters())
	add(RouterConsumerApp, &s.Rules[SlotConsumerApp], s.consumerApp.Cells().Counters())
	return out
}
