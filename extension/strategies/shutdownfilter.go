package strategies

import (
	"context"
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/filter"
	// dubbo-go's own consumer filter registers first; ours replaces it.
	_ "dubbo.apache.org/dubbo-go/v3/filter/graceful_shutdown"
	"dubbo.apache.org/dubbo-go/v3/global"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
)

// consumerShutdownFilter replaces dubbo-go's consumer graceful-shutdown
// filter ("cshutdown"). It keeps what the consumer's own graceful shutdown
// needs (the count of calls in flight, which dubbo-go's shutdown waits
// for) and drops its reaction to a closing provider: dubbo-go remembers a
// closing provider by its URL text for 30 s and refuses every call to that
// URL ("provider is closing"), also to the provider restarted with the same
// URL (on Nacos every restart: 767 of 2,200 calls failed in a rolling
// restart of three providers), and removes it from its directory at once.
// The strategies stop picking a closing provider per invoker instead
// (health.go), and the registry removes it.
type consumerShutdownFilter struct {
	mu  sync.RWMutex
	cfg *global.ShutdownConfig
}

// registerShutdownFilter registers one consumerShutdownFilter as dubbo-go's
// consumer shutdown filter: every lookup gets that one (dubbo-go's graceful
// shutdown sets its configuration on the filter it looks up, and the
// filter chains of the references look it up again).
func registerShutdownFilter() {
	f := &consumerShutdownFilter{}
	dgext.SetFilter(constant.GracefulShutdownConsumerFilterKey, func() filter.Filter { return f })
}

// Invoke implements filter.Filter: counts the call while it is in flight.
func (f *consumerShutdownFilter) Invoke(ctx context.Context, ivk base.Invoker, inv base.Invocation) result.Result {
	f.mu.RLock()
	cfg := f.cfg
	f.mu.RUnlock()
	if cfg == nil {
		return ivk.Invoke(ctx, inv)
	}
	cfg.ConsumerActiveCount.Inc()
	defer cfg.ConsumerActiveCount.Dec()
	return ivk.Invoke(ctx, inv)
}

// OnResponse implements filter.Filter.
func (f *consumerShutdownFilter) OnResponse(_ context.Context, r result.Result, _ base.Invoker, _ base.Invocation) result.Result {
	return r
}

// Set receives dubbo-go's shutdown configuration (graceful_shutdown.Init).
func (f *consumerShutdownFilter) Set(name string, conf any) {
	if name != constant.GracefulShutdownFilterShutdownConfig {
		return
	}
	if c, ok := conf.(*global.ShutdownConfig); ok {
		f.mu.Lock()
		f.cfg = c
		f.mu.Unlock()
	}
}
