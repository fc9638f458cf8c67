package consumer

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3/cluster/directory"
	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/extension/balancers"
	"github.com/dubboroute/dubboroute/extension/discovery"
	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/extension/internal/rulestore"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/rules"
	"github.com/dubboroute/dubboroute/rules/assembly"
)

// Binding is dubboroute's state for one consumer reference (one directory):
// its chain and the rules it subscribes.
type Binding struct {
	ref         *assembly.Reference // which keys feed which slots
	iface       string
	consumer    *router.URL
	consumerApp string
	lb          string // the reference's loadbalance as configured, "" if none
	chain       *cluster.Chain
	url         *common.URL // the URL dubbo-go built the router with

	// mu serialises the machine's events and their effects.
	mu sync.Mutex
	// m is the reference's rule wiring (rules/assembly.Machine): the
	// binding only performs its effects, against the rule store and the
	// chain.
	m        *assembly.Machine
	cancels  map[string]func() // the rule store subscriptions, by key
	watches  []func()          // the registry configurators watch
	adapted  map[base.Invoker]base.Invoker
	appCache map[string]*router.URL // providers' application-only views

	configured map[base.Invoker]*cfgInvoker
	closed     bool

	metrics *metrics.ChainMetrics
	noProv  noProviders

	// Startup: until the registry delivered the first providers (or
	// StartupWait passed since the binding was built) a call waits for them,
	// as a Java consumer's refer waits for its synchronous first notify.
	created   time.Time
	ready     atomic.Bool
	installed atomic.Bool // the binding's chain is in its directory
	// direct: the providers are direct URLs (a static directory), which
	// dubbo-go merges with the reference's parameters: their application
	// is the consumer's unless the URL names one.
	direct bool

	foreign   atomic.Pointer[foreignSet] // dubbo-go routers run after the chain (foreign.go)
	foreignMu sync.Mutex
	readyCh   chan struct{}
	readyOnce sync.Once
	settle    *time.Timer // b.mu
}

// awaitProviders blocks until the first providers arrived or StartupWait
// (extension.StartupWait) has passed since the binding was built; later calls never wait.
func (b *Binding) awaitProviders() {
	if left := *shared.Settings.StartupWait - time.Since(b.created); left > 0 {
		t := time.NewTimer(left)
		select {
		case <-b.readyCh:
		case <-t.C:
		}
		t.Stop()
	}
	b.markReady()
}

func (b *Binding) markReady() {
	b.readyOnce.Do(func() {
		b.ready.Store(true)
		close(b.readyCh)
	})
}

// Chain returns the binding's router chain (for explain and tests).
func (b *Binding) Chain() *cluster.Chain { return b.chain }

// ProviderApp is the provider application the rules were keyed by.
func (b *Binding) ProviderApp() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m.ProviderApp()
}

// bindings are the live bindings of the process, by interface (creation
// order). Package state because dubbo-go builds the directories that make
// them through its process-wide extension registry, with no context to
// hand a registry to, and inspection (Bindings, the console) reads them
// from anywhere in the process.
var bindings = struct {
	sync.Mutex
	m map[string][]*Binding
}{m: map[string][]*Binding{}}

// Bindings returns the live bindings of an interface (newest last).
func Bindings(iface string) []*Binding {
	bindings.Lock()
	defer bindings.Unlock()
	return append([]*Binding(nil), bindings.m[iface]...)
}

// NewBinding builds a binding outside a dubbo-go reference, for tools and
// tests: u is a directory URL (a registry URL whose SubURL is the reference
// URL, or in direct mode the first provider's URL). It subscribes the
// reference's rules at once; hand it providers with Notify and end it with
// Release. A reference's own binding is built by the installation, with
// its directory.
func NewBinding(u *common.URL) *Binding { return newBinding(u) }

// Notify is an address notification: the providers in registry order, as
// a directory delivers them to its router chain.
func (b *Binding) Notify(invokers []base.Invoker) { b.setInvokers(invokers) }

// SetRegistryConfigurators replaces the registry's configurator list (its
// override:// URLs, applied first): dubboroute follows ZooKeeper's itself;
// a tool, or a registry it does not follow, hands them here.
func (b *Binding) SetRegistryConfigurators(l configurator.List) { b.setList(l) }

