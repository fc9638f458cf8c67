package mesh

import (
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// benchRule exercises every per-call part: name_match, argc, args
// (str_value and num_value), dubboContext, a weighted draw over three
// destinations and a fallback.
const benchRule = `kind: DestinationRule
metadata: {name: bench}
spec:
  subsets:
    - {name: v1, labels: {ver: v1}}
    - {name: v2, labels: {ver: v2}}
    - {name: v3, labels: {ver: v3}}
    - {name: gone, labels: {ver: v9}}
---
kind: VirtualService
metadata: {name: bench}
spec:
  dubbo:
    - services: [{exact: com.foo.BarService}]
      routedetail:
        - name: never
          match:
            - attachments: {dubboContext: {trafficLabel: {exact: blue}}}
          route:
            - destination: {subset: v1}
        - name: gray
          match:
            - method: {name_match: {prefix: get}, argc: 2, args: [{index: 0, str_value: {oneof: [{regex: "us.*"}]}}, {index: 1, num_value: {oneof: [{range: {start: 0.0, end: 100.0}}]}}]}
              attachments: {dubboContext: {trafficLabel: {exact: gray}}}
          route:
            - weight: 20
              destination: {subset: gone, fallback: {destination: {subset: v3}}}
            - weight: 30
              destination: {subset: v2}
            - weight: 50
              destination: {subset: v1}
`

func benchSetup(tb testing.TB, n int) (*Compiled, *router.Set, *router.Call) {
	tb.Helper()
	r, err := ParseRule(benchRule)
	if err != nil {
		tb.Fatal(err)
	}
	return benchSetupRule(n, r)
}

// benchSetupRule is benchSetup with a parsed rule.
func benchSetupRule(n int, r *Rule) (*Compiled, *router.Set, *router.Call) {
	urls := make([]*router.URL, n)
	for i := range urls {
		app := "prov-a"
		if i%5 == 4 {
			app = "prov-b"
		}
		urls[i] = router.MustParseURL(fmt.Sprintf("dubbo://10.%d.%d.%d:20880/com.foo.BarService?application=%s&ver=v%d", i>>16&255, i>>8&255, i&255, app, i%3+1))
	}
	consumer := router.MustParseURL("consumer://10.0.0.9/com.foo.BarService?application=c&interface=com.foo.BarService&side=consumer")
	u := router.NewUniverse(n)
	var seq uint64
	c := Compile(u, consumer, urls, []AppRule{{App: "prov-a", Key: "prov-a.MESHAPPRULE", Rule: r}}, func(m uint64) uint64 {
		seq++
		return seq % m
	})
	call := &router.Call{Method: "getUser", Args: []any{"user-1", int64(42)}, Attachments: router.AttachmentMap{"trafficLabel": "gray"}}
	return c, u.All(), call
}

// TestRouteDoesNotAllocate: a routed call, weighted draw included, makes no
// allocation.
func TestRouteDoesNotAllocate(t *testing.T) {
	c, all, call := benchSetup(t, 1000)
	out := c.Route(all, call, nil)
	if out.Empty() || out == all {
		t.Fatalf("bench rule did not route: %d of %d", out.Len(), all.Len())
	}
	if a := testing.AllocsPerRun(1000, func() { c.Route(all, call, nil) }); a != 0 {
		t.Fatalf("Route allocates %v times per call", a)
	}
}

func BenchmarkMeshRoute(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c, all, call := benchSetup(b, n)
			c.Route(all, call, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Route(all, call, nil)
			}
		})
	}
}
