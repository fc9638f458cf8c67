package balancers

import (
	"fmt"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
	"github.com/dubboroute/dubboroute/loadbalance/status"
)

func invokers(t testing.TB, n int, params string) []base.Invoker {
	out := make([]base.Invoker, n)
	for i := range out {
		u, err := common.NewURL(fmt.Sprintf("dubbo://10.0.%d.%d:20880/com.foo.S?interface=com.foo.S&application=p%s", i/250, i%250+1, params))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = base.NewBaseInvoker(u)
	}
	return out
}

func TestEveryNameRegistered(t *testing.T) {
	invs := invokers(t, 5, "")
	inv := invocation.NewRPCInvocation("sayHello", []any{"x"}, nil)
	for _, name := range append(Names(), "nosuch", "") {
		lb := Get(name)
		if lb == nil || lb.Select(invs, inv) == nil {
			t.Fatalf("%q: no pick", name)
		}
		if name != "nosuch" && name != "" {
			if extension.GetLoadbalance(name).Select(invs, inv) == nil {
				t.Fatalf("dubbo-go %q: no pick", name)
			}
		}
	}
	if u := Unknown(); len(u) != 1 || u[0] != "nosuch" {
		t.Fatalf("unknown %v", u)
	}
	extension.SetLoadbalance("custom-test", func() loadbalance.LoadBalance { return Get("random") })
	if Resolve("consistenthash") != "consistenthash" || Resolve("bogus") != "random" || Resolve("custom-test") != "custom-test" {
		t.Fatal("Resolve")
	}
}

func TestZeroAllocPicks(t *testing.T) {
	invs := invokers(t, 100, "")
	inv := invocation.NewRPCInvocation("sayHello", []any{"x", int64(3)}, nil)
	b := New(Options{})
	for _, name := range []string{"random", "roundrobin", "consistenthash", "leastactive", "shortestresponse", "adaptive"} {
		lb := b.Get(name)
		lb.Select(invs, inv)
		if n := testing.AllocsPerRun(500, func() { lb.Select(invs, inv) }); n != 0 {
			t.Errorf("%s: %v allocs per pick", name, n)
		}
	}
	w := invokers(t, 100, "&weight=50")
	w[3] = invokers(t, 1, "&weight=7&timestamp=1")[0]
	for _, name := range []string{"random", "roundrobin"} {
		lb := b.Get(name)
		lb.Select(w, inv)
		if n := testing.AllocsPerRun(500, func() { lb.Select(w, inv) }); n != 0 {
			t.Errorf("%s weighted: %v allocs per pick", name, n)
		}
	}
}

// A slice is never answered with another slice's plan: same length, other
// providers (a dead snapshot's slice) or rewritten in place.
func TestPlanIdentity(t *testing.T) {
	b := New(Options{})
	lb := b.Get("consistenthash")
	a := invokers(t, 3, "")
	inv := invocation.NewRPCInvocation("m", []any{"4"}, nil)
	first := lb.Select(a, inv)
	other := invokers(t, 6, "")[3:]
	if got := lb.Select(other, inv); got != other[0] && got != other[1] && got != other[2] {
		t.Fatal("picked outside the list")
	}
	a[0], a[1], a[2] = other[0], other[1], other[2]
	if got := lb.Select(a, inv); got != other[0] && got != other[1] && got != other[2] {
		t.Fatal("rewritten slice used the stale plan")
	}
	_ = first
}

// Generic calls hash and weigh the real method and arguments.
func TestGeneric(t *testing.T) {
	invs := invokers(t, 3, "&sayHello.hash.arguments=1")
	b := New(Options{})
	lb := b.Get("consistenthash")
	plain := invocation.NewRPCInvocation("sayHello", []any{"a", "k7"}, nil)
	gen := invocation.NewRPCInvocation("$invoke", []any{"sayHello", []string{"java.lang.String", "java.lang.String"}, []any{"a", "k7"}}, nil)
	for i := 0; i < 20; i++ {
		plain.Arguments()[1] = fmt.Sprint("k", i)
		gen.Arguments()[2].([]any)[1] = fmt.Sprint("k", i)
		if lb.Select(invs, plain) != lb.Select(invs, gen) {
			t.Fatalf("k%d: generic call picks another provider", i)
		}
	}
}

