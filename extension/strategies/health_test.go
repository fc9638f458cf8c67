package strategies

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	getty "github.com/apache/dubbo-getty"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/dubbo/hessian2"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	perrors "github.com/pkg/errors"

	"github.com/dubboroute/dubboroute/extension/balancers"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
)

// Unit tests never connect anywhere: the process table's probes fail.
func init() {
	connHealth.dial = func(context.Context, string) error { return errors.New("unit tests do not dial") }
}

func TestNotSent(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"getty closed session, as dubbo-go wraps it", perrors.WithStack(perrors.WithStack(getty.ErrSessionClosed)), true},
		{"client closed", base.ErrClientClosed, true},
		{"destroyed invoker", base.ErrDestroyedInvoker, true},
		{"refused connect", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"refused, wrapped", fmt.Errorf("triple: %w", syscall.ECONNREFUSED), true},
		{"no session", perrors.New("session not exist"), true},
		{"connect timeout", perrors.New("failed to create client connection to 127.0.0.1:1 in 3s"), true},
		{"graceful shutdown filter", errors.New("provider is closing"), true},
		{"read timeout (sent)", errors.New("maybe the client read timeout or fail to decode tcp stream in Writer.Write"), false},
		{"write failed (the frame never arrived whole)", &net.OpError{Op: "write", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"read failed (the request was written)", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false},
		{"nil", nil, false},
	} {
		if got := NotSent(c.err); got != c.want {
			t.Errorf("%s: NotSent(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}

// A provider's exception is never taken for a failure to send, whatever
// its text says.
func TestNotSentNeverBusiness(t *testing.T) {
	c := &dgCall{i: &invoker{health: &health{}}}
	biz := &result.RPCResult{Err: &hessian2.GenericException{ExceptionClass: "java.lang.IllegalStateException", ExceptionMessage: "provider is closing"}}
	if c.NotSent(biz) {
		t.Fatalf("a business exception was taken for a call that was not sent")
	}
	if !c.NotSent(&result.RPCResult{Err: getty.ErrSessionClosed}) {
		t.Fatalf("a closed session was not taken for a call that was not sent")
	}
}

func testInvoker(t testing.TB, addr string) *fakeInvoker {
	t.Helper()
	u, err := common.NewURL("dubbo://" + addr + "/demo.Svc")
	if err != nil {
		t.Fatal(err)
	}
	return &fakeInvoker{url: u}
}

// An address is down from the first call that could not be sent until a
// probe connects; probes back off while they fail.
func TestHealthDownUntilProbeConnects(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	refuse := true
	dials := make(chan string, 16)
	h := &health{
		now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		dial: func(_ context.Context, addr string) error {
			mu.Lock()
			r := refuse
			mu.Unlock()
			dials <- addr
			if r {
				return syscall.ECONNREFUSED
			}
			return nil
		},
	}
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	a, b := testInvoker(t, "127.0.0.1:1"), testInvoker(t, "127.0.0.1:2")
	if !h.available(a) || !h.available(b) {
		t.Fatal("fresh table: a provider is not available")
	}
	h.markDown(a, syscall.ECONNREFUSED)
	if h.available(a) || !h.available(b) {
		t.Fatalf("after a's call was not sent: available a=%v b=%v, want false true", h.available(a), h.available(b))
	}
	select {
	case d := <-dials:
		t.Fatalf("probed %s before the backoff passed", d)
	default:
	}
	advance(probeBackoffMin)
	if h.available(a) {
		t.Fatal("a available while its first probe runs")
	}
	if d := <-dials; d != "127.0.0.1:1" {
		t.Fatalf("probed %s, want a's address", d)
	}
	waitProbe(t, h, "127.0.0.1:1")
	if h.available(a) {
		t.Fatal("a available after a refused probe")
	}
	// The next probe waits twice as long.
	advance(probeBackoffMin)
	h.available(a)
	select {
	case d := <-dials:
		t.Fatalf("probed %s again before the doubled backoff", d)
	case <-time.After(20 * time.Millisecond):
	}
	mu.Lock()
	refuse = false
	mu.Unlock()
	advance(probeBackoffMin)
	h.available(a)
	<-dials
	waitProbe(t, h, "127.0.0.1:1")
	if !h.available(a) {
		t.Fatalf("a still down after a probe connected; table %v", h.snapshot())
	}
	if h.down.Load() != 0 {
		t.Fatalf("down count %d after recovery, want 0", h.down.Load())
	}
}

func waitProbe(t *testing.T, h *health, addr string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		h.mu.Lock()
		a, ok := h.addrs[addr]
		busy := ok && a.probing
		h.mu.Unlock()
		if !busy {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("probe of %s did not end", addr)
}

// The cluster invoker with retries 0: a provider whose call cannot be sent
// costs no call, and is not picked again while it is down.
func TestClusterRedirectsAndAvoidsDown(t *testing.T) {
	ci, fs := newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=0&loadbalance=roundrobin",
		perrors.WithStack(getty.ErrSessionClosed), nil, nil)
	h := &health{dial: func(context.Context, string) error { return syscall.ECONNREFUSED }}
	ci.health, ci.sel.Avail = h, h.available
	var reply string
	for i := 0; i < 30; i++ {
		r := ci.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"), invocation.WithReply(&reply)))
		if r.Error() != nil {
			t.Fatalf("call %d failed: %v", i, r.Error())
		}
	}
	if fs[0].calls != 1 {
		t.Fatalf("the provider whose session is closed got %d attempts, want 1 (then it is down)", fs[0].calls)
	}
	if fs[1].calls+fs[2].calls != 30 {
		t.Fatalf("served %d+%d, want 30 calls", fs[1].calls, fs[2].calls)
	}
	if _, down := h.snapshot()["10.0.0.1:20880"]; !down {
		t.Fatalf("down table %v, want 10.0.0.1:20880", h.snapshot())
	}
}

// While every connection is up, availability costs one atomic load and no
// allocation.
func TestHealthAvailableAllocs(t *testing.T) {
	h := &health{}
	ivk := testInvoker(t, "127.0.0.1:3")
	var iv base.Invoker = ivk
	if n := testing.AllocsPerRun(1000, func() { h.available(iv) }); n != 0 {
		t.Fatalf("available: %v allocs, want 0", n)
	}
	other := testInvoker(t, "127.0.0.1:4")
	h.dial = func(context.Context, string) error { return syscall.ECONNREFUSED }
	h.markDown(other, syscall.ECONNREFUSED)
	if n := testing.AllocsPerRun(1000, func() { h.available(iv) }); n != 0 {
		t.Fatalf("available while another address is down: %v allocs, want 0", n)
	}
	leavingKey := shared.LeavingKey{Addr: "127.0.0.1:5", Service: "demo.Svc"}
	shared.Leaving.Mark(leavingKey)
	defer shared.Leaving.Unmark(leavingKey)
	if n := testing.AllocsPerRun(1000, func() { h.available(iv) }); n != 0 {
		t.Fatalf("available while another address is leaving: %v allocs, want 0", n)
	}
}

// Reading a successful call's result for a closing announcement costs no
// allocation.
func TestHealthObserveAllocs(t *testing.T) {
	h := &health{}
	var iv base.Invoker = testInvoker(t, "127.0.0.1:6")
	var ok result.Result = &result.RPCResult{Attrs: map[string]any{"x": "y"}}
	if n := testing.AllocsPerRun(1000, func() { h.observe(iv, ok, false) }); n != 0 {
		t.Fatalf("observe: %v allocs, want 0", n)
	}
	if !h.available(iv) {
		t.Fatal("a plain success made the provider unavailable")
	}
}

func BenchmarkHealthAvailable(b *testing.B) {
	h := &health{}
	var iv base.Invoker = testInvoker(b, "127.0.0.1:3")
	b.ReportAllocs()
	for b.Loop() {
		h.available(iv)
	}
}

// A provider that announces its shutdown (dubbo-go's "closing" result
// attachment) is not picked again; the provider registered again on the
// same address is a new invoker and is; the mark ends after ClosingTTL.
func TestHealthClosing(t *testing.T) {
	now := time.Unix(2000, 0)
	h := &health{now: func() time.Time { return now }, dial: func(context.Context, string) error { return errors.New("no dial") }}
	old, renewed := testInvoker(t, "127.0.0.1:5"), testInvoker(t, "127.0.0.1:5")
	ok := &result.RPCResult{}
	h.observe(old, ok, false)
	if !h.available(old) {
		t.Fatal("a plain success made the provider unavailable")
	}
	closing := &result.RPCResult{}
	closing.AddAttachment("closing", "true")
	h.observe(old, closing, false)
	if h.available(old) {
		t.Fatal("a provider that announced its shutdown is still available")
	}
	if !h.available(renewed) {
		t.Fatal("the provider's new registration (same address) is unavailable")
	}
	h.observe(renewed, &result.RPCResult{Err: errors.New("provider is closing")}, true)
	if h.available(renewed) {
		t.Fatal("dubbo-go's filter refused it as closing, still available")
	}
	if _, down := h.snapshot()["127.0.0.1:5"]; down {
		t.Fatal("a closing provider was taken for a connection that is down")
	}
	now = now.Add(ClosingTTL)
	if !h.available(old) || !h.available(renewed) || h.down.Load() != 0 {
		t.Fatalf("after ClosingTTL: available %v %v, down count %d", h.available(old), h.available(renewed), h.down.Load())
	}
}

// Every single-pick strategy with every registered balancer, retries 0:
// one of three providers has a closed session; no call fails and it is
// attempted at most once (then it is down and not picked).
func TestNoCallFailsOnADownProviderAnyBalancer(t *testing.T) {
	t.Logf("balancers: %v", balancers.Names())
	for _, lb := range balancers.Names() {
		for _, cl := range []string{"failover", "failfast", "failsafe", "failback", "available"} {
			ci, fs := newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=0&cluster="+cl+"&loadbalance="+lb,
				nil, perrors.WithStack(getty.ErrSessionClosed), nil)
			h := &health{dial: func(context.Context, string) error { return syscall.ECONNREFUSED }}
			ci.health, ci.sel.Avail = h, h.available
			for i := 0; i < 40; i++ {
				var reply string
				r := ci.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"),
					invocation.WithArguments([]any{fmt.Sprint(i)}), invocation.WithReply(&reply)))
				if r.Error() != nil || reply != "real" {
					t.Fatalf("%s/%s: call %d: err %v, reply %q", cl, lb, i, r.Error(), reply)
				}
			}
			if fs[1].calls > 1 {
				t.Errorf("%s/%s: the provider with a closed session was attempted %d times, want at most 1", cl, lb, fs[1].calls)
			}
		}
	}
}

