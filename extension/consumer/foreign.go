package consumer

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/global"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"github.com/dubbogo/gost/log/logger"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/router"
)

// Foreign routers are the routers dubbo-go builds for a directory that
// dubboroute does not replace: a Polaris router, an application's own
// PriorityRouterFactory, routers added with Chain.AddRouters. dubbo-go
// alone runs them in its chain; with dubboroute they run after
// dubboroute's chain, in dubbo-go's priority order (lowest first), get
// dubbo-go's Notify with every provider list, and show in explain as
// steps "foreign:<type>" with in→out. A foreign router that panics routes
// nothing (its input passes on) and is counted and logged once; one that
// is slow is counted (Go cannot preempt it).

// replacedFactory reports whether dubboroute registers the router factory
// of that name in dubbo-go's place (registerInstall): its routers are not
// foreign.
func replacedFactory(name string) bool {
	switch name {
	case constant.TagRouterFactoryKey, constant.ConditionServiceRouterFactoryKey, constant.ConditionAppRouterFactoryKey, constant.ScriptRouterFactoryKey:
		return true
	}
	return false
}

// ForeignSlow is how long a foreign router may take on one call before the
// call is counted as slow in dubboroute_foreign_router_slow_total.
const ForeignSlow = 10 * time.Millisecond

// foreignCounters are the foreign routers' counters. Package state because
// Prometheus collectors are registered once per process
// (extension.Collectors hands them to the application's registry) and
// every binding's foreign routers count into them.
var foreignCounters = struct {
	panics, slow *prometheus.CounterVec
}{
	panics: metrics.CounterVec("foreign_router_panics_total",
		"Panics of routers dubbo-go built that dubboroute does not replace (Polaris, applications' own), contained: the router's input passed on.",
		"service", "router"),
	slow: metrics.CounterVec("foreign_router_slow_total",
		"Calls on which a foreign router took longer than 10 ms.",
		"service", "router"),
}

// Collectors are the foreign routers' collectors.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{foreignCounters.panics, foreignCounters.slow}
}

// recordingFactory wraps a router factory dubboroute does not replace: the
// routers it builds inside a directory that installing binds are recorded
// as the binding's foreign routers.
type recordingFactory struct {
	name  string
	inner dgrouter.PriorityRouterFactory
}

// NewPriorityRouter implements dubbo-go's PriorityRouterFactory.
func (f recordingFactory) NewPriorityRouter(u *common.URL) (dgrouter.PriorityRouter, error) {
	r, err := f.inner.NewPriorityRouter(u)
	if err != nil || r == nil || u == nil {
		return r, err
	}
	if f.name == constant.PluginPolarisRouterFactory && !polarisRegistry(u) {
		// dubbo-go's Polaris router routes nothing without a Polaris
		// registry (its Route returns its input): not run.
		return r, err
	}
	if v, ok := u.GetAttribute(bindingAttr); ok {
		if b, ok := v.(*Binding); ok {
			b.addForeign(f.name, r)
		}
	}
	return r, err
}

// polarisRegistry reports whether the application configures a Polaris
// registry (the registries on the directory URL, where dubbo-go's Polaris
// router reads them): only then does dubbo-go open its Polaris ability and
// the router route.
func polarisRegistry(u *common.URL) bool {
	for _, x := range []*common.URL{u, u.SubURL} {
		if x == nil {
			continue
		}
		if raw, ok := x.GetAttribute(constant.RegistriesConfigKey); ok {
			if regs, ok := raw.(map[string]*global.RegistryConfig); ok {
				for _, r := range regs {
					if r != nil && r.Protocol == constant.PolarisKey {
						return true
					}
				}
			}
		}
	}
	return false
}

// recordMu serialises the wrapping of dubbo-go's router factory registry:
// package state because that registry is process-wide and the directories
// that wrap it are built by dubbo-go, which passes no context.
var recordMu sync.Mutex

// recordForeignFactories wraps every registered router factory that
// dubboroute does not replace, once (factories registered later, e.g. by
// an application's init after dubboroute's, are wrapped at the next
// directory).
func recordForeignFactories() {
	recordMu.Lock()
	defer recordMu.Unlock()
	for name, mk := range dgext.GetRouterFactories() {
		if replacedFactory(name) {
			continue
		}
		if _, done := mk().(recordingFactory); done {
			continue
		}
		name, mk := name, mk
		dgext.SetRouterFactory(name, func() dgrouter.PriorityRouterFactory {
			return recordingFactory{name: name, inner: mk()}
		})
	}
}

