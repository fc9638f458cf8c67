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

func registerInstall() {
	// The four factories replaced here are the ones replacedFactory names.
	dgext.SetRouterFactory(constant.TagRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return tapFactory{} })
	dgext.SetRouterFactory(constant.ConditionServiceRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return offFactory{} })
	dgext.SetRouterFactory(constant.ConditionAppRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return offFactory{} })
	// Script rules run in dubboroute's chain (router/script); dubbo-go's
	// own script router is not built (it would run them a second time).
	dgext.SetRouterFactory(constant.ScriptRouterFactoryKey, func() dgrouter.PriorityRouterFactory { return offFactory{} })
	// Every cluster dubbo-go v3.3.2 ships installs dubboroute's chain.
	for _, name := range strategies.DubboGoNames() {
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
	interfaceLevel := installing(discovery.Followed(discovery.Protected(discovery.Observed(regdir.NewRegistryDirectory))))
	dgext.SetDefaultRegistryDirectory(interfaceLevel)
	dgext.SetDirectory(constant.RegistryProtocol, interfaceLevel)
	// dubbo-go looks a directory up by the registry URL's protocol
	// (zookeeper, nacos, ...) and, finding none, logs "registry directory
	// zookeeper does not exist, make sure you have import the package"
	// before using the default: the interface-level directory is
	// registered under every registry protocol dubbo-go v3.3.2 ships, so
	// the interface-level subscriptions of application-level references
	// (APPLICATION_FIRST) do not log it.
	for _, p := range []string{"zookeeper", constant.NacosKey, "etcdv3", constant.PolarisKey} {
		dgext.SetDirectory(p, interfaceLevel)
	}
	dgext.SetDirectory(constant.ServiceRegistryProtocol, installing(discovery.JavaView(discovery.Observed(regdir.NewServiceDiscoveryRegistryDirectory))))
	dgext.SetLoadbalance(GrayName, func() loadbalance.LoadBalance { return grayMetricsLB{} })
}

// wrapCluster puts a cluster behind the chain install and lanes.
func wrapCluster(name string, c dgcluster.Cluster) dgcluster.Cluster {
	return &clusterWrapper{name: name, inner: c}
}

// installing makes a directory constructor bind every directory it
// builds: the binding is created first, from the directory URL, and handed
// to dubbo-go's router chain builder through the URL's bindingAttr
// attribute (dubbo-go builds the chain inside the constructor and delivers
// the first providers to it before returning: the tap router forwards
// them); then the binding's chain replaces dubbo-go's, and the directory
// goes on wrapped, with its binding.
func installing(newDir discovery.DirFactory) discovery.DirFactory {
	return func(u *common.URL, r registry.Registry) (directory.Directory, error) {
		warmProtocols.Do(warmProtocolSingletons)
		strategies.EnsureCluster(u, wrapCluster) // unknown cluster names: failover, not a nil invoker
		if u == nil {
			return newDir(u, r)
		}
		b := newBinding(u)
		recordForeignFactories()
		u.SetAttribute(bindingAttr, b)
		dir, err := newDir(u, r)
		u.DeleteAttribute(bindingAttr)
		if dir == nil {
			b.release()
			return dir, err
		}
		return bind(dir, b), err
	}
}

// bindingAttr is the directory URL attribute that carries the binding to
// the tap router while dubbo-go builds the directory.
const bindingAttr = "dubboroute.binding"

// warmProtocols creates dubbo-go's protocol singletons once, on the
// goroutine that builds the first registry directory, before any
// subscription goroutine exists. Package state because dubbo-go's protocol
// singletons are process-wide and the directories are built through
// dubbo-go's process-wide extension registry, which passes no context.
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

// tapFactory replaces dubbo-go's "tag" router factory: in the chain
// dubbo-go builds inside a directory that installing binds, a tapRouter
// forwards the providers delivered during construction to the binding;
// other chains (static directories, which Join binds) get nothing.
type tapFactory struct{}

// NewPriorityRouter implements dubbo-go's PriorityRouterFactory.
func (tapFactory) NewPriorityRouter(u *common.URL) (dgrouter.PriorityRouter, error) {
	if u == nil {
		return nil, nil
	}
	if v, ok := u.GetAttribute(bindingAttr); ok {
		if b, ok := v.(*Binding); ok {
			return &tapRouter{b: b, url: u}, nil
		}
	}
	return nil, nil
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

// Join implements dubbo-go's cluster.Cluster: the strategy joins the bound
// directory (a registry directory bound when it was built, or a static
// one of direct URLs bound here); a join of registries is passed through.
func (w *clusterWrapper) Join(dir directory.Directory) base.Invoker {
	bd, _ := dir.(*boundDirectory)
	switch {
	case bd != nil:
	case joinsRegistries(dir):
		passThrough(dir)
	default:
		bd = bindStatic(dir)
	}
	joined := dir
	if bd != nil {
		joined = bd
	}
	ivk := w.inner.Join(joined)
	if ivk == nil {
		return nil
	}
	if bd != nil {
		ivk = &releasingInvoker{Invoker: ivk, b: bd.b, dir: bd.Directory}
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
// join by one that returns the per-registry invokers unchanged.
func passThrough(dir directory.Directory) {
	h, ok := dir.(chainHolder)
	if !ok {
		return
	}
	if _, done := h.RouterChain().(passChain); done {
		return
	}
	all := staticInvokers(dir, h)
	h.SetRouterChain(passChain{invokers: all})
	logger.Debugf("[dubboroute] %s: %d registries joined; routing happens inside each registry's directory", dir.GetURL().Service(), len(all))
}

// staticInvokers are a static directory's invokers: its List without a
// router chain returns them all.
func staticInvokers(dir directory.Directory, h chainHolder) []base.Invoker {
	h.SetRouterChain(nil)
	return dir.List(invocation.NewRPCInvocation("", nil, nil))
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

// bind installs b's chain in dir (in place of the chain dubbo-go built)
// and returns dir with its binding.
func bind(dir directory.Directory, b *Binding) *boundDirectory {
	if h, ok := dir.(chainHolder); ok {
		h.SetRouterChain(&dgChain{b: b})
	} else {
		logger.Warnf("[dubboroute] directory %T of %s does not expose its router chain; its List routes without dubboroute (the cluster strategies still route)", dir, b.iface)
	}
	b.installed.Store(true)
	leaveClosingRegistry(dir)
	return &boundDirectory{Directory: dir, b: b}
}

// bindStatic binds a static directory (direct URLs): a binding from its
// URL (the first invoker's, as dubbo-go builds its chain), fed its
// invokers. nil if the directory does not expose its router chain.
func bindStatic(dir directory.Directory) *boundDirectory {
	h, ok := dir.(chainHolder)
	if !ok || dir.GetURL() == nil {
		logger.Warnf("[dubboroute] directory %T has no URL or router chain; dubbo-go routes it", dir)
		return nil
	}
	invokers := staticInvokers(dir, h)
	b := newBinding(dir.GetURL())
	b.direct = true
	bd := bind(dir, b)
	b.setInvokers(invokers)
	return bd
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
