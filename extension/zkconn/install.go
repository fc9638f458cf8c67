package zkconn

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"github.com/dubbogo/gost/log/logger"

	// dubbo-go's ZooKeeper config center registers its factory first; it
	// is wrapped below.
	_ "dubbo.apache.org/dubbo-go/v3/config_center/zookeeper"
)

// Register wraps dubbo-go's ZooKeeper config-center factory so that
// dubbo-go's client is prepared (credentials, TLS) before the config center
// creates it; the config center is the first ZooKeeper client dubbo.Load
// creates. Package extension's init calls it once, in its documented
// order; it is not idempotent (wrapping the factory twice would prepare
// every client twice).
func Register() {
	orig, err := dgext.GetConfigCenterFactory("zookeeper")
	if err != nil || orig == nil {
		return
	}
	w := configCenterFactory{orig}
	dgext.SetConfigCenterFactory("zookeeper", func() config_center.DynamicConfigurationFactory { return w })
}

type configCenterFactory struct {
	config_center.DynamicConfigurationFactory
}

// GetDynamicConfiguration implements config_center.DynamicConfigurationFactory.
func (f configCenterFactory) GetDynamicConfiguration(u *common.URL) (config_center.DynamicConfiguration, error) {
	if err := Prepare(u); err != nil {
		logger.Errorf("[dubboroute] config center %s: %v", Redact(u), err)
	}
	return f.DynamicConfigurationFactory.GetDynamicConfiguration(u)
}

// FailedInvoker is the invoker of a reference that dubbo-go could not
// build after its registry refused to list its providers: every call fails
// with err, and it is never available.
type FailedInvoker struct {
	*base.BaseInvoker
	err error
}

// NewFailedInvoker returns a FailedInvoker for the reference URL u.
func NewFailedInvoker(u *common.URL, err error) *FailedInvoker {
	return &FailedInvoker{BaseInvoker: base.NewBaseInvoker(u), err: err}
}

// IsAvailable implements base.Invoker.
func (f *FailedInvoker) IsAvailable() bool { return false }

// Invoke implements base.Invoker.
func (f *FailedInvoker) Invoke(context.Context, base.Invocation) result.Result {
	return &result.RPCResult{Err: f.err}
}

// Err is the error every call fails with.
func (f *FailedInvoker) Err() error { return f.err }

// regateEvery bounds how often a gated reference asks ZooKeeper again.
const regateEvery = 5 * time.Second

// Gate wraps the invoker of a reference whose registry refused to list its
// providers (Probe's err): while the refusal lasts, calls fail with it (not
// with "no provider available") and the reference is not available; the
// first call after regateEvery probes again, and once the identity may
// list the providers calls go to inner. Healthy calls cost one atomic load.
func Gate(inner base.Invoker, ru, sub *common.URL, err error) base.Invoker {
	g := &gate{Invoker: inner, ru: ru, sub: sub}
	g.err.Store(&gateErr{err: err, next: time.Now().Add(regateEvery)})
	return g
}

type gate struct {
	base.Invoker
	ru, sub *common.URL
	err     atomic.Pointer[gateErr] // nil once the probe passes
	mu      sync.Mutex              // one probe at a time
}

type gateErr struct {
	err  error
	next time.Time
}

// refused is the current refusal, probing again when it is due.
func (g *gate) refused() error {
	e := g.err.Load()
	if e == nil {
		return nil
	}
	if time.Now().Before(e.next) || !g.mu.TryLock() {
		return e.err
	}
	defer g.mu.Unlock()
	if err := Probe(g.ru, g.sub); err != nil {
		g.err.Store(&gateErr{err: e.err, next: time.Now().Add(regateEvery)})
		return e.err
	}
	g.err.Store(nil)
	logger.Infof("[dubboroute] reference %s: its registry lists the providers again; calls go through", g.sub.Service())
	return nil
}

// IsAvailable implements base.Invoker.
func (g *gate) IsAvailable() bool { return g.refused() == nil && g.Invoker.IsAvailable() }

// Invoke implements base.Invoker.
func (g *gate) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	if err := g.refused(); err != nil {
		return &result.RPCResult{Err: err}
	}
	return g.Invoker.Invoke(ctx, inv)
}
