package consumer

import (
	"sync"

	dgcluster "dubbo.apache.org/dubbo-go/v3/cluster/cluster"
	"dubbo.apache.org/dubbo-go/v3/cluster/directory"
	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/graceful_shutdown"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/registry"
	regdir "dubbo.apache.org/dubbo-go/v3/registry/directory"
	"github.com/dubbogo/gost/log/logger"

	// Run every built-in router and cluster init before ours, so that our
	// registrations overwrite theirs whatever the application imports.
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/adaptivesvc"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/available"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/broadcast"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/failback"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/failfast"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/failover"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/failsafe"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/forking"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/cluster/zoneaware"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/random"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/router/condition"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/router/script"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/router/tag"

	"github.com/dubboroute/dubboroute/extension/discovery"
	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/extension/lane"
	"github.com/dubboroute/dubboroute/extension/strategies"
	graylb "github.com/dubboroute/dubboroute/loadbalance/gray/dubbogo"
)

// GrayName is the load balancer name of the gray balancer.
const GrayName = "gray"

// ClusterNames are the cluster strategies whose Join installs dubboroute's
// chain (every strategy dubbo-go v3.3.2 ships).
var ClusterNames = []string{
	constant.ClusterKeyFailover, constant.ClusterKeyFailfast, constant.ClusterKeyFailsafe,
	constant.ClusterKeyFailback, constant.ClusterKeyForking, constant.ClusterKeyBroadcast,
	constant.ClusterKeyAvailable, constant.ClusterKeyZoneAware, constant.ClusterKeyAdaptiveService,
}

func registerInstall() {
	dgext.SetRouterFactory(constant.TagRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return bindingFactory{} })
	dgext.SetRouterFactory(constant.ConditionServiceRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return offFactory{} })
	dgext.SetRouterFactory(constant.ConditionAppRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return offFactory{} })
	// dubbo-go's chain is swapped out of every directory, so its script
	// router would never route; do not build it (it logs an error per
	// reference when no script rule exists).
	dgext.SetRouterFactory(constant.ScriptRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return offFactory{} })
	for _, name := range ClusterNames {
		if strategies.Strategy(name) != "" {
			continue // dubboroute's own strategy, registered below
		}
		inner, err := dgext.GetCluster(name)
		if err != nil || inner == nil {
			logger.Warnf("[dubboroute] cluster %s not available: %v", name, err)
			continue
		}
		dgext.SetCluster(name, func() dgcluster.Cluster { return &clusterWrapper{name: name, inner: inner} })
	}
	// dubboroute's cluster strategies (Java 3.3.6's semantics and mock),
	// under Java's names and dubbo-go's, behind the same chain install.
	strategies.Register(wrapCluster)
	// Registry directories get dubboroute's chain as soon as dubbo-go has
	// built them, before their subscription goroutine starts (swapping later
	// would race with it: base.Directory.RouterChain reads without a lock).
	// dubbo-go looks directories up by the registry's protocol and falls back
	// to the default, which is what interface-level registries use.
	dgext.SetDefaultRegistryDirectory(installing(discovery.Followed(discovery.Protected(discovery.Observed(regdir.NewRegistryDirectory)))))
	dgext.SetDirectory(constant.RegistryProtocol, installing(discovery.Followed(discovery.Protected(discovery.Observed(regdir.NewRegistryDirectory)))))
	dgext.SetDirectory(constant.ServiceRegistryProtocol, installing(discovery.JavaView(discovery.Observed(regdir.NewServiceDiscoveryRegistryDirectory))))
	dgext.SetLoadbalance(GrayName, func() loadbalance.LoadBalance { return grayMetricsLB{} })
}

// wrapCluster puts a cluster behind the chain install and lanes.
func wrapCluster(name string, c dgcluster.Cluster) dgcluster.Cluster {
	return &clusterWrapper{name: name, inner: c}
}

// installing makes a directory constructor install the binding's chain in
// every directory it builds.
func installing(newDir discovery.DirFactory) discovery.DirFactory {
	return func(u *common.URL, r registry.Registry) (directory.Directory, error) {
		warmProtocols.Do(warmProtocolSingletons)
		strategies.EnsureCluster(u, wrapCluster) // unknown cluster names: failover, not a nil invoker
		dir, err := newDir(u, r)
		if err == nil && dir != nil {
			Install(dir)
		}
		return dir, err
	}
}

