package provider

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"github.com/dubbogo/gost/log/logger"

	// dubbo-go's registry protocol registers itself first; it is wrapped below.
	_ "dubbo.apache.org/dubbo-go/v3/registry/protocol"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/extension/internal/rulestore"
	"github.com/dubboroute/dubboroute/extension/zkconn"
	"github.com/dubboroute/dubboroute/rules"
)

// Provider side of dynamic configuration (issue 13). A Java provider
// applies side: provider items of <provider-app>.configurators, then of
// <interface>:<version>:<group>.configurators, to its URL at export and on
// every change, and re-registers the configured URL: that is how Java
// consumers see Dubbo Admin's weight, disable or timeout for a provider.
// dubbo-go's copy parses rules differently (a missing top-level enabled
// means false), mutates the provider URL in place (a delete never
// restores it) and re-exports without unregistering the old URL. Here the
// registry protocol is wrapped: after dubbo-go exported and registered a
// provider, dubboroute keeps its original registered URL, applies the two
// lists with Java's rules (package configurator) and, when the result
// differs from what is registered, unregisters that and registers the
// configured URL. dubbo-go's own handling of config-center configurators is
// off on providers too (providerOnly is a no-op for them), so nothing is
// applied twice. Only the registration changes (what consumers see); the
// local exporter keeps its URL (Java re-exports it as well: provider-side
// filters such as accesslog are not reconfigured here).
func registerProviderProtocol() {
	inner, err := getProtocol(constant.RegistryProtocol)
	if err != nil || inner == nil {
		return
	}
	w := &providerProtocol{Protocol: inner}
	dgext.SetProtocol(constant.RegistryProtocol, func() base.Protocol { return w })
}

func getProtocol(name string) (p base.Protocol, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, errNoProtocol
		}
	}()
	return dgext.GetProtocol(name), nil
}

type protoErr string

func (e protoErr) Error() string { return string(e) }

const errNoProtocol = protoErr("registry protocol not available")

// providerProtocol wraps dubbo-go's registry protocol.
type providerProtocol struct {
	base.Protocol
	mu      sync.Mutex
	exports []*providerExport
}

// GetRegistries forwards to dubbo-go's registry protocol.
func (p *providerProtocol) GetRegistries() []registry.Registry {
	if g, ok := p.Protocol.(interface{ GetRegistries() []registry.Registry }); ok {
		return g.GetRegistries()
	}
	return nil
}

// Export implements base.Protocol.
func (p *providerProtocol) Export(invoker base.Invoker) base.Exporter {
	if invoker != nil && invoker.GetURL() != nil {
		u := invoker.GetURL()
		zkconn.PrepareRegistry(u, u.SubURL)
		if u.SubURL != nil {
			JavaTimestamp(u.SubURL)
			JavaWarmup(u.SubURL)
		}
	}
	exp := p.Protocol.Export(invoker)
	if exp == nil || invoker == nil || invoker.GetURL() == nil || invoker.GetURL().SubURL == nil {
		return exp
	}
	regURL := invoker.GetURL()
	reg := p.registryFor(regURL)
	if reg == nil {
		logger.Warnf("[dubboroute] provider %s: registry %s not found; side: provider configurators are not applied", invoker.GetURL().SubURL.Location, regURL.Location)
		return exp
	}
	providerURL := invoker.GetURL().SubURL.Clone()
	registered := hideKeys(providerURL)
	pe := &providerExport{reg: reg, original: registered.Clone(), current: registered, defaultHost: common.GetLocalIp()}
	if h, ok := reg.(defaultHoster); ok {
		pe.defaultHost = h.DefaultHost()
	}
	app := providerURL.GetParam(constant.ApplicationKey, "")
	svc := strings.TrimSuffix(rulestore.ServiceRuleKey(cluster.FromDubbo(providerURL)), rules.ConditionSuffix)
	pe.mu.Lock()
	if app != "" {
		ref, cancel := rulestore.Subscribe(app+rules.ConfiguratorsSuffix, rules.KindConfigurators, func(r cluster.RuleRef) {
			pe.set(configurator.ListApp, r.Configurators)
		})
		pe.lists[configurator.ListApp] = ref.Configurators
		pe.cancel = append(pe.cancel, cancel)
	}
	ref, cancel := rulestore.Subscribe(svc+rules.ConfiguratorsSuffix, rules.KindConfigurators, func(r cluster.RuleRef) {
		pe.set(configurator.ListService, r.Configurators)
	})
	pe.lists[configurator.ListService] = ref.Configurators
	pe.cancel = append(pe.cancel, cancel)
	pe.apply()
	pe.keepCurrent()
	pe.mu.Unlock()
	keepInstance(reg, providerURL)
	logger.Infof("[dubboroute] provider %s: applying %s%s and %s%s (side: provider items)", registered.Location, app, rules.ConfiguratorsSuffix, svc, rules.ConfiguratorsSuffix)
	p.mu.Lock()
	p.exports = append(p.exports, pe)
	p.mu.Unlock()
	return exp
}

