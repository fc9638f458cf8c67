package consumer

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/global"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/extension/discovery"
	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/extension/internal/rulestore"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/rules"
)

// Binding is dubboroute's state for one consumer reference (one directory):
// its chain and the rules it subscribes.
type Binding struct {
	iface       string
	consumer    *router.URL
	consumerApp string
	lb          string // the consumer's configured load balancer, "" if none
	chain       *cluster.Chain
	url         *common.URL // the URL dubbo-go built the router with

	mu          sync.Mutex
	providerApp string
	statics     staticSet
	static      cluster.Rules
	dynamic     cluster.Rules
	cancelApp   []func()
	mesh        meshSubs // <provider-app>.MESHAPPRULE of every provider application
	cancelRef   []func() // the service and consumer-app subscriptions
	adapted     map[base.Invoker]base.Invoker

	cfg        configurator.Lists // <consumer-app>.configurators, <svc>.configurators
	configured map[base.Invoker]*cfgInvoker
	closed     bool

	metrics *metrics.ChainMetrics
	noProv  noProviders

	// Startup: until the registry delivered the first providers (or
	// StartupWait passed since the binding was built) a call waits for them,
	// as a Java consumer's refer waits for its synchronous first notify.
	created   time.Time
	ready     atomic.Bool
	readyCh   chan struct{}
	readyOnce sync.Once
	settle    *time.Timer // b.mu
}

// awaitProviders blocks until the first providers arrived or StartupWait
// (extension.StartupWait) has passed since the binding was built; later calls never wait.
func (b *Binding) awaitProviders() {
	if left := *shared.StartupWait - time.Since(b.created); left > 0 {
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
	return b.providerApp
}

var (
	bindingsMu sync.Mutex
	bindings   = map[string][]*Binding{} // by interface
)

// Bindings returns the live bindings of an interface (newest last).
func Bindings(iface string) []*Binding {
	bindingsMu.Lock()
	defer bindingsMu.Unlock()
	return append([]*Binding(nil), bindings[iface]...)
}

// newBinding builds the binding for the URL dubbo-go hands a router factory:
// in registry mode the registry URL with the reference URL as SubURL; in
// direct mode the first (merged) invoker URL.
func newBinding(u *common.URL) *Binding {
	ref := u
	if u.SubURL != nil {
		ref = u.SubURL
	}
	consumer := consumerView(ref)
	b := &Binding{
		iface:       consumer.Interface(),
		consumer:    consumer,
		consumerApp: consumer.Application(),
		lb:          ref.GetParam(constant.LoadbalanceKey, ""),
		url:         u,
		adapted:     map[base.Invoker]base.Invoker{},
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
	})
	b.statics = staticRules(u, b.iface, b.consumerApp)
	b.static = b.statics.slots
	// Java subscribes the service and consumer-app keys when the router is
	// built (the provider-app keys on the first address notification).
	svc, c1 := rulestore.Subscribe(rulestore.ServiceRuleKey(consumer), rules.KindCondition, func(r cluster.RuleRef) { b.setDynamic(cluster.SlotService, r) })
	app, c2 := rulestore.Subscribe(b.consumerApp+rules.ConditionSuffix, rules.KindCondition, func(r cluster.RuleRef) {
		b.setDynamic(cluster.SlotConsumerApp, r)
		b.setDynamic(cluster.SlotProviderApp, r) // Java's ProviderAppStateRouter quirk: last changed key wins
	})
	b.cancelRef = []func(){c1, c2}
	// Java 3.3.6 compiles its affinity routers in without registering them;
	// a consumer runs the service affinity router only when it asks for it.
	if consumer.Params.Value(AffinityParam) == "true" {
		key := strings.TrimSuffix(rulestore.ServiceRuleKey(consumer), rules.ConditionSuffix) + rules.AffinitySuffix
		aff, c3 := rulestore.Subscribe(key, rules.KindAffinity, func(r cluster.RuleRef) { b.setDynamic(cluster.SlotAffinity, r) })
		b.dynamic[cluster.SlotAffinity] = aff
		b.cancelRef = append(b.cancelRef, c3)
	}
	b.dynamic[cluster.SlotService] = svc
	b.dynamic[cluster.SlotConsumerApp] = app
	b.dynamic[cluster.SlotProviderApp] = app
	b.subscribeConfigurators()
	b.publishRules()
	bindingsMu.Lock()
	bindings[b.iface] = append(bindings[b.iface], b)
	bindingsMu.Unlock()
	return b
}