// warmProtocols creates dubbo-go's protocol singletons once, on the
// goroutine that builds the first registry directory, before any
// subscription goroutine exists.
var warmProtocols sync.Once

// warmProtocolSingletons: dubbo-go v3.3.2 creates the dubbo protocol
// lazily and without a lock (tri uses a sync.Once) (protocol/dubbo.GetProtocol: "if
// dubboProtocol == nil { dubboProtocol = NewDubboProtocol() }"). A
// directory's subscription goroutine refers its first providers through it
// while dubbo.Load's provider goroutine exports the metadata service through
// it, so two goroutines could each create one (found by the race detector in
// the README quickstart built with -race: exit status 66). Creating them
// here, before either goroutine starts, leaves both only reading. Skipped
// when the program did not import the dubbo protocol.
func warmProtocolSingletons() {
	defer func() { _ = recover() }() // dgext.GetProtocol panics for a protocol not imported
	dgext.GetProtocol(constant.DubboProtocol)
}

// bindingFactory replaces dubbo-go's "tag" router factory: every router
// chain dubbo-go builds gets one binding router.
type bindingFactory struct{}

// NewPriorityRouter implements dubbo-go's PriorityRouterFactory.
func (bindingFactory) NewPriorityRouter(u *common.URL) (dgrouter.PriorityRouter, error) {
	if u == nil {
		return nil, nil
	}
	return &bindingRouter{b: newBinding(u)}, nil
}

// offFactory replaces dubbo-go's condition router factories: (nil, nil)
// makes dubbo-go's chain builder skip the router.
type offFactory struct{}

// NewPriorityRouter implements dubbo-go's PriorityRouterFactory.
func (offFactory) NewPriorityRouter(*common.URL) (dgrouter.PriorityRouter, error) { return nil, nil }

// clusterWrapper puts dubboroute's chain into the directory before the
// wrapped strategy joins it: the static (direct-URL) directories, which no
// goroutine uses before Join, and any directory built some other way.
type clusterWrapper struct {
	name  string
	inner dgcluster.Cluster
}

type chainHolder interface {
	RouterChain() dgrouter.Chain
	SetRouterChain(dgrouter.Chain)
}

// Join implements dubbo-go's cluster.Cluster.
func (w *clusterWrapper) Join(dir directory.Directory) base.Invoker {
	var b *Binding
	if joinsRegistries(dir) {
		passThrough(dir)
	} else {
		b = Install(dir)
	}
	ivk := w.inner.Join(dir)
	if ivk == nil {
		return nil
	}
	if b != nil {
		ivk = &releasingInvoker{Invoker: ivk, b: b, dir: dir}
	}
	return lane.ClusterInvoker(ivk)
}

// releasingInvoker releases a reference's binding when dubbo-go destroys
// the reference's cluster invoker (which destroys the directory, whose
// unsubscription ends its empty protection and provider watch): the rule
// subscriptions are cancelled, the startup timer stopped, and the binding
// leaves Bindings (TestReferenceDestroyReleases).
type releasingInvoker struct {
	base.Invoker
	b   *Binding
	dir directory.Directory
}

// Destroy implements base.Invoker.
func (r *releasingInvoker) Destroy() {
	r.Invoker.Destroy()
	r.b.release()
	discovery.ReleaseDirectoryListeners(r.dir)
}

// joinsRegistries reports whether dir is dubbo-go's outer join of one
// cluster invoker per registry (registry-type all, or several registries):
// a static directory whose invokers carry registry URLs. Only the provider
// lists inside each registry's directory are routed; this outer list is a
// choice between registries (zone-aware), and routing it would match rules
// against registry addresses and take the consumer for the provider app.
func joinsRegistries(dir directory.Directory) bool {
	switch dir.(type) {
	case *regdir.RegistryDirectory, *regdir.ServiceDiscoveryRegistryDirectory:
		return false
	}
	u := dir.GetURL()
	return u != nil && (u.Protocol == constant.RegistryProtocol || u.Protocol == constant.ServiceRegistryProtocol)
}

