package strategies

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/global"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
)

// blockingInvoker answers a call when release is closed and records its
// destruction.
type blockingInvoker struct {
	url       *common.URL
	release   chan struct{}
	destroyed atomic.Bool
	answered  atomic.Bool // a call returned before the invoker was destroyed
}

func (b *blockingInvoker) GetURL() *common.URL { return b.url }
func (b *blockingInvoker) IsAvailable() bool   { return !b.destroyed.Load() }
func (b *blockingInvoker) Destroy()            { b.destroyed.Store(true) }
func (b *blockingInvoker) Invoke(context.Context, base.Invocation) result.Result {
	<-b.release
	b.answered.Store(!b.destroyed.Load())
	return &result.RPCResult{}
}

// The registry removing a provider while a call is in flight on it: the
// invoker is destroyed only after that call returned (Java's graceful
// client close); without calls in flight, at once.
func TestDrainingDestroy(t *testing.T) {
	u, _ := common.NewURL("dubbo://127.0.0.1:7/demo.Svc")
	inner := &blockingInvoker{url: u, release: make(chan struct{})}
	d := &drainingInvoker{Invoker: inner}
	done := make(chan struct{})
	go func() {
		d.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("m")))
		close(done)
	}()
	for d.inflight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	d.Destroy()
	if d.IsAvailable() {
		t.Fatal("an invoker being destroyed is still available")
	}
	time.Sleep(20 * time.Millisecond)
	if inner.destroyed.Load() {
		t.Fatal("destroyed while a call was in flight")
	}
	close(inner.release)
	<-done
	if !inner.answered.Load() {
		t.Fatal("the call in flight did not complete on a live invoker")
	}
	for i := 0; i < 200 && !inner.destroyed.Load(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if !inner.destroyed.Load() {
		t.Fatal("not destroyed after its last call returned")
	}

	idle := &blockingInvoker{url: u, release: make(chan struct{})}
	(&drainingInvoker{Invoker: idle}).Destroy()
	if !idle.destroyed.Load() {
		t.Fatal("an idle invoker was not destroyed at once")
	}
}

// The consumer shutdown filter counts a call while it is in flight (what
// dubbo-go's consumer shutdown waits for) and never refuses a provider:
// a provider that announced it is closing is avoided by the strategies,
// per invoker.
func TestConsumerShutdownFilter(t *testing.T) {
	registerShutdownFilter()
	f, ok := dgext.GetFilter("cshutdown")
	sf, ours := f.(*consumerShutdownFilter)
	if !ok || !ours {
		t.Fatalf("cshutdown is %T, want dubboroute's", f)
	}
	if again, _ := dgext.GetFilter("cshutdown"); again != f {
		t.Fatalf("cshutdown looked up twice gives two filters (%p, %p), want one", again, f)
	}
	cfg := global.DefaultShutdownConfig()
	sf.Set("GracefulShutdownFilterShutdownConfig", cfg)
	u, _ := common.NewURL("dubbo://127.0.0.1:8/demo.Svc")
	inner := &blockingInvoker{url: u, release: make(chan struct{})}
	done := make(chan result.Result)
	go func() {
		done <- f.Invoke(context.Background(), inner, invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("m")))
	}()
	for cfg.ConsumerActiveCount.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	close(inner.release)
	if r := <-done; r.Error() != nil {
		t.Fatalf("call through the filter failed: %v", r.Error())
	}
	if n := cfg.ConsumerActiveCount.Load(); n != 0 {
		t.Fatalf("calls in flight after the call returned: %d", n)
	}
}