// JavaTimestamp rewrites a provider URL's timestamp from the seconds
// dubbo-go v3.3.2 publishes (server/action.go: time.Now().Unix()) to the
// milliseconds Java Dubbo publishes and reads: Java's
// AbstractLoadBalance.getWeight takes now (ms) minus timestamp as the
// uptime, so a seconds value reads as 55 years of uptime and a Go provider
// never warms up for a Java consumer (nor for dubboroute's balancers,
// which read it as Java does). A value already in milliseconds (at least
// 10^11, i.e. after 1973 in ms and after the year 5000 in seconds) is kept.
func JavaTimestamp(u *common.URL) {
	v := u.GetParam(constant.TimestampKey, "")
	if v == "" {
		return
	}
	ts, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ts <= 0 || ts >= 100_000_000_000 {
		return
	}
	u.SetParam(constant.TimestampKey, strconv.FormatInt(ts*1000, 10))
}

// JavaWarmup rewrites a provider URL's warmup from the Go duration
// dubbo-go v3.3.2 publishes (server.WithWarmup: time.Duration.String(),
// e.g. "10m0s"; server/action.go overwrites any warmup parameter with it)
// to the integer milliseconds Java Dubbo reads
// (AbstractLoadBalance.getWeight: getParameter(warmup, 600000)). Java
// cannot parse "10m0s" and falls back to its 10-minute default, which,
// with the millisecond timestamp JavaTimestamp publishes, reduces a fresh
// Go provider's weight for a Java consumer although it was exported with
// warmup 0. An integer value (already Java's form) or an empty one is kept.
func JavaWarmup(u *common.URL) {
	v := u.GetParam(constant.WarmupKey, "")
	if v == "" {
		return
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return
	}
	u.SetParam(constant.WarmupKey, strconv.FormatInt(d.Milliseconds(), 10))
}

// registryFor finds the registry dubbo-go registered the provider with.
func (p *providerProtocol) registryFor(regURL *common.URL) registry.Registry {
	for _, r := range p.GetRegistries() {
		if u := r.GetURL(); u != nil && u.Location == regURL.Location && (u.Protocol == regURL.Protocol || regURL.Protocol == constant.RegistryProtocol) {
			return r
		}
	}
	return nil
}

// defaultHoster is implemented by a registry that registers a provider URL
// without a host under another host than dubbo-go's registries (the local
// IP): directory/memory's registry registers 127.0.0.1.
type defaultHoster interface{ DefaultHost() string }

// hideKeys is dubbo-go's filterHideKey: the registered URL has no
// parameters starting with '.'.
func hideKeys(u *common.URL) *common.URL {
	out := u.Clone()
	var drop []string
	out.RangeParams(func(k, _ string) bool {
		if strings.HasPrefix(k, ".") {
			drop = append(drop, k)
		}
		return true
	})
	for _, k := range drop {
		out.DelParam(k)
	}
	return out
}