// Concurrent picks over routed lists that change under them (run with
// -race): every pick is a member of the list it was given.
func TestConcurrentPicks(t *testing.T) {
	b := New(Options{})
	all := invokers(t, 40, "&weight=10&timestamp=1")
	lists := [][]base.Invoker{all, all[:20], all[10:], all[5:35]}
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func(g int) {
			defer func() { done <- struct{}{} }()
			inv := invocation.NewRPCInvocation("m", []any{int64(g)}, nil)
			for i := 0; i < 150; i++ {
				list := lists[(i+g)%len(lists)]
				for _, name := range []string{"random", "roundrobin", "leastactive", "shortestresponse", "consistenthash", "adaptive"} {
					got := b.Get(name).Select(list, inv)
					found := false
					for _, x := range list {
						if x == got {
							found = true
							break
						}
					}
					if !found {
						t.Errorf("%s picked outside its list", name)
						return
					}
				}
			}
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	t.Logf("plans built: %d", b.Plans())
}

// leastactive and shortestresponse, picking over their indexes, pick what
// Java's selection (leastactive.PickBy over every provider's counters,
// read afresh) picks for the same draws, over 1,000 providers with mixed
// weights, partial ties and counters changing between picks; a pick
// allocates nothing.
func TestIndexedPicksAreJavas(t *testing.T) {
	invs := invokers(t, 1000, "&weight=10&timestamp=1")
	for i := 0; i < len(invs); i += 7 {
		invs[i] = invokers(t, 1, fmt.Sprintf("&weight=%d", 1+i%5))[0]
	}
	const method = "indexedPicks"
	inv := invocation.NewRPCInvocation(method, nil, nil)
	defer ResetCounts()
	for i, ivk := range invs {
		u := ivk.GetURL()
		for k := 0; k < 1+i%3; k++ { // actives 1..3: a third of the providers hold the least
			BeginCount(u, method)
		}
		// A success each (elapsed 1..4): shortestresponse's estimates
		// (elapsed x (active+1)) tie in part too.
		BeginCount(u, method)
		EndCount(u, method, int64(1+i%4), true)
	}
	draws := uint64(12345)
	rnd := func(bound int) int {
		draws = draws*6364136223846793005 + 1442695040888963407
		return int(draws>>33) % bound
	}
	b := New(Options{Rand: rnd, Clock: func() int64 { return 0 }})
	st := make([]*status.Status, len(invs))
	for i, ivk := range invs {
		st[i] = statusOf(ivk.GetURL(), method)
	}
	java := map[string]func(i int) int64{
		"leastactive": func(i int) int64 { return st[i].Active() },
		"shortestresponse": func(i int) int64 { // Java's estimate, no slide (the clock stands still)
			var avg int64
			if n := st[i].Succeeded(); n != 0 {
				avg = st[i].SucceededElapsed() / n
			}
			return avg * (st[i].Active() + 1)
		},
	}
	for _, name := range []string{"leastactive", "shortestresponse"} {
		lb := b.Get(name)
		for k := 0; k < 300; k++ {
			seed := draws
			got := lb.Select(invs, inv)
			draws = seed
			want := invs[leastactive.PickBy(b.planFor(invs).set.Table(method), java[name], rnd)]
			if got != want {
				t.Fatalf("%s pick %d: index %v, Java %v", name, k, got.GetURL().Location, want.GetURL().Location)
			}
			// The picked provider gets a call; one in three ends one.
			BeginCount(got.GetURL(), method)
			if k%3 == 0 {
				EndCount(invs[(k*37)%len(invs)].GetURL(), method, int64(k%5), k%2 == 0)
			}
		}
		if n := testing.AllocsPerRun(200, func() { lb.Select(invs, inv) }); n != 0 {
			t.Errorf("%s over 1000: %v allocs per pick", name, n)
		}
	}
}

// Calls are counted where Java's consumer counts them (an actives
// parameter, of the service or of a method: its ActiveLimitFilter) and
// where dubbo-go's does (its active filter listed on the reference); not
// otherwise.
func TestCountedWhenJavaCounts(t *testing.T) {
	for q, want := range map[string]bool{
		"":                                 false,
		"&actives=5":                       true,
		"&actives=":                        false,
		"&methods.indexed.actives=2":       true,
		"&reference.filter=active":         true,
		"&reference.filter=echo,%20active": true,
		"&reference.filter=activeish,tps":  false,
		"&reference.filter=cshutdown&x=y":  false,
	} {
		ivk := invokers(t, 1, q)[0]
		if got := Counted(ivk, "indexed") != nil; got != want {
			t.Errorf("%q: counted %v, want %v", q, got, want)
		}
	}
	ivk := invokers(t, 1, "&actives=1")[0]
	s := Counted(ivk, "m")
	if s == nil || Counted(ivk, "m") != s || Counted(ivk, "other") == s {
		t.Fatal("one counter per provider and method")
	}
	if a := testing.AllocsPerRun(1000, func() { Counted(ivk, "m").Begin(); Counted(ivk, "m").End(1, true) }); a != 0 {
		t.Fatalf("%v allocs per counted call", a)
	}
}

// Choose is the one place a call's balancer is settled: Java's precedence,
// aliases, other registered balancers as themselves, unknown names to
// Java's default.
func TestChoose(t *testing.T) {
	cases := []struct {
		s    Settings
		want Choice
	}{
		{Settings{}, Choice{Name: "random", From: FromDefault}},
		{Settings{Provider: "roundrobin"}, Choice{Name: "roundrobin", Asked: "roundrobin", From: FromProvider}},
		{Settings{Consumer: "leastactive", Provider: "roundrobin"}, Choice{Name: "leastactive", Asked: "leastactive", From: FromConsumer}},
		{Settings{Configurator: "consistenthash", Consumer: "leastactive", Provider: "roundrobin"}, Choice{Name: "consistenthash", Asked: "consistenthash", From: FromConfigurator}},
		{Settings{Consumer: "iwrr"}, Choice{Name: "iwrr", Asked: "iwrr", From: FromConsumer}},
		{Settings{Consumer: "p2c"}, Choice{Name: "p2c", Asked: "p2c", From: FromConsumer}},
		{Settings{Consumer: "nosuch", Provider: "roundrobin"}, Choice{Name: "random", Asked: "nosuch", From: FromConsumer, Unknown: true}},
	}
	for _, c := range cases {
		if got := Choose(c.s); got != c.want {
			t.Errorf("%+v: %+v, want %+v", c.s, got, c.want)
		}
	}
	found := false
	for _, n := range Unknown() {
		found = found || n == "nosuch"
	}
	if !found {
		t.Fatalf("unknown name not listed: %v", Unknown())
	}
	if Resolve("") != "" || Resolve("nosuch") != "random" || Resolve("aliasmethod") != "aliasmethod" {
		t.Fatal("Resolve")
	}
}

// dubbo-go's p2c (adaptiveService's capacity-aware balancer) is kept under
// its name; Java's adaptive is ours.
func TestP2CKeptAdaptiveOurs(t *testing.T) {
	dg := DubboGo("p2c")
	if dg == nil {
		t.Fatal("dubbo-go has no p2c")
	}
	if Get("p2c") != dg || extension.GetLoadbalance("p2c") != dg {
		t.Fatal("p2c is not dubbo-go's own")
	}
	if _, ok := Get("adaptive").(*balancer); !ok || extension.GetLoadbalance("adaptive") != Get("adaptive") {
		t.Fatalf("adaptive is %T", Get("adaptive"))
	}
}

// URLFor is Choose on an invoker URL: what the chain hands dubbo-go's
// cluster invokers.
func TestURLFor(t *testing.T) {
	u, err := common.NewURL("dubbo://10.0.0.1:20880/com.foo.S?interface=com.foo.S&loadbalance=roundrobin&methods=a,b&methods.a.loadbalance=nosuch")
	if err != nil {
		t.Fatal(err)
	}
	u.Methods = []string{"a", "b"}
	// The consumer's name wins; per-method provider values go.
	nu := URLFor(u, "leastactive", false)
	if nu == nil || nu.GetParam("loadbalance", "") != "leastactive" || nu.GetParam("methods.a.loadbalance", "") != "" {
		t.Fatalf("consumer: %v", nu)
	}
	if u.GetParam("loadbalance", "") != "roundrobin" || u.GetParam("methods.a.loadbalance", "") != "nosuch" {
		t.Fatal("u changed")
	}
	// An unknown consumer name runs random.
	if nu := URLFor(u, "nosuch", false); nu == nil || nu.GetParam("loadbalance", "") != "random" {
		t.Fatalf("unknown consumer name: %v", nu)
	}
	// A configurator's value (or the provider's, without a consumer
	// setting) stays, unknown names resolved.
	for _, c := range []struct {
		consumer   string
		configured bool
	}{{"", false}, {"leastactive", true}} {
		nu := URLFor(u, c.consumer, c.configured)
		if nu == nil || nu.GetParam("loadbalance", "") != "roundrobin" || nu.GetParam("methods.a.loadbalance", "") != "random" {
			t.Fatalf("%+v: %v", c, nu)
		}
	}
	// Nothing to change: nil.
	ok, _ := common.NewURL("dubbo://10.0.0.1:20880/com.foo.S?loadbalance=p2c")
	if URLFor(ok, "", false) != nil || URLFor(ok, "p2c", false) != nil || URLFor(nil, "random", false) != nil {
		t.Fatal("changed a URL already right")
	}
}

// BenchmarkCountedPick is a counted call's balancer work: a pick, then the
// call's Begin and End on the picked provider (each updating the plan's
// leastactive and shortestresponse indexes).
func BenchmarkCountedPick(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		invs := invokers(b, n, "&actives=100")
		inv := invocation.NewRPCInvocation("counted", nil, nil)
		bs := New(Options{})
		for _, name := range []string{"leastactive", "shortestresponse"} {
			lb := bs.Get(name)
			b.Run(fmt.Sprintf("lb=%s/n=%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					ivk := lb.Select(invs, inv)
					s := Counted(ivk, "counted")
					s.Begin()
					s.End(int64(i&3), true)
				}
			})
		}
	}
	ResetCounts()
}
