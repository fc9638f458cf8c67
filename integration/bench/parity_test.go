package bench

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/random"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
)

// Naive oracles: what each router must keep, written as plain filters over
// the fleet's construction (providerURL, inGrayPool).

func tagKeeps(i int, c callSpec) bool {
	if c.gray {
		return inGrayPool(i) // the rule's gray pool (non-empty, so no fallback)
	}
	// No request tag: untagged providers not claimed by the rule's addresses.
	return (i/2)%2 == 0 && !inGrayPool(i)
}

func serviceKeeps(i int, c callSpec) bool {
	if c.method == "queryAll" {
		return i%2 == 0 // port 20880
	}
	return i%2 == 1 // port 20881
}

func appKeeps(i int) bool { return regions[(i/10)%3] != "shanghai" }

func want(n int, keep func(i int) bool) []string {
	var out []string
	for i := 0; i < n; i++ {
		if keep(i) {
			out = append(out, address(i))
		}
	}
	return out
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %d providers %s, want %d %s", what, len(got), brief(got), len(want), brief(want))
	}
}

func brief(s []string) string {
	if len(s) > 6 {
		return "[" + strings.Join(s[:6], " ") + " ...]"
	}
	return "[" + strings.Join(s, " ") + "]"
}

// TestSameProviders: for every benchmark invocation at every n, both sides
// of the chain, condition and tag benchmarks return exactly the providers
// the naive oracle says, in registry order, and none of the benchmarked
// results is empty.
func TestSameProviders(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			f := newFleet(t, n)
			ours := ourChain(t, f, tagRule(f.n), ourServiceRule)
			dg := dubbogoChain(t, f, tagRule(f.n), dubbogoServiceRule)
			oc := ourConditionRouter(t, f)
			dc := dubbogoServiceRouter(dubbogoServiceRule)
			ot := ourTagRouter(t, f)
			dt, gen := dubbogoTagRouter(t, f)
			calls := newCalls()
			for round := 0; round < 2; round++ { // the second round reuses the invocations, as the benchmarks do
				for k, c := range callSpecs {
					inv := calls[k]
					chainWant := want(n, func(i int) bool { return tagKeeps(i, c) && serviceKeeps(i, c) && appKeeps(i) })
					if len(chainWant) == 0 {
						t.Fatalf("%s: the oracle routes to nobody; the benchmark would measure an empty route", c.name)
					}
					sameList(t, "chain dubboroute "+c.name, addresses(ours.Route(fresh(inv), nil)), chainWant)
					sameList(t, "chain dubbogo "+c.name, addresses(dg.Route(f.consumer, fresh(inv))), chainWant)

					condWant := want(n, func(i int) bool { return serviceKeeps(i, c) })
					sameList(t, "condition dubboroute "+c.name, addresses(oc(fresh(inv))), condWant)
					sameList(t, "condition dubbogo "+c.name, addresses(dc.Route(f.invokers, f.consumer, fresh(inv))), condWant)

					tagWant := want(n, func(i int) bool { return tagKeeps(i, c) })
					sameList(t, "tag dubboroute "+c.name, addresses(ot(fresh(inv))), tagWant)
					sameList(t, "tag dubbogo "+c.name, addresses(dt.Route(f.invokers, f.consumer, withGeneration(fresh(inv), gen))), tagWant)
				}
			}
		})
	}
}