// providerExport is one exported provider's registration.
type providerExport struct {
	reg         registry.Registry
	defaultHost string // the host the registry registers for a URL without one

	mu       sync.Mutex
	original *common.URL // registered by dubbo-go, before any configurator
	current  *common.URL // registered now
	lists    configurator.Lists
	cancel   []func()
	kept     keptNode // dubboroute's guard of the registered node (zkregister.go)
}

func (pe *providerExport) set(list int, l configurator.List) {
	pe.mu.Lock()
	defer pe.mu.Unlock()
	pe.lists[list] = l
	pe.apply()
}

// apply computes the configured URL (RegistryProtocol.overrideUrlWithConfig:
// the app list, then the service list, side: provider items matching the
// provider's host) and re-registers when it changed; pe.mu is held.
func (pe *providerExport) apply() {
	orig := cluster.FromDubbo(pe.original)
	if orig == nil {
		return
	}
	if orig.Host == "" {
		// A provider URL without an IP is registered with the registry's
		// own choice (dubbo-go's registries: the local IP; the in-process
		// memory registry: 127.0.0.1); Java's provider-side match reads
		// the registered host.
		orig.Host = pe.defaultHost
	}
	u := orig
	for _, l := range []configurator.List{pe.lists[configurator.ListApp], pe.lists[configurator.ListService]} {
		u, _ = l.Apply(u, orig.Host)
	}
	next := pe.original.Clone()
	if u != orig {
		pe.original.RangeParams(func(k, _ string) bool {
			if _, ok := u.Params.Get(k); !ok {
				next.DelParam(k)
			}
			return true
		})
		for k, v := range u.Params.All() {
			next.SetParam(k, v)
		}
	}
	if next.String() == pe.current.String() {
		return
	}
	pe.unkeep()
	if err := pe.reg.UnRegister(pe.current); err != nil {
		logger.Warnf("[dubboroute] provider %s: unregister before applying configurators: %v", pe.current.Location, err)
	}
	pe.release()
	if err := pe.reg.Register(next); err != nil {
		logger.Errorf("[dubboroute] provider %s: register the configured URL: %v; re-registering the previous one", next.Location, err)
		_ = pe.reg.Register(pe.current)
		pe.keepCurrent()
		return
	}
	logger.Infof("[dubboroute] provider %s re-registered after configurators: %s", next.Location, next.String())
	pe.current = next
	pe.keepCurrent()
}

// UnregisterRegistries implements dubbo-go's graceful-shutdown capability:
// every registration of every export, in every registry, is removed first,
// then dubbo-go's own pass runs (its attempt on one already removed only
// logs that it is not registered).
func (p *providerProtocol) UnregisterRegistries() {
	p.mu.Lock()
	exports := append([]*providerExport(nil), p.exports...)
	p.mu.Unlock()
	// dubboroute's guards of the registered nodes stop first (zkregister.go,
	// zkinstance.go).
	insts := unkeepInstances()
	for _, pe := range exports {
		pe.mu.Lock()
		pe.unkeep()
		for _, c := range pe.cancel {
			c()
		}
		pe.cancel = nil
		// Every registration, not only the replaced ones: dubbo-go's
		// registry protocol keeps one exporter per provider URL, so with
		// two registries (registry-type all: interface and application
		// level, or two registries) it unregisters only from the last one
		// exported, and the other registration stayed until the process's
		// session expired.
		if err := pe.reg.UnRegister(pe.current); err != nil {
			logger.Warnf("[dubboroute] provider %s: unregister %s: %v", pe.current.Location, pe.reg.GetURL().Location, err)
		}
		pe.mu.Unlock()
	}
	if u, ok := p.Protocol.(base.RegistryUnregisterer); ok {
		u.UnregisterRegistries()
	}
	for _, pe := range exports {
		pe.mu.Lock()
		pe.release()
		pe.mu.Unlock()
	}
	releaseInstances(insts)
}
