package bench

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	dgbase "dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/extension/balancers"
)

// lbPairs are dubboroute's balancers (Java's names) and the dubbo-go
// v3.3.2 balancer each replaces ("" : dubbo-go has none).
var lbPairs = []struct{ ours, theirs string }{
	{"random", "random"},
	{"roundrobin", "roundrobin"},
	{"leastactive", "leastactive"},
	{"consistenthash", "consistenthashing"},
	{"shortestresponse", ""},
	{"adaptive", "p2c"},
}

// benchLB runs one balancer's picks over the whole fleet (the routed
// slice a snapshot hands out: the same slice every call) and returns
// ns/op of the final run.
func benchLB(b *testing.B, lb loadbalance.LoadBalance, f *fleet, calls []*invocation.RPCInvocation) float64 {
	var nsop float64
	b.Helper()
	lb.Select(f.invokers, calls[0])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if lb.Select(f.invokers, calls[i&1]) == nil {
			b.Fatal("no pick")
		}
	}
	b.StopTimer()
	nsop = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	return nsop
}

// BenchmarkPickLB is one pick of each of dubboroute's balancers
// (extension/balancers, Java Dubbo 3.3's algorithms over plans built once
// per routed set) and of the dubbo-go v3.3.2 balancer it replaces, in the
// same run: BenchmarkPick/lb=<name>/n=<n>/impl=dubboroute|dubbogo. It
// prints dubbo-go's ns/op over dubboroute's per balancer and size, and
// dubboroute's ns/op at each size over its own at n=10.
func benchmarkPickLB(b *testing.B) {
	ours := balancers.New(balancers.Options{})
	nsop := map[string]float64{}
	calls := []*invocation.RPCInvocation{
		invocation.NewRPCInvocation("queryByName", []any{"book-1"}, nil),
		invocation.NewRPCInvocation("queryByName", []any{"book-2"}, nil),
	}
	var report strings.Builder
	for _, n := range sizes {
		f := newFleet(b, n)
		loadCounts(f.invokers, "queryByName")
		for _, p := range lbPairs {
			key := fmt.Sprintf("lb=%s/n=%d", p.ours, n)
			b.Run(key+"/"+implOurs, func(b *testing.B) { nsop[key+"/ours"] = benchLB(b, ours.Get(p.ours), f, calls) })
			if p.theirs == "" {
				continue
			}
			theirs := balancers.DubboGo(p.theirs)
			if theirs == nil {
				b.Fatalf("dubbo-go has no %s", p.theirs)
			}
			b.Run(key+"/"+implDubbogo, func(b *testing.B) { nsop[key+"/dubbogo"] = benchLB(b, theirs, f, calls) })
		}
	}
	for _, p := range lbPairs {
		base := nsop[fmt.Sprintf("lb=%s/n=%d/ours", p.ours, sizes[0])]
		for _, n := range sizes {
			key := fmt.Sprintf("lb=%s/n=%d", p.ours, n)
			o, t := nsop[key+"/ours"], nsop[key+"/dubbogo"]
			if o == 0 {
				continue
			}
			fmt.Fprintf(&report, "BenchmarkPick %s: dubboroute %.0f ns/op (%.2fx its n=%d)", key, o, o/base, sizes[0])
			if t > 0 {
				fmt.Fprintf(&report, ", dubbo-go %s %.0f ns/op, ratio dubbo-go/dubboroute %.1fx", p.theirs, t, t/o)
			}
			report.WriteString("\n")
		}
	}
	if report.Len() > 0 {
		fmt.Fprint(os.Stdout, report.String())
	}
	balancers.ResetCounts()
	dgbase.CleanAllStatus()
}

// loadCounts gives every provider, on both sides' counters, 1 to 3 active
// calls of method and one success of 1 to 4 ms: a third of the providers
// hold the least active count, and shortestresponse's estimates tie in
// part, so the picks draw among many holders as under load.
func loadCounts(invs []dgbase.Invoker, method string) {
	for i, ivk := range invs {
		u := ivk.GetURL()
		for k := 0; k < 1+i%3; k++ {
			balancers.BeginCount(u, method)
			dgbase.BeginCount(u, method)
		}
		balancers.BeginCount(u, method)
		balancers.EndCount(u, method, int64(1+i%4), true)
		dgbase.BeginCount(u, method)
		dgbase.EndCount(u, method, int64(1+i%4), true)
	}
}
