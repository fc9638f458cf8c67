package bench

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/random"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/loadbalance/gray/dubbogo"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
)

// Implementation names in benchmark names.
const (
	implOurs    = "impl=dubboroute"
	implDubbogo = "impl=dubbogo"
)

func name(impl string, n int) string { return fmt.Sprintf("%s/n=%d", impl, n) }

// routeLoop runs route over the benchmark invocations in turn and fails if
// a result is empty (every benchmark invocation routes to someone; see
// TestSameProviders).
func routeLoop(b *testing.B, calls []*invocation.RPCInvocation, route func(inv *invocation.RPCInvocation) []base.Invoker) {
	b.Helper()
	for _, inv := range calls { // warm up (dubboroute memoises set operations on first use)
		if len(route(inv)) == 0 {
			b.Fatalf("%s routes to nobody", inv.MethodName())
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(route(calls[i&3])) == 0 {
			b.Fatal("empty route")
		}
	}
}

// BenchmarkChainRoute is the whole router chain per call: tag rule with a
// gray pool, the seeds' service rule, the provider-application rule;
// queryAll and queryByName, without and with dubbo.tag=gray, in turn.
// dubboroute also reports B/snapshot, the live heap of one chain with these
// rules once the four invocations have been routed (invokers excluded).
func BenchmarkChainRoute(b *testing.B) {
	for _, n := range sizes {
		f := newFleet(b, n)
		b.Run(name(implOurs, n), func(b *testing.B) {
			calls := newCalls()
			bytes := heapAfter(func() any {
				c := ourChain(b, f, tagRule(f.n), ourServiceRule)
				for _, inv := range calls {
					c.Route(inv, nil)
				}
				return c
			})
			c := ourChain(b, f, tagRule(f.n), ourServiceRule)
			routeLoop(b, calls, func(inv *invocation.RPCInvocation) []base.Invoker { return c.Route(fresh(inv), nil) })
			b.StopTimer()
			b.ReportMetric(float64(bytes), "B/snapshot")
		})
		b.Run(name(implDubbogo, n), func(b *testing.B) {
			c := dubbogoChain(b, f, tagRule(f.n), dubbogoServiceRule)
			routeLoop(b, newCalls(), func(inv *invocation.RPCInvocation) []base.Invoker { return c.Route(f.consumer, fresh(inv)) })
		})
	}
}

// ourConditionRouter is dubboroute's condition router alone: the seeds'
// service rule compiled over the fleet's snapshot, its routed set
// materialised to invokers.
func ourConditionRouter(tb testing.TB, f *fleet) func(base.Invocation) []base.Invoker {
	s := cluster.New(f.ours, cluster.Options{Name: iface})
	s.SetInvokers(f.invokers)
	snap := s.Snapshot()
	comp := parseCond(tb, serviceKey, ourServiceRule).Condition.Compile(snap.Universe, snap.Consumer, snap.URLs, condition.CompileOptions{})
	all := snap.Universe.All()
	return func(inv base.Invocation) []base.Invoker {
		call := cluster.CallOf(inv)
		return snap.Materialize(comp.Route(all, &call, nil))
	}
}

// ourTagRouter is dubboroute's tag router alone, like ourConditionRouter.
func ourTagRouter(tb testing.TB, f *fleet) func(base.Invocation) []base.Invoker {
	s := cluster.New(f.ours, cluster.Options{Name: iface})
	s.SetInvokers(f.invokers)
	snap := s.Snapshot()
	comp := tag.Compile(parseTag(tb, tagRule(f.n)).Tag, snap.Universe, snap.Consumer, snap.URLs)
	all := snap.Universe.All()
	return func(inv base.Invocation) []base.Invoker {
		call := cluster.CallOf(inv)
		return snap.Materialize(comp.Route(all, &call, nil))
	}
}

// BenchmarkConditionRoute is the service condition router alone (the seeds'
// rule; port= for dubbo-go), same invocations as BenchmarkChainRoute.
func BenchmarkConditionRoute(b *testing.B) {
	for _, n := range sizes {
		f := newFleet(b, n)
		b.Run(name(implOurs, n), func(b *testing.B) {
			route := ourConditionRouter(b, f)
			routeLoop(b, newCalls(), func(inv *invocation.RPCInvocation) []base.Invoker { return route(fresh(inv)) })
		})
		b.Run(name(implDubbogo, n), func(b *testing.B) {
			r := dubbogoServiceRouter(dubbogoServiceRule)
			routeLoop(b, newCalls(), func(inv *invocation.RPCInvocation) []base.Invoker { return r.Route(f.invokers, f.consumer, fresh(inv)) })
		})
	}
}

// BenchmarkTagRoute is the tag router alone (dynamic rule with the gray
// pool), same invocations; dubbo-go's router uses its chain bitmap cache.
func BenchmarkTagRoute(b *testing.B) {
	for _, n := range sizes {
		f := newFleet(b, n)
		b.Run(name(implOurs, n), func(b *testing.B) {
			route := ourTagRouter(b, f)
			routeLoop(b, newCalls(), func(inv *invocation.RPCInvocation) []base.Invoker { return route(fresh(inv)) })
		})
		b.Run(name(implDubbogo, n), func(b *testing.B) {
			r, gen := dubbogoTagRouter(b, f)
			routeLoop(b, newCalls(), func(inv *invocation.RPCInvocation) []base.Invoker {
				return r.Route(f.invokers, f.consumer, withGeneration(fresh(inv), gen))
			})
		})
	}
}

// grayRule: users 1-10 are gray; the providers tagged gray are the gray ones.
const grayRule = `key: demo-provider
enabled: true
fallback: normal
grayProviders:
  match:
    - tag: gray
requests:
  - name: users-1-to-10
    conditions:
      - source: attachment
        key: userId
        operator: range
        value: "1~10"
`

func grayBalancer(tb testing.TB) *dubbogo.LoadBalance {
	lb := dubbogo.New(gray.Options{})
	if err := lb.SetRuleText(providerApp, grayRule); err != nil {
		tb.Fatal(err)
	}
	return lb
}

// pickCalls are a gray user's and a normal user's queryAll.
func pickCalls() (grayUser, normalUser *invocation.RPCInvocation) {
	return invocation.NewRPCInvocation("queryAll", []any{}, map[string]any{"userId": "7"}),
		invocation.NewRPCInvocation("queryAll", []any{}, map[string]any{"userId": "4242"})
}

// freshPick drops the gray classification the adapter stored on the
// invocation (for failover retries), so every op classifies anew as a new
// call would.
func freshPick(inv *invocation.RPCInvocation) base.Invocation {
	delete(inv.Attributes(), dubbogo.RetryAttribute)
	return inv
}

// BenchmarkPick is one load-balancer pick over the fleet: the gray balancer
// (classify the user, weighted random inside the gray or normal pool) against
// dubbo-go's default random balancer, gray and normal users in turn.
//
// BenchmarkPick/lb=<name>/... are dubboroute's Java balancers beside
// dubbo-go's (benchmarkPickLB).
func BenchmarkPick(b *testing.B) {
	benchmarkPickLB(b)
	for _, n := range sizes {
		f := newFleet(b, n)
		g, nrm := pickCalls()
		calls := []*invocation.RPCInvocation{g, nrm}
		b.Run(name("impl=gray", n), func(b *testing.B) {
			lb := grayBalancer(b)
			lb.Select(f.invokers, freshPick(g))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if lb.Select(f.invokers, freshPick(calls[i&1])) == nil {
					b.Fatal("no pick")
				}
			}
		})
		b.Run(name("impl=dubbogo-random", n), func(b *testing.B) {
			lb := random.NewRandomLoadBalance()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if lb.Select(f.invokers, freshPick(calls[i&1])) == nil {
					b.Fatal("no pick")
				}
			}
		})
	}
}

