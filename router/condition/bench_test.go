package condition

import (
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

const benchRuleV30 = `scope: service
key: com.foo.BarService
force: false
conditions:
  - method = getFoo,sayHello & attachments[user] = 1~1000 => region = hangzhou,beijing
  - arguments[0] = vip* & arguments[1] = 1~10 => env = gray
  - application = cons-app => region != shanghai
  - method = nope => false
`

const benchRuleV31 = `configVersion: v3.1
conditions:
  - from: {match: method=getFoo}
    to:
      - {match: env=gray, weight: 10}
      - {match: env!=gray, weight: 90}
`

func benchProviders(n int) []*router.URL {
	regions := []string{"hangzhou", "beijing", "shanghai", "shenzhen"}
	out := make([]*router.URL, n)
	for i := range out {
		env := "prod"
		if i%10 == 0 {
			env = "gray"
		}
		out[i] = router.MustParseURL(fmt.Sprintf("dubbo://10.%d.%d.%d:20880/com.foo.BarService?application=prov&region=%s&env=%s",
			i>>16&255, i>>8&255, i&255, regions[i%len(regions)], env))
	}
	return out
}

func benchCall() *router.Call {
	return &router.Call{Method: "getFoo", Args: []any{"vip-42", 7}, Attachments: router.AttachmentMap{"user": "500"}}
}

func compiledFor(tb testing.TB, yml string, n int) (*Compiled, *router.Universe) {
	r, err := ParseRule(yml)
	if err != nil {
		tb.Fatal(err)
	}
	u := router.NewUniverse(n)
	return r.Compile(u, router.MustParseURL(specConsumerText), benchProviders(n), CompileOptions{}), u
}

// TestRouteDoesNotAllocate: routing a call (v3.0 and v3.1, string and small
// integer arguments, attachments) allocates nothing once the sets are warm.
func TestRouteDoesNotAllocate(t *testing.T) {
	for _, tc := range []struct{ name, yml string }{{"v3.0", benchRuleV30}, {"v3.1", benchRuleV31}} {
		t.Run(tc.name, func(t *testing.T) {
			c, u := compiledFor(t, tc.yml, 1000)
			call := benchCall()
			in := u.All()
			var out *router.Set
			for i := 0; i < 200; i++ { // warm the memoised set operations
				out = c.Route(in, call, nil)
			}
			if out.Empty() {
				t.Fatal("benchmark rule routes to nobody; the test would prove nothing")
			}
			if a := testing.AllocsPerRun(1000, func() { out = c.Route(in, call, nil) }); a != 0 {
				t.Fatalf("Route allocates %v times per call", a)
			}
		})
	}
}

func BenchmarkConditionRoute(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c, u := compiledFor(b, benchRuleV30, n)
			call := benchCall()
			in := u.All()
			c.Route(in, call, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Route(in, call, nil)
			}
		})
	}
}

func BenchmarkConditionRouteV31(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c, u := compiledFor(b, benchRuleV31, n)
			call := benchCall()
			in := u.All()
			for i := 0; i < 100; i++ {
				c.Route(in, call, nil)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Route(in, call, nil)
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			r, err := ParseRule(benchRuleV30)
			if err != nil {
				b.Fatal(err)
			}
			provs := benchProviders(n)
			cons := router.MustParseURL(specConsumerText)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r.Compile(router.NewUniverse(n), cons, provs, CompileOptions{})
			}
		})
	}
}
