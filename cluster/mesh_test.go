package cluster

import (
	"fmt"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/mesh"
)

// chainMeshRule: 30% to the dubbo.tag=gray providers, 70% to all of demo-provider.
const chainMeshRule = `kind: DestinationRule
metadata: {name: r}
spec:
  subsets:
    - {name: a, labels: {application: demo-provider}}
    - {name: gray, labels: {dubbo.tag: gray}}
---
kind: VirtualService
metadata: {name: r}
spec:
  dubbo:
    - routedetail:
        - match:
            - attachments: {dubboContext: {userId: {regex: "[0-9]+"}}}
          route:
            - weight: 30
              destination: {subset: gray}
            - weight: 70
              destination: {subset: a}
`

func meshRef(t testing.TB) RuleRef {
	t.Helper()
	r, err := mesh.ParseRule(chainMeshRule)
	if err != nil {
		t.Fatal(err)
	}
	return RuleRef{Mesh: []mesh.AppRule{{App: "demo-provider", Key: "demo-provider.MESHAPPRULE", Version: "1#1", Rule: r}}}
}

// TestMeshInChain: the mesh router runs before the tag router, shows in the
// trace only with a rule, and the chain stays allocation-free with it.
func TestMeshInChain(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface, Rand: func(uint64) uint64 { return 50 }})
	c.SetInvokers(manyInvokers(t, 100))
	tr := &router.Trace{}
	c.Route(call("queryAll", nil), tr)
	for _, s := range tr.Steps {
		if s.Router == RouterMesh {
			t.Fatalf("mesh step without a mesh rule: %+v", tr.Steps)
		}
	}
	c.SetRule(SlotMesh, meshRef(t))
	tr = &router.Trace{}
	got := c.Route(call("queryAll", map[string]any{"userId": "7"}), tr)
	if tr.Steps[1].Router != RouterMesh || tr.Steps[2].Router != RouterTag || tr.Steps[1].Branch != mesh.BranchRouted {
		t.Fatalf("chain order: %+v", tr.Steps)
	}
	// draw 50 of 100 → subset a (all); the tag router then drops the
	// dubbo.tag=gray providers (request without tag).
	for _, ivk := range got {
		if ivk.GetURL().GetParam("dubbo.tag", "") != "" {
			t.Fatalf("routed to %s", ivk.GetURL())
		}
	}
	if len(got) != 75 {
		t.Fatalf("%d providers, want the 75 untagged", len(got))
	}
	// draw 10 of 100 → subset gray; the tag router then finds no untagged one.
	c2 := New(consumerURL("demo-consumer1"), Options{Name: iface, Rand: func(uint64) uint64 { return 10 }})
	c2.SetInvokers(manyInvokers(t, 100))
	c2.SetRule(SlotMesh, meshRef(t))
	if got := c2.Route(call("queryAll", map[string]any{"userId": "7", "dubbo.tag": "gray"}), nil); len(got) != 25 {
		t.Fatalf("gray draw: %d providers, want the 25 tagged", len(got))
	}
	for _, inv := range []base.Invocation{call("queryAll", map[string]any{"userId": "7"}), call("queryAll", nil)} {
		c.Route(inv, nil)
		if n := testing.AllocsPerRun(200, func() { c.Route(inv, nil) }); n != 0 {
			t.Errorf("%v allocs per Route with a mesh rule", n)
		}
	}
}

// BenchmarkChainRouteMesh is BenchmarkChainRoute with a mesh rule in force
// (weighted draw on every call). dubbo-go v3.3.2 has no mesh router to
// compare with.
func BenchmarkChainRouteMesh(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c := New(consumerURL("demo-consumer1"), Options{Name: iface})
			c.SetInvokers(manyInvokers(b, n))
			c.Update(func(in *Input) {
				in.Rules[SlotMesh] = meshRef(b)
				in.Rules[SlotService] = condRule(b, "svc", serviceRule)
				in.Rules[SlotConsumerApp] = condRule(b, "app", appRule)
			})
			inv := call("queryAll", map[string]any{"dubbo.tag": "gray", "userId": "7"})
			c.Route(inv, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Route(inv, nil)
			}
		})
	}
}