// TestDubbogoSideIsDubbogo: the dubbo-go side runs dubbo-go's own routers.
// Its registered router factories are dubbo-go's types, and it shows
// dubbo-go's documented behaviour where dubboroute differs: the seeds'
// address= rule matches no provider there (force: true, so no provider at
// all), while dubboroute routes it as Java does.
func TestDubbogoSideIsDubbogo(t *testing.T) {
	checkDubbogoFactories(t)
	f := newFleet(t, 100)
	seedForDubbogo := "configVersion: v3.0\n" + ourServiceRule
	calls := newCalls()
	queryAll := calls[0]

	dc := dubbogoServiceRouter(seedForDubbogo)
	if got := dc.Route(f.invokers, f.consumer, fresh(queryAll)); len(got) != 0 {
		t.Errorf("dubbo-go service router with address=*:20880 kept %d providers; dubbo-go 3.3.2 keeps none", len(got))
	}
	dg := dubbogoChain(t, f, tagRule(f.n), seedForDubbogo)
	if got := dg.Route(f.consumer, fresh(queryAll)); len(got) != 0 {
		t.Errorf("dubbo-go chain with address=*:20880 routed to %d providers; dubbo-go 3.3.2 routes to none", len(got))
	}
	ours := ourChain(t, f, tagRule(f.n), ourServiceRule)
	c := callSpecs[0]
	sameList(t, "dubboroute with address=*:20880", addresses(ours.Route(fresh(queryAll), nil)),
		want(f.n, func(i int) bool { return tagKeeps(i, c) && serviceKeeps(i, c) && appKeeps(i) }))

	// A rule without configVersion is rejected by dubbo-go (so it routes
	// everywhere); dubboroute reads it as v3.0, as Java does. (dubbo-go logs
	// the rejection as an error; expected here.)
	logger.SetLoggerLevel("fatal")
	dc = dubbogoServiceRouter(ourServiceRule)
	logger.SetLoggerLevel("error")
	if got := dc.Route(f.invokers, f.consumer, fresh(queryAll)); len(got) != f.n {
		t.Errorf("dubbo-go without configVersion kept %d of %d providers", len(got), f.n)
	}
}

// TestPickSides: both balancers pick from the list they are given; the gray
// balancer sends the gray user only to gray providers and the other user
// only to the others.
func TestPickSides(t *testing.T) {
	f := newFleet(t, 100)
	lb := grayBalancer(t)
	rnd := random.NewRandomLoadBalance()
	grayUser, normalUser := pickCalls()
	isGray := func(iv base.Invoker) bool { return iv.GetURL().GetParam("dubbo.tag", "") == "gray" }
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		g := lb.Select(f.invokers, freshPick(grayUser))
		nrm := lb.Select(f.invokers, freshPick(normalUser))
		if !isGray(g) || isGray(nrm) {
			t.Fatalf("gray user -> %s (gray %v), normal user -> %s (gray %v)", g.GetURL().Location, isGray(g), nrm.GetURL().Location, isGray(nrm))
		}
		r := rnd.Select(f.invokers, grayUser)
		if !slices.Contains(f.invokers, r) {
			t.Fatalf("dubbo-go random picked %v, not in the list", r)
		}
		seen[r.GetURL().Location] = true
	}
	if len(seen) < 20 {
		t.Errorf("dubbo-go random picked only %d distinct providers in 200 picks", len(seen))
	}
	if lb.Compiles() != 1 {
		t.Errorf("gray balancer compiled %d plans for one slice, want 1 (the benchmark must measure the cached path)", lb.Compiles())
	}
}

// TestRebuildRules: the 100-condition rules parse on both sides and route the
// same providers (so the rebuild benchmark compiles a rule that works).
func TestRebuildRules(t *testing.T) {
	f := newFleet(t, 1000)
	for v := 0; v < 2; v++ {
		ours := ourChain(t, f, tagRule(f.n), manyConditions(v))
		dg := dubbogoChain(t, f, tagRule(f.n), manyConditions(v))
		for _, k := range []int{0, 1, 37, 99} {
			inv := invocation.NewRPCInvocation(fmt.Sprintf("op%d", k), []any{}, nil)
			o, d := addresses(ours.Route(fresh(inv), nil)), addresses(dg.Route(f.consumer, fresh(inv)))
			if len(o) == 0 {
				t.Fatalf("version %d op%d routes to nobody", v, k)
			}
			sameList(t, fmt.Sprintf("version %d op%d", v, k), d, o)
		}
	}
	// A join and a rule change are visible in the next snapshot.
	c := ourChain(t, f, tagRule(f.n), manyConditions(0))
	c.SetInvokers(f.withJoined(t))
	if got := len(c.Snapshot().Invokers); got != f.n+1 {
		t.Errorf("after a join the snapshot has %d providers", got)
	}
	r := parseCond(t, serviceKey, manyConditions(1))
	c.SetRule(cluster.SlotService, r)
	if c.Snapshot().Rules[cluster.SlotService].Condition != r.Condition {
		t.Error("rule change not published")
	}
}
