package console

import (
	"fmt"
	"sort"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/internal/outcome"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/rules"
)

// Query is a hypothetical call: the reference (Reference.ID), the method,
// its arguments (as strings, which is how condition rules compare them) and
// its attachments.
type Query struct {
	Ref         string
	Method      string
	Args        []string
	Attachments [][2]string
}

// WhatIf is the answer of GET api/whatif: how the live snapshot would route
// the call, router by router.
type WhatIf struct {
	Schema      string   `json:"schema"`
	Reference   string   `json:"reference"`
	Generation  uint64   `json:"generation"`
	Method      string   `json:"method"`
	Arguments   []string `json:"arguments"`
	Attachments []string `json:"attachments"`
	// Trace is the route of one call, as explain and NoProviderError record
	// it (a v3.1 weighted pick shows the destination drawn this time).
	Trace []router.Step `json:"trace"`
	// Eligible are the providers left after the chain (this draw).
	Eligible []string `json:"eligible"`
	// Outcomes are every result the weighted picks can give, each with its
	// exact probability (p, which is Java 3.3's: dubboroute draws as Java
	// does) and the picks on its path; a single outcome with no picks when
	// the call makes no weighted pick.
	Outcomes []outcome.Leaf `json:"outcomes"`
	// Gray is what the gray balancer would decide for the eligible
	// providers (absent when the reference does not use it or none is
	// eligible).
	Gray *outcome.GrayInfo `json:"gray,omitempty"`
	// Truncated is true when an outcome lists only the first
	// Options.MaxOutcomeAddresses addresses (then "+N more").
	Truncated bool `json:"truncated,omitempty"`
	// Error says why the query could not be answered.
	Error string `json:"error,omitempty"`
}

// whatIf answers a query against the live snapshot, listing at most
// maxAddrs addresses per outcome.
func whatIf(q Query, maxAddrs int) *WhatIf {
	w := &WhatIf{Schema: Schema, Reference: q.Ref, Method: q.Method, Arguments: []string{}, Attachments: []string{},
		Trace: []router.Step{}, Eligible: []string{}, Outcomes: []outcome.Leaf{}}
	w.Arguments = append(w.Arguments, q.Args...)
	for _, kv := range q.Attachments {
		w.Attachments = append(w.Attachments, kv[0]+"="+kv[1])
	}
	r, ok := findRef(q.Ref)
	if !ok {
		w.Error = fmt.Sprintf("no reference %q in this process", q.Ref)
		return w
	}
	if strings.TrimSpace(q.Method) == "" {
		w.Error = "method is required"
		return w
	}
	args := make([]any, len(q.Args))
	for i, a := range q.Args {
		args[i] = a
	}
	atts := make(map[string]any, len(q.Attachments))
	for _, kv := range q.Attachments {
		atts[kv[0]] = kv[1]
	}
	inv := invocation.NewRPCInvocation(q.Method, args, atts)
	s := r.b.Chain().Snapshot()
	w.Generation = s.Generation
	call := cluster.CallOf(inv)
	tr := &router.Trace{}
	set := s.RouteSet(&call, tr, nil)
	w.Trace = tr.Steps
	ids := func(set *router.Set) []string {
		out := []string{}
		set.ForEach(func(i int) { out = append(out, s.URLs[i].Address()) })
		return out
	}
	w.Eligible = ids(set)
	// Every outcome: the snapshot's rules and providers recompiled with a
	// scripted random source, routed by the same RouteSet.
	leaves, err := outcome.Enumerate(func(rnd router.Rand) func(*router.Trace) *router.Set {
		snap := cluster.NewSnapshot(s.Consumer, s.URLs, s.Rules, cluster.Options{Rand: rnd})
		return func(t *router.Trace) *router.Set { return snap.RouteSet(&call, t, nil) }
	}, func(set *router.Set) []string {
		// Up to 4,096 outcomes, each naming its providers: bounded.
		out := make([]string, 0, min(set.Len(), maxAddrs+1))
		n := 0
		set.ForEach(func(i int) {
			if n++; n <= maxAddrs {
				out = append(out, s.URLs[i].Address())
			}
		})
		if n > maxAddrs {
			w.Truncated = true
			out = append(out, fmt.Sprintf("+%d more", n-maxAddrs))
		}
		return out
	})
	if err != nil {
		w.Error = "outcomes: " + err.Error()
	}
	w.Outcomes = append(w.Outcomes, leaves...)
	if r.b.LoadBalance() == extension.GrayName && !set.Empty() {
		w.Gray = grayDecision(r.b, s.Materialize(set), inv)
	}
	return w
}

// grayDecision is what the gray balancer would do with the routed
// invokers: a plan compiled under the rules in force (outside the live
// balancer's cache, so its round-robin state is not advanced).
func grayDecision(b *extension.Binding, routed []base.Invoker, inv *invocation.RPCInvocation) *outcome.GrayInfo {
	app := b.ProviderApp()
	g := &outcome.GrayInfo{Key: app + rules.GraySuffix, Pools: map[string]int{}}
	if extension.GrayLoadBalance().Rule(app) == nil {
		g.Version = "defaults (no rule)"
	} else {
		for _, rs := range extension.RuleStates() {
			if rs.Key == g.Key {
				g.Version = rs.Version
			}
		}
	}
	plan := extension.GrayLoadBalance().Plan(routed)
	gp, np := plan.Pools()
	g.Pools["gray"], g.Pools["normal"] = gp, np
	if len(routed) == 1 {
		g.Decision = gray.Decision{Rule: -1, Bucket: -1, Draw: -1, Chosen: 0, Shortcut: true, Reason: "single provider: the balancer is not consulted",
			GrayPool: gp, NormalPool: np, Delegate: plan.Delegate()}
		g.Picked = addressOf(routed[0])
		return g
	}
	call := router.Call{Method: inv.ActualMethodName(), Args: inv.Arguments(), Attachments: inv}
	isGray := plan.Classify(&call, &g.Decision)
	i, err := plan.PickClass(isGray, &call, &g.Decision)
	if err != nil {
		g.Error = err.Error()
	} else if i >= 0 && i < len(routed) {
		g.Picked = addressOf(routed[i])
	}
	return g
}

func addressOf(ivk base.Invoker) string {
	if u := ivk.GetURL(); u != nil {
		return u.Location
	}
	return ""
}

// parseAttachments reads "key=value" lines (blank lines skipped).
func parseAttachments(lines []string) ([][2]string, error) {
	var out [][2]string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("attachment %q: want key=value", l)
		}
		out = append(out, [2]string{k, strings.TrimSpace(v)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}