// newBinding builds the binding of a directory URL: in registry mode the
// registry URL with the reference URL as SubURL; in direct mode the first
// (merged) invoker URL.
func newBinding(u *common.URL) *Binding {
	ref := u
	if u.SubURL != nil {
		ref = u.SubURL
	}
	consumer := consumerView(ref)
	b := &Binding{
		ref:         assembly.New(consumer),
		iface:       consumer.Interface(),
		consumer:    consumer,
		consumerApp: consumer.Application(),
		lb:          ref.GetParam(constant.LoadbalanceKey, ""),
		url:         u,
		adapted:     map[base.Invoker]base.Invoker{},
		cancels:     map[string]func(){},
		appCache:    map[string]*router.URL{},
		configured:  map[base.Invoker]*cfgInvoker{},
		created:     time.Now(),
		readyCh:     make(chan struct{}),
	}
	b.metrics = metrics.NewChainMetrics(b.iface)
	b.chain = cluster.New(consumer, cluster.Options{
		Name:         b.iface,
		Observer:     b.metrics,
		Adapt:        b.adapt,
		Configure:    b.configure,
		Dropped:      func() []cluster.Dropped { return discovery.DroppedFor(u) },
		OnNoProvider: b.noProv.add,
		OnRulePanic: func(err error) {
			logger.Errorf("[dubboroute] %v; the rule is rejected, the previous rules stay in force", err)
		},
	})
	// The machine decides which keys feed which slots: Java subscribes the
	// service and consumer-app keys (and the configurators) when the router
	// is built, the provider application's on the first address
	// notification. Java 3.3.6 compiles its affinity routers in without
	// registering them; a consumer runs them only when it asks for them.
	b.m = assembly.NewMachine(b.ref, staticRules(u, b.iface, b.consumerApp), true)
	b.mu.Lock()
	var in pending
	b.perform(b.m.Start(), &in)
	if l, ok := b.watchRegistryConfigurators(); ok {
		b.perform(b.m.Configurators(l), &in)
	}
	b.flush(&in)
	b.mu.Unlock()
	bindings.Lock()
	bindings.m[b.iface] = append(bindings.m[b.iface], b)
	bindings.Unlock()
	return b
}

// AffinityParam is the reference parameter that puts Java's service affinity
// router (order 130, key <interface>:<version>:<group>.affinity-router) in a
// consumer's chain: dubbo-go YAML params: {dubboroute.affinity: "true"}, or
// client.WithParam(extension.AffinityParam, "true").
const AffinityParam = assembly.AffinityParam

