package strategies

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/protocolwrapper"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
)

// DrainTimeout bounds how long a provider invoker the registry removed
// waits for its calls in flight before it is destroyed (Java's DubboInvoker
// closes its client gracefully, waiting for pending requests up to
// dubbo.service.shutdown.wait, 10 s). A package variable because it is a
// process setting (set before dubbo.Load) read by the draining protocol,
// which dubbo-go's process-wide protocol registry makes with no context.
var DrainTimeout = 10 * time.Second

// registerDraining wraps dubbo-go's "filter" protocol, through which every
// registry directory refers its provider invokers, so that a provider
// invoker's Destroy waits for the calls in flight on it. dubbo-go destroys
// a removed provider's invoker at once, which closes the connection under
// those calls: each waits for its timeout and fails, although the provider
// (leaving gracefully) would have answered it. Application-level
// directories remove a provider the moment it unregisters.
func registerDraining() {
	registerShutdownFilter()
	dgext.SetProtocol(protocolwrapper.FILTER, func() base.Protocol {
		return &drainingProtocol{Protocol: protocolwrapper.GetProtocol()}
	})
}

// drainingProtocol is dubbo-go's filter protocol whose references drain.
type drainingProtocol struct{ base.Protocol }

// Refer implements base.Protocol.
func (p *drainingProtocol) Refer(u *common.URL) base.Invoker {
	ivk := p.Protocol.Refer(u)
	if ivk == nil {
		return nil
	}
	return &drainingInvoker{Invoker: ivk}
}

// drainingInvoker counts the calls in flight on a provider invoker and
// defers its Destroy until they are done (at most DrainTimeout).
type drainingInvoker struct {
	base.Invoker
	inflight   atomic.Int64
	destroying atomic.Bool
	once       sync.Once
}

// Invoke implements base.Invoker.
func (d *drainingInvoker) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	d.inflight.Add(1)
	defer d.inflight.Add(-1)
	return d.Invoker.Invoke(ctx, inv)
}

// IsAvailable implements base.Invoker: false once destroying.
func (d *drainingInvoker) IsAvailable() bool {
	return !d.destroying.Load() && d.Invoker.IsAvailable()
}

// Destroy implements base.Invoker: at once without calls in flight, else
// in the background once they are done or DrainTimeout passed.
func (d *drainingInvoker) Destroy() {
	d.destroying.Store(true)
	if d.inflight.Load() == 0 {
		d.once.Do(d.Invoker.Destroy)
		return
	}
	go func() {
		deadline := time.Now().Add(DrainTimeout)
		for d.inflight.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		d.once.Do(d.Invoker.Destroy)
	}()
}