// A provider whose registration is gone while the delete grace keeps its
// invoker (shared.Leaving) gets no call while another routed provider is
// available (a Java consumer has already dropped it), and is called when
// it is the only one left.
func TestLeavingProviderNotPicked(t *testing.T) {
	ci, fs := newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=0&loadbalance=roundrobin", nil, nil, nil)
	k := shared.LeavingKey{Addr: "10.0.0.1:20880", Service: fs[0].url.ServiceKey()}
	shared.Leaving.Mark(k)
	defer shared.Leaving.Unmark(k)
	var reply string
	call := func() {
		t.Helper()
		r := ci.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"), invocation.WithReply(&reply)))
		if r.Error() != nil {
			t.Fatalf("call failed: %v", r.Error())
		}
	}
	for i := 0; i < 30; i++ {
		call()
	}
	if fs[0].calls != 0 || fs[1].calls+fs[2].calls != 30 {
		t.Fatalf("calls %d/%d/%d, want the leaving provider none of 30", fs[0].calls, fs[1].calls, fs[2].calls)
	}
	// Every provider leaving: the selection picks as Java does.
	for _, f := range fs[1:] {
		o := shared.LeavingKey{Addr: f.url.Location, Service: f.url.ServiceKey()}
		shared.Leaving.Mark(o)
		defer shared.Leaving.Unmark(o)
	}
	for i := 0; i < 30; i++ {
		call()
	}
	if total(fs) != 60 || fs[0].calls == 0 {
		t.Fatalf("with every provider leaving: calls %d/%d/%d, want 60 with the first called", fs[0].calls, fs[1].calls, fs[2].calls)
	}
}
