package consumer

import (
	"context"
	"sort"
	"strings"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/extension/source"
)

// Dynamic configuration (configurators) from the config center is applied
// on the consumer side by the chain, Java-exactly (package configurator):
// dubbo-go's registry directory must not apply its own copy as well.
// dubbo-go builds every configurator through its default configurator
// factory, for the directory (consumer) and for the registry protocol
// (provider exports), so the factory is wrapped: a config-center
// configurator (category dynamicconfigurators or appdynamicconfigurators)
// does nothing on a URL that is not a provider's export (no provider-config
// attribute). Provider exports keep dubbo-go's own handling. Registry
// override:// URLs (the registry's <interface>/configurators node, Dubbo
// 2.6 style) never reach dubbo-go's directory: its ZooKeeper registry
// watches only the providers node. dubboroute reads them itself
// (watchRegistryConfigurators) as the first configurator list.
func registerConfigurators() {
	inner := dgext.GetDefaultConfiguratorFunc()
	if inner == nil {
		return
	}
	dgext.SetDefaultConfigurator(func(u *common.URL) config_center.Configurator {
		c := inner(u)
		if u == nil {
			return c
		}
		switch u.GetParam(constant.CategoryKey, "") {
		case "dynamicconfigurators", "appdynamicconfigurators":
			return providerOnly{c}
		}
		return c
	})
}

// providerOnly is dubbo-go's configurator for a config-center rule, switched
// off (the name is historical: dubboroute applies these rules itself on
// both sides).
type providerOnly struct{ config_center.Configurator }

// Configure implements config_center.Configurator: nothing. A consumer's
// view of a provider is configured by dubboroute's chain, a provider's
// registration by extension/provider, both Java-exactly.
func (p providerOnly) Configure(*common.URL) {}

