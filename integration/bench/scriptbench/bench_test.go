package scriptbench

import (
	"testing"

	dgscript "dubbo.apache.org/dubbo-go/v3/cluster/router/script"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/remoting"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/script"
)

// goScriptRule is the dubbo-go samples' script rule (router/script in
// apache/dubbo-go-samples), keeping the providers on port 20880: the same
// text for both sides (dubboroute in dubbo-go's dialect).
const goScriptRule = `key: demo-provider
type: javascript
enabled: true
script: |
  (function(invokers, invocation, context) {
    if (!invokers || invokers.length === 0) return [];
    return invokers.filter(function(invoker) {
      var url = invoker.GetURL();
      return url && url.Port === "20880";
    });
  })(invokers, invocation, context);
`

// javaScriptRule is Dubbo's documented script rule in Java's dialect,
// keeping the providers on port 20880 (dubboroute only: dubbo-go cannot
// run it).
const javaScriptRule = `key: demo-provider
type: javascript
enabled: true
script: |
  (function route(invokers, invocation, context) {
      var result = new java.util.ArrayList(invokers.size());
      for (i = 0; i < invokers.size(); i ++) {
          if (invokers.get(i).getUrl().getPort() == 20880) { result.add(invokers.get(i)); }
      }
      return result;
  } (invokers, invocation, context));
`

// scriptSizes are the fleet sizes of BenchmarkScriptRoute (dubbo-go makes
// a runtime and clones every provider URL per call: 10,000 is minutes).
var scriptSizes = []int{10, 100, 1000}

// ourScript is dubboroute's script router over fleet f for rule text in
// dialect d, standalone (as dubbo-go's below): one call.
func ourScript(tb testing.TB, f *fleet, text string, d script.Dialect) func(base.Invocation) int {
	tb.Helper()
	r, err := script.Parse(text, d)
	if err != nil {
		tb.Fatal(err)
	}
	urls := make([]*router.URL, f.n)
	for i := range urls {
		urls[i] = router.MustParseURL(providerURL(i))
	}
	u := router.NewUniverse(f.n)
	c := r.Compile(u, f.ours, urls, script.CompileOptions{})
	return func(inv base.Invocation) int {
		call := cluster.CallOf(inv)
		return c.Route(u.All(), &call, nil).Len()
	}
}

// dubbogoScript is dubbo-go v3.3.2's script router with rule text.
func dubbogoScript(tb testing.TB, f *fleet, text string) func(base.Invocation) int {
	tb.Helper()
	r := dgscript.NewScriptRouter()
	r.Process(&config_center.ConfigChangeEvent{Key: providerApp + ".script-router", Value: text, ConfigType: remoting.EventTypeUpdate})
	return func(inv base.Invocation) int { return len(r.Route(f.invokers, f.consumer, inv)) }
}

// scriptNs is the last measured ns/op of dubbo-go's script router per
// fleet size, for the ratio the dubboroute runs report.
var scriptNs = map[int]float64{}

// BenchmarkScriptRoute is one call through a script rule: dubbo-go's
// script router and dubboroute's (the same samples' script, dubbo-go's
// dialect), and dubboroute's with Dubbo's documented Java-dialect script.
// The dubboroute runs report x-dubbogo: dubbo-go's ns/op divided by theirs,
// measured in the same run.
func BenchmarkScriptRoute(b *testing.B) {
	for _, n := range scriptSizes {
		f := newFleet(b, n)
		inv := invocation.NewRPCInvocation("queryAll", []any{}, nil)
		run := func(b *testing.B, route func(base.Invocation) int, ratio bool) {
			if got := route(inv); got != (n+1)/2 {
				b.Fatalf("routed %d of %d, want the %d providers on port 20880", got, n, (n+1)/2)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				route(inv)
			}
			b.StopTimer()
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if !ratio {
				scriptNs[n] = ns
			} else if dg := scriptNs[n]; dg > 0 {
				b.ReportMetric(dg/ns, "x-dubbogo")
			}
		}
		b.Run(name(implDubbogo, n), func(b *testing.B) { run(b, dubbogoScript(b, f, goScriptRule), false) })
		b.Run(name(implOurs, n), func(b *testing.B) { run(b, ourScript(b, f, goScriptRule, script.DialectDubboGo), true) })
		b.Run(name(implOurs+"-java", n), func(b *testing.B) { run(b, ourScript(b, f, javaScriptRule, script.DialectJava), true) })
	}
}