// foreignRouter is one foreign router of a binding.
type foreignRouter struct {
	name   string // the factory's name, or "added" for AddRouters
	r      dgrouter.PriorityRouter
	label  string // explain's step name
	logged atomic.Bool
}

// foreignSet is a binding's foreign routers, in priority order; replaced
// whole on a change (read lock-free on the call path).
type foreignSet struct{ routers []*foreignRouter }

func (b *Binding) addForeign(name string, rs ...dgrouter.PriorityRouter) {
	b.foreignMu.Lock()
	defer b.foreignMu.Unlock()
	var cur []*foreignRouter
	if s := b.foreign.Load(); s != nil {
		cur = s.routers
	}
	next := append([]*foreignRouter(nil), cur...)
	for _, r := range rs {
		if r == nil {
			continue
		}
		next = append(next, &foreignRouter{name: name, r: r, label: fmt.Sprintf("foreign:%T", r)})
		logger.Infof("[dubboroute] %s: dubbo-go router %T (%s, priority %d) runs after dubboroute's chain", b.iface, r, name, r.Priority())
	}
	sort.SliceStable(next, func(i, j int) bool { return next[i].r.Priority() < next[j].r.Priority() })
	b.foreign.Store(&foreignSet{routers: next})
	if invs := b.chain.Snapshot().Invokers; len(invs) > 0 {
		for _, fr := range next[len(cur):] {
			b.notifyForeign(fr, invs)
		}
	}
}

// ForeignRouters names the binding's foreign routers, in the order they run.
func (b *Binding) ForeignRouters() []string {
	s := b.foreign.Load()
	if s == nil {
		return nil
	}
	out := make([]string, len(s.routers))
	for i, fr := range s.routers {
		out[i] = fr.label
	}
	return out
}

// routeForeign runs the foreign routers over out (dubboroute's result) and
// records their steps in trace (nil: none). Without foreign routers it is
// one atomic load.
func (b *Binding) routeForeign(out []base.Invoker, inv base.Invocation, trace *router.Trace) []base.Invoker {
	s := b.foreign.Load()
	if s == nil || len(s.routers) == 0 || len(out) == 0 {
		return out
	}
	// The chain's lists are shared: a foreign router gets a copy.
	out = append([]base.Invoker(nil), out...)
	for _, fr := range s.routers {
		in := len(out)
		out = b.callForeign(fr, out, inv)
		if trace != nil {
			trace.Add(router.Step{Router: fr.label, Key: fr.name, In: in, Out: len(out), Branch: router.BranchMatched})
		}
		if len(out) == 0 {
			break
		}
	}
	return out
}

func (b *Binding) callForeign(fr *foreignRouter, in []base.Invoker, inv base.Invocation) (out []base.Invoker) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			foreignCounters.panics.WithLabelValues(b.iface, fr.label).Inc()
			if !fr.logged.Swap(true) {
				logger.Errorf("[dubboroute] %s: dubbo-go router %s panicked: %v; its input passes on (counted in dubboroute_foreign_router_panics_total, logged once)", b.iface, fr.label, p)
			}
			out = in
		}
		if time.Since(start) > ForeignSlow {
			foreignCounters.slow.WithLabelValues(b.iface, fr.label).Inc()
		}
	}()
	return fr.r.Route(in, b.url, inv)
}

// notifyForeign hands a provider list to a foreign router, a panic
// contained.
func (b *Binding) notifyForeign(fr *foreignRouter, invokers []base.Invoker) {
	defer func() {
		if p := recover(); p != nil {
			foreignCounters.panics.WithLabelValues(b.iface, fr.label).Inc()
			if !fr.logged.Swap(true) {
				logger.Errorf("[dubboroute] %s: dubbo-go router %s panicked on Notify: %v (logged once)", b.iface, fr.label, p)
			}
		}
	}()
	fr.r.Notify(invokers)
}

// notifyAllForeign hands a new provider list to every foreign router.
func (b *Binding) notifyAllForeign(invokers []base.Invoker) {
	s := b.foreign.Load()
	if s == nil {
		return
	}
	for _, fr := range s.routers {
		b.notifyForeign(fr, invokers)
	}
}
