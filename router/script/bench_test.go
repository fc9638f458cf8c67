package script

import (
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// fleet is n providers alternating between ports 20880 and 20881.
func fleet(n int) []*router.URL {
	urls := make([]*router.URL, n)
	for i := range urls {
		urls[i] = router.MustParseURL(fmt.Sprintf("dubbo://10.0.%d.%d:%d/com.foo.Greeter?application=demo-provider", i/256, i%256, 20880+i%2))
	}
	return urls
}

// routeRules are the rules the allocation test and the benchmark run: the
// docs' Java example (kept to port 20880) and the dubbo-go samples' script.
var routeRules = []struct {
	name    string
	dialect Dialect
	text    string
}{
	{"java", DialectJava, rule(`(function route(invokers, invocation, context) {
    var result = new java.util.ArrayList(invokers.size());
    for (i = 0; i < invokers.size(); i ++) {
        if (invokers.get(i).getUrl().getPort() == 20880) { result.add(invokers.get(i)); }
    }
    return result;
} (invokers, invocation, context));`)},
	{"dubbo-go", DialectDubboGo, rule(goSample)},
}

func compiled(tb testing.TB, text string, d Dialect, n int) (*Compiled, *router.Universe) {
	tb.Helper()
	r, err := Parse(text, d)
	if err != nil {
		tb.Fatal(err)
	}
	u := router.NewUniverse(n)
	return r.Compile(u, specConsumer, fleet(n), CompileOptions{}), u
}

// TestRouteAllocations: what one call costs beyond the script's own work
// (the bindings, the result's mapping to providers; the interrupt timer and
// the per-provider objects are reused) does not grow with the number of
// providers: a script returning the invokers binding allocates about the same
// at 10 and at 1000 providers. The realistic scripts' allocations (goja
// allocates per call of a Go-backed method) are logged.
func TestRouteAllocations(t *testing.T) {
	for _, d := range []Dialect{DialectJava, DialectDubboGo} {
		var per [2]float64
		for k, n := range []int{10, 1000} {
			c, u := compiled(t, rule("invokers"), d, n)
			call := specCall
			if got := c.Route(u.All(), &call, nil).Len(); got != n {
				t.Fatalf("%v n=%d: routed %d", d, n, got)
			}
			per[k] = testing.AllocsPerRun(20, func() { c.Route(u.All(), &call, nil) })
		}
		t.Logf("%v, script invokers: %.0f allocs per call at 10 providers, %.0f at 1000", d, per[0], per[1])
		if raceEnabled {
			continue // sync.Pool drops entries under -race; asserted without it
		}
		if per[1] > per[0]+4 || per[0] > 30 {
			t.Errorf("%v: %.0f allocs at 10 providers, %.0f at 1000: want a small number that does not grow with the providers", d, per[0], per[1])
		}
	}
	for _, rr := range routeRules {
		for _, n := range []int{10, 1000} {
			c, u := compiled(t, rr.text, rr.dialect, n)
			call := specCall
			if got := c.Route(u.All(), &call, nil).Len(); got != n/2 {
				t.Fatalf("%s n=%d: routed %d", rr.name, n, got)
			}
			t.Logf("%s at %d providers: %.0f allocs per call", rr.name, n, testing.AllocsPerRun(5, func() { c.Route(u.All(), &call, nil) }))
		}
	}
}

// BenchmarkRoute is one call through a compiled script rule (the integration
// benchmark BenchmarkScriptRoute puts it beside dubbo-go's script router).
func BenchmarkRoute(b *testing.B) {
	for _, rr := range routeRules {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("%s/n=%d", rr.name, n), func(b *testing.B) {
				c, u := compiled(b, rr.text, rr.dialect, n)
				call := specCall
				c.Route(u.All(), &call, nil)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.Route(u.All(), &call, nil)
				}
			})
		}
	}
}

// BenchmarkRouteParallel is BenchmarkRoute from every P at once: the pool
// gives each concurrent call its own runtime (one runtime behind a mutex
// would serialise them).
func BenchmarkRouteParallel(b *testing.B) {
	for _, rr := range routeRules {
		b.Run(rr.name+"/n=100", func(b *testing.B) {
			c, u := compiled(b, rr.text, rr.dialect, 100)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				call := specCall
				for pb.Next() {
					c.Route(u.All(), &call, nil)
				}
			})
		})
	}
}