// watchRegistryConfigurators follows the registry's override:// URLs
// (/<group>/<interface>/configurators, Dubbo 2.6's dynamic configuration,
// which Java consumers still apply first) through the registry's override
// source (package extension/source; extension/zookeeper's for ZooKeeper),
// as Java's RegistryDirectory does with the registry's configurators
// category (configurator.RegistryList). dubbo-go v3.3.2's registries never
// read them. It returns the first list (ok false: the registry has no
// override source, or the first state did not arrive in time); later
// changes go through setList. The watch ends when the binding is released.
func (b *Binding) watchRegistryConfigurators() (configurator.List, bool) {
	ru := b.url
	if ru == nil || ru.SubURL == nil {
		return nil, false
	}
	src := source.OverrideSourceFor(ru)
	if src == nil {
		return nil, false
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := src.WatchOverrides(ctx, ru, b.iface)
	if err != nil {
		cancel()
		logger.Warnf("[dubboroute] %v; registry override:// URLs of %s are not applied", err, b.iface)
		return nil, false
	}
	b.watches = append(b.watches, cancel)
	list := func(o source.Overrides) (configurator.List, bool) {
		l, err := configurator.RegistryList(b.consumer, o.URLs, configurator.Origin{Key: o.Where})
		if err != nil {
			logger.Warnf("[dubboroute] %s: %v; the previous registry configurators stay", o.Where, err)
			return nil, false
		}
		return l, true
	}
	var first configurator.List
	ok := false
	t := time.NewTimer(*shared.Settings.RegistryConfiguratorsWait)
	defer t.Stop()
	select {
	case o, open := <-ch:
		if open {
			first, ok = list(o)
		}
	case <-t.C:
		logger.Warnf("[dubboroute] registry %s: no answer for the override URLs of %s within %v; they apply when they arrive", ru.Location, b.iface, *shared.Settings.RegistryConfiguratorsWait)
	}
	go func() {
		for o := range ch {
			if l, ok := list(o); ok {
				b.setList(l)
			}
		}
	}()
	return first, ok
}

// Configurators returns the binding's configurator lists in force.
func (b *Binding) Configurators() configurator.Lists {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l := b.m.ConfiguratorLists(); l != nil {
		return *l
	}
	return configurator.Lists{}
}

// perMethodKey reports whether dubbo-go reads key per method (as
// methods.<method>.<key>), so that Java's <method>.<key> is mapped to it.
func perMethodKey(key string) bool {
	switch key {
	case constant.LoadbalanceKey, constant.WeightKey, constant.RetriesKey, constant.TimeoutKey:
		return true
	}
	return false
}

// configure maps a provider invoker whose parameters configurators changed
// to an invoker whose URL carries them (balancers read weight and
// loadbalance from it, failover reads retries from the first invoker) and
// whose Invoke passes a configured timeout to dubbo-go's protocol invoker
// (which reads its timeout from the URL it was referred with, or from the
// invocation). Called by the chain under its lock.
func (b *Binding) configure(ivk base.Invoker, changed map[string]string) base.Invoker {
	sig := signature(changed)
	if c, ok := b.configured[ivk]; ok && c.sig == sig && c.base == ivk.GetURL() {
		return c
	}
	u := ivk.GetURL()
	if u == nil {
		return ivk
	}
	nu := u.Clone()
	c := &cfgInvoker{Invoker: ivk, sig: sig, base: u}
	methods := map[string]bool{}
	for _, m := range u.Methods {
		methods[m] = true
	}
	for k, v := range changed {
		if m, key, ok := strings.Cut(k, "."); ok && methods[m] && perMethodKey(key) {
			k = "methods." + m + "." + key
		}
		nu.SetParam(k, v)
		switch {
		case k == constant.LoadbalanceKey || (strings.HasPrefix(k, "methods.") && strings.HasSuffix(k, "."+constant.LoadbalanceKey)):
			c.lb = true
		case k == constant.TimeoutKey:
			c.timeout = v
			c.timeoutAttachment = v + "ms"
		}
	}
	c.url = nu
	b.configured[ivk] = c
	if len(b.configured) > 4*len(b.chain.Snapshot().Invokers)+64 {
		b.configured = map[base.Invoker]*cfgInvoker{ivk: c}
	}
	return c
}

func signature(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteString(k)
		sb.WriteByte('=')
		sb.WriteString(m[k])
		sb.WriteByte('&')
	}
	return sb.String()
}

// cfgInvoker is a provider invoker seen through its configured URL.
type cfgInvoker struct {
	base.Invoker
	url     *common.URL
	base    *common.URL // the provider invoker's URL it was made from
	sig     string
	lb      bool   // a configurator set loadbalance
	timeout string // configured timeout in milliseconds, "" if none
	// timeoutAttachment is timeout as the duration dubbo-go's protocol
	// invoker parses from the attachment, boxed once.
	timeoutAttachment any
}

// timeoutMark marks an invocation whose timeout attachment a cfgInvoker set
// (a retry on another provider replaces it; a caller's own is kept).
const timeoutMark = "dubboroute.configured-timeout"

// GetURL implements common.Node.
func (c *cfgInvoker) GetURL() *common.URL { return c.url }

// Unwrap returns the provider invoker.
func (c *cfgInvoker) Unwrap() base.Invoker { return c.Invoker }

// Invoke implements base.Invoker: a configured timeout reaches dubbo-go's
// protocol invoker as the invocation's timeout (Java's
// RpcUtils.calculateTimeout reads the invoker URL; a caller's explicit
// timeout attachment wins in both).
func (c *cfgInvoker) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	if c.timeout != "" && inv != nil {
		_, marked := inv.GetAttribute(timeoutMark)
		// dubbo-go's client puts the per-call option in, empty when unset.
		if v, set := inv.GetAttachment(constant.TimeoutKey); !set || v == "" || marked {
			inv.SetAttachment(constant.TimeoutKey, c.timeoutAttachment)
			inv.SetAttribute(timeoutMark, true)
		}
	}
	return c.Invoker.Invoke(ctx, inv)
}