// release ends a binding that routes nothing: its rule subscriptions are
// cancelled and it leaves Bindings. Used for the chain dubbo-go builds for
// its outer join of per-registry invokers (see passThrough).
func (b *Binding) release() {
	b.mu.Lock()
	for k, c := range b.cancels {
		c()
		delete(b.cancels, k)
	}
	for _, c := range b.watches {
		c()
	}
	b.watches, b.closed = nil, true
	if b.settle != nil {
		b.settle.Stop()
		b.settle = nil
	}
	b.mu.Unlock()
	bindings.Lock()
	defer bindings.Unlock()
	list := bindings.m[b.iface]
	for i, x := range list {
		if x == b {
			bindings.m[b.iface] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(bindings.m[b.iface]) == 0 {
		delete(bindings.m, b.iface)
	}
}

// consumerView is the consumer URL routing sees, as dubbo-go's registry
// directory builds it (protocol consumer, local IP, the reference's
// parameters plus pid, ip and protocol).
func consumerView(ref *common.URL) *router.URL {
	ip := common.GetLocalIp()
	c := &router.URL{Protocol: "consumer", Host: ip}
	ref.RangeParams(func(k, v string) bool {
		c.Params.Set(k, v)
		return true
	})
	c.Params.Set("pid", strconv.Itoa(os.Getpid()))
	c.Params.Set("ip", ip)
	c.Params.Set("protocol", ref.Protocol)
	iface := ref.GetParam(constant.InterfaceKey, "")
	if iface == "" {
		iface = ref.Service()
	}
	c.Path = iface
	if c.Params.Value(constant.InterfaceKey) == "" {
		c.Params.Set(constant.InterfaceKey, iface)
	}
	return c
}

// pending is what a batch of effects hands the chain, in one update.
type pending struct {
	rules        *cluster.Rules
	cfg          **configurator.Lists
	invokers     []base.Invoker
	setInvokers  bool
	followedMesh []string
}

// perform carries out the machine's effects: drops and takes rule store
// subscriptions (a new key's rule in force is the machine's initial read)
// and collects what the chain gets. b.mu is held.
func (b *Binding) perform(e assembly.Effects, in *pending) {
	for _, key := range e.Unsubscribe {
		if c := b.cancels[key]; c != nil {
			c()
			delete(b.cancels, key)
		}
	}
	if e.Publish {
		r := e.Rules
		in.rules = &r
	}
	if e.PublishConfigurators {
		c := e.Configurators
		in.cfg = &c
	}
	for _, s := range e.Subscribe {
		key := s.Key
		if s.Kind == rules.KindMesh {
			in.followedMesh = append(in.followedMesh, key)
		}
		cur, cancel := rulestore.Subscribe(key, s.Kind, func(r cluster.RuleRef) { b.update(key, r) })
		b.cancels[key] = cancel
		b.perform(b.m.Read(key, assembly.Rule{Ref: cur}), in)
	}
}

// flush hands the collected effects to the chain in one update (new mesh
// keys and the providers they route land in one snapshot). b.mu is held.
func (b *Binding) flush(in *pending) {
	if in.rules == nil && in.cfg == nil && !in.setInvokers {
		return
	}
	b.chain.Update(func(ci *cluster.Input) {
		if in.setInvokers {
			ci.Invokers = in.invokers
		}
		if in.rules != nil {
			ci.Rules = *in.rules
		}
		if in.cfg != nil {
			ci.Configurators = *in.cfg
		}
	})
	for _, key := range in.followedMesh {
		logger.Infof("[dubboroute] %s: mesh rules of provider application %s (%s)", b.iface, strings.TrimSuffix(key, rules.MeshSuffix), key)
	}
}

// update is a rule store change of a followed key. A configurators change
// notifies the providers again, as Java's RegistryDirectory refreshes its
// invokers.
func (b *Binding) update(key string, r cluster.RuleRef) {
	b.event(func() assembly.Effects { return b.m.Update(key, assembly.Rule{Ref: r}) },
		strings.HasSuffix(key, rules.ConfiguratorsSuffix))
}

// setList replaces the registry's configurator list and notifies the
// providers again.
func (b *Binding) setList(l configurator.List) {
	b.event(func() assembly.Effects { return b.m.Configurators(l) }, true)
}

// event hands the machine one event (under the binding's lock), then, with
// refresh, the providers again; the effects go to the chain in one update.
func (b *Binding) event(ev func() assembly.Effects, refresh bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	var in pending
	app := b.m.ProviderApp()
	b.perform(ev(), &in)
	if refresh {
		b.perform(b.m.Refresh(), &in)
	}
	b.flush(&in)
	b.logFollow(app)
}

// logFollow logs the provider application the routers follow when it is
// no longer prev. b.mu is held.
func (b *Binding) logFollow(prev string) {
	if app := b.m.ProviderApp(); app != prev {
		note := ""
		if b.direct && app == b.consumerApp {
			note = "; the providers are direct URLs, which dubbo-go merges with the reference's parameters, so this is the consumer's own application unless the URLs name the provider's (application=...)"
		}
		logger.Infof("[dubboroute] %s: provider application %s (rules %s%s, %s%s, %s%s)%s", b.iface, app, app, rules.TagSuffix, app, rules.ConditionSuffix, app, rules.GraySuffix, note)
	}
}

// setInvokers is an address notification: the machine follows the
// providers' applications, and the new provider list is published with
// the rules it brought in, in one snapshot.
func (b *Binding) setInvokers(invokers []base.Invoker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	in := pending{invokers: invokers, setInvokers: true}
	app := b.m.ProviderApp()
	b.perform(b.m.Providers(b.providerURLs(invokers)), &in)
	b.flush(&in)
	b.logFollow(app)
	b.notifyAllForeign(invokers)
	if len(invokers) > 0 && !b.ready.Load() {
		if b.settle == nil {
			b.settle = time.AfterFunc(*shared.Settings.StartupSettle, b.markReady)
		} else {
			b.settle.Reset(*shared.Settings.StartupSettle)
		}
	}
}

// providerURLs is the machine's view of the providers: their full URLs
// when configurators decide which are enabled, else one shared
// application-only view per application. b.mu is held.
func (b *Binding) providerURLs(invokers []base.Invoker) []*router.URL {
	out := make([]*router.URL, 0, len(invokers))
	full := b.m.NeedsURLs()
	for _, ivk := range invokers {
		if ivk == nil || ivk.GetURL() == nil {
			continue
		}
		if full {
			out = append(out, cluster.FromDubbo(ivk.GetURL()))
			continue
		}
		app := ivk.GetURL().GetParam(constant.ApplicationKey, "")
		v := b.appCache[app]
		if v == nil {
			v = &router.URL{}
			v.Params.Set("application", app)
			b.appCache[app] = v
		}
		out = append(out, v)
	}
	return out
}

// adapt applies the balancer decision (balancers.URLFor: a configurator's
// loadbalance, else the consumer's, else the provider's; unknown names
// resolved) to an invoker's URL: dubbo-go takes the balancer from the first
// routed invoker's URL, where a provider's loadbalance=random would
// otherwise win (issue #2864), and panics on a name it lacks. Called by the
// chain under its lock, off the hot path.
func (b *Binding) adapt(ivk base.Invoker) base.Invoker {
	u := ivk.GetURL()
	c, isCfg := ivk.(*cfgInvoker)
	nu := balancers.URLFor(u, b.lb, isCfg && c.lb)
	if nu == nil {
		return ivk
	}
	if a, ok := b.adapted[ivk]; ok && a.GetURL().Location == u.Location {
		return a
	}
	a := &lbInvoker{Invoker: ivk, url: nu}
	b.adapted[ivk] = a
	return a
}

// lbInvoker is a provider invoker seen through a URL that names the
// consumer's load balancer; everything else is the provider invoker's.
type lbInvoker struct {
	base.Invoker
	url *common.URL
}

// GetURL implements common.Node.
func (l *lbInvoker) GetURL() *common.URL { return l.url }

// Unwrap returns the provider invoker.
func (l *lbInvoker) Unwrap() base.Invoker { return l.Invoker }

// tapRouter is the binding's router in the chain dubbo-go builds inside
// the directory's constructor: it forwards the providers delivered then
// (registries that load their instances synchronously) to the binding, and
// routes nothing. Once the binding's chain replaced dubbo-go's, the
// directory notifies that chain directly.
type tapRouter struct {
	b   *Binding
	url *common.URL
}

// Route implements dubbo-go's PriorityRouter: the list unchanged.
func (r *tapRouter) Route(invokers []base.Invoker, _ *common.URL, _ base.Invocation) []base.Invoker {
	return invokers
}

// URL implements dubbo-go's PriorityRouter.
func (r *tapRouter) URL() *common.URL { return r.url }

// Priority implements dubbo-go's PriorityRouter: first.
func (r *tapRouter) Priority() int64 { return -1 << 62 }

// Notify implements dubbo-go's PriorityRouter.
func (r *tapRouter) Notify(invokers []base.Invoker) {
	if !r.b.installed.Load() {
		r.b.setInvokers(invokers)
	}
}

// boundDirectory is a dubbo-go directory with its binding: what
// installation hands dubbo-go's cluster strategies. dubboroute's own
// strategies route through it (strategies.Routing): the snapshot, and a
// typed NoProviderError instead of dubbo-go's List.
type boundDirectory struct {
	directory.Directory
	b *Binding
}

// Snapshot implements strategies.Routing.
func (d *boundDirectory) Snapshot() *cluster.Snapshot { return d.b.chain.Snapshot() }

// Routed implements strategies.Routing: the routed providers, or the
// *cluster.NoProviderError with the call's trace.
func (d *boundDirectory) Routed(inv base.Invocation) ([]base.Invoker, error) {
	out, np := d.b.route(inv)
	if np != nil {
		return nil, np
	}
	return out, nil
}

// Binding returns the directory's binding.
func (d *boundDirectory) Binding() *Binding { return d.b }

// IsAvailable implements common.Node. A join of registries asks it before
// its first call reaches the directory, so until the registry delivered
// the first providers (or StartupWait passed) it waits as a call does: the
// first call of a registry-type all reference does not find every registry
// still empty.
func (d *boundDirectory) IsAvailable() bool {
	if !d.b.ready.Load() {
		d.b.awaitProviders()
	}
	return d.Directory.IsAvailable()
}

// dgChain is dubbo-go's router.Chain backed by a binding; directories call
// it directly once the cluster wrapper installed it.
type dgChain struct{ b *Binding }

// Route implements dubbo-go's router.Chain: lock-free, allocation-free
// (once the first providers arrived: see StartupWait).
func (c *dgChain) Route(_ *common.URL, inv base.Invocation) []base.Invoker {
	out, np := c.b.route(inv)
	if np != nil {
		return cluster.NoProviderList(c.b.chain.Snapshot(), np)
	}
	return out
}

// route is the binding's routing of one call: dubboroute's chain, then the
// foreign routers (foreign.go); when none is left, a NoProviderError with
// the call's trace. Until the first providers arrived (or StartupWait
// passed) it waits for them.
func (b *Binding) route(inv base.Invocation) ([]base.Invoker, *cluster.NoProviderError) {
	if !b.ready.Load() {
		b.awaitProviders()
	}
	out, np := b.chain.Routed(inv)
	if np != nil || b.foreign.Load() == nil {
		return out, np
	}
	if out = b.routeForeign(out, inv, nil); len(out) > 0 {
		return out, nil
	}
	tr := &router.Trace{}
	b.routeForeign(b.chain.Route(inv, tr), inv, tr)
	s := b.chain.Snapshot()
	return nil, &cluster.NoProviderError{Service: b.iface, Method: cluster.CallOf(inv).Method,
		Providers: len(s.Invokers), Generation: s.Generation, Trace: tr}
}

// SetInvokers implements dubbo-go's router.Chain.
func (c *dgChain) SetInvokers(invokers []base.Invoker) { c.b.setInvokers(invokers) }

// AddRouters implements dubbo-go's router.Chain: the routers run after
// dubboroute's chain, as foreign routers.
func (c *dgChain) AddRouters(rs []dgrouter.PriorityRouter) { c.b.addForeign("added", rs...) }

// Consumer is the consumer URL the binding's routers see (the
// reference's parameters as dubbo-go's registry directory builds them).
func (b *Binding) Consumer() *router.URL { return b.consumer }

// Release ends the binding: its rule subscriptions are cancelled and it
// leaves Bindings. For tools and tests that build bindings outside a
// dubbo-go reference (a reference's binding lives as long as it).
func (b *Binding) Release() { b.release() }

// ConsumerApp is the consumer application of the binding's reference.
func (b *Binding) ConsumerApp() string { return b.consumerApp }

// Explain routes a call on the binding's current snapshot with recording on
// and returns the routed invokers and the trace, without invoking anything.
// attachments may be nil.
func (b *Binding) Explain(method string, args []any, attachments map[string]any) ([]base.Invoker, *router.Trace) {
	tr := &router.Trace{}
	inv := invocation.NewRPCInvocation(method, args, attachments)
	return b.routeForeign(b.chain.Route(inv, tr), inv, tr), tr
}

// BindingFor returns the binding of an interface for a consumer application
// that its calls go through now, or nil. A reference has one binding per
// registry directory; with several (application-level and interface-level
// under APPLICATION_FIRST, or registry-type all) calls take the
// application-level list while it has providers, else one that has some, as
// the migration invoker and dubbo-go's zone-aware join do; among equals the
// newest.
func BindingFor(iface, consumerApp string) *Binding {
	bs := Bindings(iface)
	var withProviders, newest *Binding
	for i := len(bs) - 1; i >= 0; i-- {
		b := bs[i]
		if b.consumerApp != consumerApp {
			continue
		}
		if newest == nil {
			newest = b
		}
		if len(b.chain.Snapshot().Invokers) == 0 {
			continue
		}
		if b.appLevel() {
			return b
		}
		if withProviders == nil {
			withProviders = b
		}
	}
	if withProviders != nil {
		return withProviders
	}
	return newest
}

// appLevel reports whether the binding routes an application-level
// (service discovery) directory.
func (b *Binding) appLevel() bool {
	return b.url != nil && b.url.Protocol == constant.ServiceRegistryProtocol
}