// AffinityParam is the reference parameter that puts Java's service affinity
// router (order 130, key <interface>:<version>:<group>.affinity-router) in a
// consumer's chain: dubbo-go YAML params: {dubboroute.affinity: "true"}, or
// client.WithParam(extension.AffinityParam, "true").
const AffinityParam = "dubboroute.affinity"

// release ends a binding that routes nothing: its rule subscriptions are
// cancelled and it leaves Bindings. Used for the chain dubbo-go builds for
// its outer join of per-registry invokers (see passThrough).
func (b *Binding) release() {
	b.mu.Lock()
	for _, c := range append(b.cancelRef, b.cancelApp...) {
		c()
	}
	for app, c := range b.mesh.cancel {
		c()
		delete(b.mesh.cancel, app)
	}
	b.cancelRef, b.cancelApp, b.closed = nil, nil, true
	b.mu.Unlock()
	bindingsMu.Lock()
	defer bindingsMu.Unlock()
	list := bindings[b.iface]
	for i, x := range list {
		if x == b {
			bindings[b.iface] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(bindings[b.iface]) == 0 {
		delete(bindings, b.iface)
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

func (b *Binding) setDynamic(slot cluster.Slot, r cluster.RuleRef) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dynamic[slot] = r
	b.publishRules()
}

// publishRules hands the effective rules to the chain: the dynamic rule of
// a slot when one exists, else the static one. b.mu is held.
func (b *Binding) publishRules() {
	eff := b.effectiveRules()
	b.chain.Update(func(in *cluster.Input) { in.Rules = eff })
}

// effectiveRules are the dynamic rules, else the static ones; b.mu is held.
func (b *Binding) effectiveRules() cluster.Rules {
	var eff cluster.Rules
	for i := range eff {
		eff[i] = b.dynamic[i]
		if eff[i].Empty() {
			eff[i] = b.static[i]
		}
	}
	return eff
}

// setInvokers publishes the new provider list and follows the provider
// application: Java's tag and provider-app routers take the first invoker's
// remote application, after the configurators left out disabled providers
// (an empty list keeps the application followed so far).
func (b *Binding) setInvokers(invokers []base.Invoker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if b.followMeshApps(invokers) {
		// New mesh keys and the providers they route in one snapshot.
		eff := b.effectiveRules()
		b.chain.Update(func(in *cluster.Input) { in.Invokers, in.Rules = invokers, eff })
	} else {
		b.chain.SetInvokers(invokers)
	}
	app := ""
	if s := b.chain.Snapshot(); len(s.URLs) > 0 && s.URLs[0] != nil {
		app = s.URLs[0].Application()
	}
	if app != "" && app != b.providerApp {
		b.switchProviderApp(app)
	}
	if len(invokers) > 0 && !b.ready.Load() {
		if b.settle == nil {
			b.settle = time.AfterFunc(*shared.StartupSettle, b.markReady)
		} else {
			b.settle.Reset(*shared.StartupSettle)
		}
	}
}

// switchProviderApp subscribes the provider-application keys; b.mu is held.
func (b *Binding) switchProviderApp(app string) {
	for _, c := range b.cancelApp {
		c()
	}
	b.cancelApp = nil
	b.providerApp = app
	b.static[cluster.SlotTag] = b.statics.tags[app]
	if app != b.consumerApp {
		b.static[cluster.SlotProviderApp] = b.statics.providerApp[app]
	}
	logger.Infof("[dubboroute] %s: provider application %s (rules %s%s, %s%s, %s%s)", b.iface, app, app, rules.TagSuffix, app, rules.ConditionSuffix, app, rules.GraySuffix)
	tagRef, c1 := rulestore.Subscribe(app+rules.TagSuffix, rules.KindTag, func(r cluster.RuleRef) { b.setDynamic(cluster.SlotTag, r) })
	b.dynamic[cluster.SlotTag] = tagRef
	b.cancelApp = append(b.cancelApp, c1)
	_, c2 := rulestore.Subscribe(app+rules.GraySuffix, rules.KindGray, nil)
	b.cancelApp = append(b.cancelApp, c2)
	// Script rules never route (Java 3.3.6 has no script engine on Java 15+);
	// subscribing logs why a script rule written there has no effect.
	_, c4 := rulestore.Subscribe(app+rules.ScriptSuffix, rules.KindScript, nil)
	b.cancelApp = append(b.cancelApp, c4)
	if app != b.consumerApp && b.consumer.Params.Value(AffinityParam) == "true" {
		// dubboroute's provider-application affinity router (order 135).
		aa, c5 := rulestore.Subscribe(app+rules.AffinitySuffix, rules.KindAffinity, func(r cluster.RuleRef) { b.setDynamic(cluster.SlotAffinityApp, r) })
		b.dynamic[cluster.SlotAffinityApp] = aa
		b.cancelApp = append(b.cancelApp, c5)
	} else {
		b.dynamic[cluster.SlotAffinityApp] = cluster.RuleRef{}
	}
	if app != b.consumerApp {
		pa, c3 := rulestore.Subscribe(app+rules.ConditionSuffix, rules.KindCondition, func(r cluster.RuleRef) { b.setDynamic(cluster.SlotProviderApp, r) })
		if !pa.Empty() {
			b.dynamic[cluster.SlotProviderApp] = pa
		}
		b.cancelApp = append(b.cancelApp, c3)
	}
	b.publishRules()
}

// adapt applies the consumer's load balancer name to an invoker (dubbo-go
// takes the balancer from the first routed invoker's URL, where a provider's
// loadbalance=random would otherwise win: issue #2864). Called by the chain
// under its lock, off the hot path.
func (b *Binding) adapt(ivk base.Invoker) base.Invoker {
	if b.lb == "" {
		return ivk
	}
	if c, ok := ivk.(*cfgInvoker); ok && c.lb {
		return ivk // a configured loadbalance wins over the consumer's, as in Java
	}
	u := ivk.GetURL()
	if u == nil || (u.GetParam(constant.LoadbalanceKey, "") == b.lb && !hasMethodLB(u)) {
		return ivk
	}
	if a, ok := b.adapted[ivk]; ok && a.GetURL().Location == u.Location {
		return a
	}
	nu := u.Clone()
	nu.SetParam(constant.LoadbalanceKey, b.lb)
	for _, m := range u.Methods {
		nu.DelParam("methods." + m + "." + constant.LoadbalanceKey)
	}
	a := &lbInvoker{Invoker: ivk, url: nu}
	b.adapted[ivk] = a
	return a
}

func hasMethodLB(u *common.URL) bool {
	for _, m := range u.Methods {
		if u.GetParam("methods."+m+"."+constant.LoadbalanceKey, "") != "" {
			return true
		}
	}
	return false
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

// bindingRouter is what dubbo-go's RouterChain holds for a reference until
// the cluster wrapper swaps the chain out: it forwards Notify to the
// binding and, should some path route through dubbo-go's chain anyway,
// routes with the binding's chain.
type bindingRouter struct{ b *Binding }

// probeKey is the invocation attribute the cluster wrapper uses to find the
// binding inside a dubbo-go RouterChain.
const probeKey = "dubboroute.probe"

type probe struct{ b *Binding }

// Route implements dubbo-go's PriorityRouter.
func (r *bindingRouter) Route(invokers []base.Invoker, _ *common.URL, inv base.Invocation) []base.Invoker {
	if v, ok := inv.GetAttribute(probeKey); ok {
		if p, ok := v.(*probe); ok {
			p.b = r.b
		}
		return invokers
	}
	out := r.b.chain.List(inv)
	if len(out) == 0 || len(invokers) == len(r.b.chain.Snapshot().Invokers) {
		return out
	}
	// dubbo-go's chain filtered the list first: keep the intersection.
	keep := make(map[*common.URL]bool, len(invokers))
	for _, i := range invokers {
		keep[i.GetURL()] = true
	}
	var res []base.Invoker
	for _, o := range out {
		u := o.GetURL()
		if w, ok := o.(*lbInvoker); ok {
			u = w.Invoker.GetURL()
		}
		if w, ok := unwrapInvoker(o).(*cfgInvoker); ok {
			u = w.Invoker.GetURL()
		}
		if keep[u] {
			res = append(res, o)
		}
	}
	if len(res) == 0 {
		return out[:0]
	}
	return res
}

// URL implements dubbo-go's PriorityRouter.
func (r *bindingRouter) URL() *common.URL { return r.b.url }

// Priority implements dubbo-go's PriorityRouter: first, so that if this
// router ever routes in dubbo-go's chain it sees the full list.
func (r *bindingRouter) Priority() int64 { return -1 << 62 }

// Notify implements dubbo-go's PriorityRouter.
func (r *bindingRouter) Notify(invokers []base.Invoker) { r.b.setInvokers(invokers) }

// SetStaticConfig implements dubbo-go's StaticConfigSetter. Static rules are
// read from the URL when the binding is built; this only logs configs that
// arrive later.
func (r *bindingRouter) SetStaticConfig(cfg *global.RouterConfig) {
	if cfg != nil {
		logger.Debugf("[dubboroute] %s: static router config key=%s scope=%s (read at build)", r.b.iface, cfg.Key, cfg.Scope)
	}
}

// dgChain is dubbo-go's router.Chain backed by a binding; directories call
// it directly once the cluster wrapper installed it.
type dgChain struct{ b *Binding }

// Route implements dubbo-go's router.Chain: lock-free, allocation-free
// (once the first providers arrived: see StartupWait).
func (c *dgChain) Route(_ *common.URL, inv base.Invocation) []base.Invoker {
	if !c.b.ready.Load() {
		c.b.awaitProviders()
	}
	return c.b.chain.List(inv)
}

// SetInvokers implements dubbo-go's router.Chain.
func (c *dgChain) SetInvokers(invokers []base.Invoker) { c.b.setInvokers(invokers) }

// AddRouters implements dubbo-go's router.Chain; extra dubbo-go routers are
// not supported on dubboroute's chain and are logged.
func (c *dgChain) AddRouters(rs []dgrouter.PriorityRouter) {
	if len(rs) > 0 {
		logger.Warnf("[dubboroute] %s: %d dubbo-go routers added via AddRouters are ignored", c.b.iface, len(rs))
	}
}

// Binding returns the binding behind the chain.
func (c *dgChain) Binding() *Binding { return c.b }

// ConsumerApp is the consumer application of the binding's reference.
func (b *Binding) ConsumerApp() string { return b.consumerApp }

// Explain routes a call on the binding's current snapshot with recording on
// and returns the routed invokers and the trace, without invoking anything.
// attachments may be nil.
func (b *Binding) Explain(method string, args []any, attachments map[string]any) ([]base.Invoker, *router.Trace) {
	tr := &router.Trace{}
	inv := invocation.NewRPCInvocation(method, args, attachments)
	return b.chain.Route(inv, tr), tr
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