// passThrough replaces the router chain dubbo-go built for a registry-level
// join by one that returns the per-registry invokers unchanged, and
// releases the binding dubbo-go's chain created for it.
func passThrough(dir directory.Directory) {
	h, ok := dir.(chainHolder)
	if !ok {
		return
	}
	cur := h.RouterChain()
	if cur == nil {
		return
	}
	if _, done := cur.(passChain); done {
		return
	}
	p := &probe{}
	inv := invocation.NewRPCInvocation("$dubboroute.probe", nil, nil)
	inv.SetAttribute(probeKey, p)
	all := cur.Route(dir.GetURL(), inv)
	if p.b != nil {
		p.b.release()
	}
	h.SetRouterChain(passChain{invokers: all})
	logger.Debugf("[dubboroute] %s: %d registries joined; routing happens inside each registry's directory", dir.GetURL().Service(), len(all))
}

// passChain is the router chain of a registry-level join: no routing.
type passChain struct{ invokers []base.Invoker }

// Route implements dubbo-go's router.Chain.
func (c passChain) Route(*common.URL, base.Invocation) []base.Invoker { return c.invokers }

// SetInvokers implements dubbo-go's router.Chain; a static join's invokers
// never change.
func (passChain) SetInvokers([]base.Invoker) {}

// AddRouters implements dubbo-go's router.Chain.
func (passChain) AddRouters([]dgrouter.PriorityRouter) {}

// Install replaces the dubbo-go RouterChain of a directory (registry or
// static) by its dubboroute binding's chain and returns the binding; nil if
// the directory has no binding (for example when dubbo-go could not build
// its chain) or does not expose its chain.
func Install(dir directory.Directory) *Binding {
	h, ok := dir.(chainHolder)
	if !ok {
		return nil
	}
	cur := h.RouterChain()
	if c, ok := cur.(*dgChain); ok {
		return c.b
	}
	if cur == nil || dir.GetURL() == nil {
		return nil
	}
	p := &probe{}
	inv := invocation.NewRPCInvocation("$dubboroute.probe", nil, nil)
	inv.SetAttribute(probeKey, p)
	cur.Route(dir.GetURL(), inv)
	if p.b == nil {
		logger.Warnf("[dubboroute] directory %s has no dubboroute binding; dubbo-go's router chain stays", dir.GetURL().Service())
		return nil
	}
	h.SetRouterChain(&dgChain{b: p.b})
	leaveClosingRegistry(dir)
	return p.b
}

// leaveClosingRegistry takes a directory dubboroute routes out of dubbo-go's
// closing-instance registry. There, a consumer that receives a provider's
// "closing" announcement removes that provider from the directory at once
// and destroys its invoker, which loses the calls still in flight on it
// (they time out), and keeps a 30 s tombstone that, at application level,
// ignores the provider restarted on the same address. dubboroute's
// strategies instead stop picking a closing provider (its calls in flight
// finish) and the registry's delete removes it (extension/strategies,
// docs/availability.md).
func leaveClosingRegistry(dir directory.Directory) {
	var rd *regdir.RegistryDirectory
	switch d := dir.(type) {
	case *regdir.RegistryDirectory:
		rd = d
	case *regdir.ServiceDiscoveryRegistryDirectory:
		rd = d.RegistryDirectory
	default:
		return
	}
	if rd == nil {
		return
	}
	u := rd.GetURL()
	if u == nil {
		return
	}
	key := u.ServiceKey()
	if key == "" && u.SubURL != nil {
		key = u.SubURL.ServiceKey()
	}
	graceful_shutdown.DefaultClosingDirectoryRegistry().Unregister(key, rd)
}

// grayMetricsLB counts picks and delegates to the gray balancer.
type grayMetricsLB struct{}

// Select implements dubbo-go's loadbalance.LoadBalance.
func (grayMetricsLB) Select(invokers []base.Invoker, inv base.Invocation) base.Invoker {
	ivk := shared.GrayLB.Select(invokers, inv)
	class := "normal"
	if len(invokers) == 1 {
		class = "single"
	} else if v, ok := inv.GetAttribute(graylb.RetryAttribute); ok {
		if g, _ := v.(bool); g {
			class = "gray"
		}
	}
	metrics.GrayPick(class).Inc()
	return ivk
}