// manyConditions is a service rule with 100 conditions (version v shifts
// every then-part, so v=0 and v=1 are different rules). dubbo-go needs the
// configVersion; dubboroute reads the same text.
func manyConditions(v int) string {
	var s strings.Builder
	s.WriteString("configVersion: v3.0\nscope: service\nforce: true\nruntime: true\nenabled: true\nkey: " + iface + "\nconditions:\n")
	for k := 0; k < 100; k++ {
		fmt.Fprintf(&s, "  - method=op%d => port=%d&region=%s\n", k, 20880+(k+v)%2, regions[(k+v)%2])
	}
	return s.String()
}

// heapAfter returns the live heap growth caused by build (after a GC on
// both sides), keeping what build returns alive while measuring.
func heapAfter(build func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// BenchmarkRebuild is the off-hot-path cost of a change with the 100-condition
// service rule in force, plus the application rule and a tag rule:
//
//   - change=join: one provider joins (or leaves again: ops alternate between
//     n and n+1 providers). dubboroute compiles a new snapshot; dubbo-go's
//     SetInvokers rebuilds its tag bitmap cache and has every router re-read
//     and re-parse its rule from the config center (its Notify).
//   - change=rule: the service rule changes (ops alternate between two
//     100-condition rules). dubboroute parses it and compiles a new snapshot
//     (every router, as for a join); dubbo-go's router parses it in its
//     config-center listener.
//
// tag=fixed is a tag rule whose gray pool lists the addresses among the first
// 100 providers (at most 20), so the rules do not grow with n; tag=20pct is
// the chain benchmark's rule, listing 20 % of the fleet's addresses, so the
// rule grows with n (only the join is measured: a rule change rebuilds the
// same snapshot).
//
// The dubboroute join also reports B/snapshot: the live heap of one chain
// with its snapshot (rules, parsed URLs, compiled sets, and the routed sets of
// the four chain benchmark invocations), excluding the invokers.
func BenchmarkRebuild(b *testing.B) {
	for _, n := range sizes {
		f := newFleet(b, n)
		lists := [2][]base.Invoker{f.invokers, f.withJoined(b)}
		texts := [2]string{manyConditions(0), manyConditions(1)}
		for _, tr := range []struct{ label, text string }{{"tag=fixed", tagRule(min(n, 100))}, {"tag=20pct", tagRule(n)}} {
			b.Run("change=join/"+tr.label+"/"+name(implOurs, n), func(b *testing.B) {
				calls := newCalls()
				bytes := heapAfter(func() any {
					c := ourChain(b, f, tr.text, texts[0])
					for _, inv := range calls {
						c.Route(inv, nil)
					}
					return c
				})
				c := ourChain(b, f, tr.text, texts[0])
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.SetInvokers(lists[(i+1)&1])
				}
				b.StopTimer()
				b.ReportMetric(float64(bytes), "B/snapshot") // after the loop: ResetTimer drops reported metrics
			})
			b.Run("change=join/"+tr.label+"/"+name(implDubbogo, n), func(b *testing.B) {
				c := dubbogoChain(b, f, tr.text, texts[0])
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.SetInvokers(lists[(i+1)&1])
				}
			})
			if tr.label != "tag=fixed" {
				continue
			}
			b.Run("change=rule/"+tr.label+"/"+name(implOurs, n), func(b *testing.B) {
				c := ourChain(b, f, tr.text, texts[0])
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					r, err := condition.ParseRule(texts[(i+1)&1])
					if err != nil {
						b.Fatal(err)
					}
					c.SetRule(cluster.SlotService, cluster.RuleRef{Key: serviceKey, Version: "3.0", Condition: r})
				}
			})
			b.Run("change=rule/"+tr.label+"/"+name(implDubbogo, n), func(b *testing.B) {
				dubbogoChain(b, f, tr.text, texts[0])
				store := dubbogoConfig()
				if l := store.Listeners(memory.DefaultGroup, serviceKey); l != 1 {
					b.Fatalf("%d listeners on the service rule, want dubbo-go's service router only", l)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					store.Put(memory.DefaultGroup, serviceKey, texts[(i+1)&1])
				}
			})
		}
	}
}
