package consumer

import (
	"testing"

	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
)

// passRouter is a trivial dubbo-go router: it keeps every provider.
type passRouter struct{ prio int64 }

func (p passRouter) Route(ivks []base.Invoker, _ *common.URL, _ base.Invocation) []base.Invoker {
	return ivks
}
func (p passRouter) URL() *common.URL      { return nil }
func (p passRouter) Priority() int64       { return p.prio }
func (p passRouter) Notify([]base.Invoker) {}

// dropFirst drops the first provider.
type dropFirst struct{ passRouter }

func (dropFirst) Route(ivks []base.Invoker, _ *common.URL, _ base.Invocation) []base.Invoker {
	return ivks[1:]
}

type boom struct{ passRouter }

func (boom) Route([]base.Invoker, *common.URL, base.Invocation) []base.Invoker { panic("boom") }

func benchBinding(tb testing.TB, n int) *Binding {
	tb.Helper()
	ref, _ := common.NewURL("dubbo://:0/com.test.Foreign?interface=com.test.Foreign&application=foreign-bench")
	reg, _ := common.NewURL("memory://127.0.0.1:0")
	reg.SubURL = ref
	b := newBinding(reg)
	tb.Cleanup(b.Release)
	invs := make([]base.Invoker, n)
	for i := range invs {
		u, _ := common.NewURL("dubbo://10.0.0.1:" + itoa(20000+i) + "/com.test.Foreign?interface=com.test.Foreign&application=foreign-provider")
		invs[i] = base.NewBaseInvoker(u)
	}
	b.setInvokers(invs)
	b.markReady()
	return b
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// TestForeignRoutersOrderAndContainment: AddRouters' routers run after
// the chain in priority order (the lower first) and show in explain; a
// panicking one passes its input on; without foreign routers a call
// allocates nothing.
func TestForeignRoutersOrderAndContainment(t *testing.T) {
	b := benchBinding(t, 3)
	inv := invocation.NewRPCInvocation("m", nil, nil)
	if n := testing.AllocsPerRun(100, func() { b.route(inv) }); n != 0 {
		t.Errorf("a call without foreign routers allocates %v times", n)
	}
	(&dgChain{b: b}).AddRouters([]dgrouter.PriorityRouter{dropFirst{passRouter{20}}, boom{passRouter{10}}})
	if got := b.ForeignRouters(); len(got) != 2 || got[0] != "foreign:consumer.boom" || got[1] != "foreign:consumer.dropFirst" {
		t.Fatalf("foreign routers %v, want boom (10) then dropFirst (20)", got)
	}
	out, np := b.route(inv)
	if np != nil || len(out) != 2 {
		t.Fatalf("routed %d (%v); want 2: the panic contained, then dropFirst", len(out), np)
	}
	routed, tr := b.Explain("m", nil, nil)
	last := tr.Steps[len(tr.Steps)-1]
	if len(routed) != 2 || last.Router != "foreign:consumer.dropFirst" || last.In != 3 || last.Out != 2 {
		t.Errorf("explain: %d routed, last step %+v", len(routed), last)
	}
}

// BenchmarkForeignRouter: a call routed by the chain alone, and with one
// trivial foreign router after it (the copy of the routed list and the
// router's call), at 100 providers.
func BenchmarkForeignRouter(b *testing.B) {
	for _, foreign := range []bool{false, true} {
		name := "foreign=none"
		if foreign {
			name = "foreign=pass"
		}
		b.Run(name, func(b *testing.B) {
			bd := benchBinding(b, 100)
			if foreign {
				bd.addForeign("bench", passRouter{})
			}
			inv := invocation.NewRPCInvocation("m", nil, nil)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bd.route(inv)
			}
		})
	}
}
