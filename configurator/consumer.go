package configurator

import (
	"github.com/dubboroute/dubboroute/router"
)

// The consumer's configurator lists, in the order Java's RegistryDirectory
// applies them (later wins).
const (
	ListRegistry = iota // registry override:// URLs (category configurators)
	ListApp             // <consumer-app>.configurators
	ListService         // <interface>:<version>:<group>.configurators
	NumLists
)

// ListNames name the lists in explain output.
var ListNames = [NumLists]string{"registry", "app", "service"}

// Lists are a consumer's three configurator lists.
type Lists [NumLists]List

// Empty reports whether no list has a configurator (Java then creates no
// override URL at all).
func (l *Lists) Empty() bool {
	if l == nil {
		return true
	}
	for _, x := range l {
		if len(x) > 0 {
			return false
		}
	}
	return true
}

// providerFirst are the keys the registry removes from the consumer URL it
// wraps in every provider URL (DefaultProviderFirstParams), so the
// provider's value is read.
var providerFirst = map[string]bool{"release": true, "dubbo": true, "methods": true, "timestamp": true, "dubbo.tag": true}

// Provider is one provider as the consumer's directory sees it after the
// configurators: Java's DubboServiceAddressURL with its override URL.
type Provider struct {
	// URL is the provider's own URL (toOriginalMap).
	URL *router.URL
	// Consumer is the original consumer URL the registry wraps in it.
	Consumer *router.URL
	// Override is the override URL (application = the consumer's, side,
	// group, version, then what configurators wrote); nil when the
	// consumer has no configurator.
	Override *router.URL
	// Applied are the configurators that changed the override URL, in
	// order, with the list each came from.
	Applied []Applied
}

// Applied is one configurator that applied, and its list.
type Applied struct {
	List         int
	Configurator *Configurator
}

// ConfigureProvider is RegistryDirectory.overrideWithConfigurator for one
// interface-level (ZooKeeper) provider URL: the lists in order on a
// separate override URL. localHost is the consumer's IP.
func (l *Lists) ConfigureProvider(provider, consumer *router.URL, localHost string) Provider {
	p := Provider{URL: provider, Consumer: consumer}
	if l.Empty() || provider == nil {
		return p
	}
	o := &router.URL{Protocol: provider.Protocol, Username: provider.Username, Password: provider.Password,
		Host: provider.Host, Port: provider.Port, Path: provider.Path}
	add := func(k, v string) {
		if v != "" {
			o.Params.Set(k, v)
		}
	}
	if consumer != nil {
		add(KeyApplication, consumer.Params.Value(KeyApplication))
		add(KeySide, consumer.Params.Value(KeySide))
	}
	add(KeyGroup, provider.Params.Value(KeyGroup))
	add(KeyVersion, provider.Params.Value(KeyVersion))
	for li, list := range l {
		for _, c := range list {
			var ok bool
			o, ok = c.Configure(o, localHost)
			if ok {
				p.Applied = append(p.Applied, Applied{List: li, Configurator: c})
			}
		}
	}
	p.Override = o
	return p
}

// ConfigureConsumer applies the lists to the consumer URL itself (Java's
// directoryUrl): retries and the routers' consumer-side reads see it.
func (l *Lists) ConfigureConsumer(consumer *router.URL, localHost string) (*router.URL, []Applied) {
	if l == nil || consumer == nil {
		return consumer, nil
	}
	var applied []Applied
	for li, list := range l {
		for _, c := range list {
			var ok bool
			consumer, ok = c.Configure(consumer, localHost)
			if ok {
				applied = append(applied, Applied{List: li, Configurator: c})
			}
		}
	}
	return consumer, applied
}

// Param is DubboServiceAddressURL.getParameter: the override URL's value,
// else (group, version, side, application being the provider's own, the
// consumer's side) the consumer URL's value unless the key is
// provider-first, else the provider's. ok is false for Java's null.
func (p *Provider) Param(key string) (string, bool) {
	if p.Override != nil {
		if v := p.Override.Params.Value(key); v != "" {
			return v, true
		}
	}
	switch key {
	case KeyGroup, KeyVersion, KeyApplication:
		v, ok := p.URL.Params.Get(key)
		return v, ok
	case KeySide:
		return SideConsumer, true
	case KeyCategory:
		if v, ok := p.URL.Params.Get(key); ok && v != "" {
			return v, true
		}
		return "providers", true
	}
	if p.Consumer != nil && !providerFirst[key] {
		if v := p.Consumer.Params.Value(key); v != "" {
			return v, true
		}
	}
	v, ok := p.URL.Params.Get(key)
	return v, ok
}

// Enabled is the directory's check before it creates an invoker:
// disabled (when set and not empty) wins, else enabled (default true).
func (p *Provider) Enabled() bool {
	if v, ok := p.Param(KeyDisabled); ok && v != "" {
		return !javaBool(v, false)
	}
	v, _ := p.Param(KeyEnabled)
	return javaBool(v, true)
}

// Changed returns the parameters the configurators wrote that differ from
// what the provider URL alone reads (the keys of the override URL besides
// its base application, side, group and version, unless a configurator
// wrote those too). nil when nothing changed.
func (p *Provider) Changed() map[string]string {
	if p.Override == nil || len(p.Applied) == 0 {
		return nil
	}
	written := map[string]bool{}
	for _, a := range p.Applied {
		for k := range a.Configurator.Params() {
			written[k] = true
		}
	}
	var out map[string]string
	for k := range written {
		v, ok := p.Override.Params.Get(k)
		if !ok || v == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out
}

// DisabledBy is the last applied configurator that wrote disabled or
// enabled (the rule that took the provider out), or nil.
func (p *Provider) DisabledBy() *Applied {
	for i := len(p.Applied) - 1; i >= 0; i-- {
		ps := p.Applied[i].Configurator.URL.Params
		if ps.Has(KeyDisabled) {
			return &p.Applied[i]
		}
	}
	return nil
}

// MethodParam is DubboServiceAddressURL.getMethodParameter(method, key):
// the override URL's <method>.<key>, then the consumer's and the
// provider's, then Param(key).
func (p *Provider) MethodParam(method, key string) (string, bool) {
	mk := method + "." + key
	if p.Override != nil {
		if v := p.Override.Params.Value(mk); v != "" {
			return v, true
		}
	}
	if p.Consumer != nil {
		if v := p.Consumer.Params.Value(mk); v != "" {
			return v, true
		}
	}
	if v := p.URL.Params.Value(mk); v != "" {
		return v, true
	}
	return p.Param(key)
}

// Weight is the weight Java's load balancers read for method (as text;
// "100" when unset).
func (p *Provider) Weight(method string) string {
	if v, ok := p.MethodParam(method, "weight"); ok && v != "" {
		return v
	}
	return "100"
}
