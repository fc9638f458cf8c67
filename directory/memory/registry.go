package memory

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"
)

// DefaultHost is the host written into provider URLs registered without an
// IP. dubbo-go's ZooKeeper registry writes the machine's IP there; the
// in-process registry uses loopback so that everything stays on the machine
// and address patterns in tests and the demo are predictable.
const DefaultHost = "127.0.0.1"

// Hub is an in-process, interface-level service registry: provider URLs by
// interface, and subscribers that receive the complete provider list of their
// interface on every change (registry.NotifyListener.NotifyAll).
type Hub struct {
	deliver sync.Mutex // serialises change+delivery so lists arrive in order
	mu      sync.Mutex
	// providers: interface -> raw provider URL -> registration count
	providers map[string]map[string]int
	subs      map[*subscription]struct{}
}

type subscription struct {
	iface, group, version string
	listener              registry.NotifyListener
}

// NewHub makes an empty registry.
func NewHub() *Hub {
	return &Hub{providers: map[string]map[string]int{}, subs: map[*subscription]struct{}{}}
}

// Registry is the process-wide hub behind the "memory" registry extension.
var Registry = NewHub()

// Registered returns a function that reports whether a provider of iface
// listening on port is registered (a provider's Options.Registered in
// samples/bookfacade/provider: the memory registry's export returns before
// the provider is visible).
func (h *Hub) Registered(iface string) func(port int) bool {
	return func(port int) bool { return len(h.onPort(iface, port)) > 0 }
}

// Leave removes the providers of iface on port (as if their ZooKeeper
// session ended) without stopping their listener; subscribers drop them
// on the notification. It reports whether anything was removed.
func (h *Hub) Leave(iface string, port int) bool {
	urls := h.onPort(iface, port)
	for _, u := range urls {
		_ = h.Unregister(u)
	}
	return len(urls) > 0
}

// onPort are the provider URLs of iface whose address has port.
func (h *Hub) onPort(iface string, port int) []string {
	want := ":" + strconv.Itoa(port) + "/"
	var out []string
	for _, u := range h.Providers(iface) {
		if strings.Contains(u, want) {
			out = append(out, u)
		}
	}
	return out
}

// Providers returns the provider URLs registered for an interface, sorted.
func (h *Hub) Providers(iface string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.providerList(iface)
}

func (h *Hub) providerList(iface string) []string {
	out := make([]string, 0, len(h.providers[iface]))
	for raw := range h.providers[iface] {
		out = append(out, raw)
	}
	sort.Strings(out)
	return out
}

// interfaceOf is the interface of a provider URL given to op (register,
// unregister); an error if it does not parse or names none.
func interfaceOf(op, raw string) (string, error) {
	pu, err := common.NewURL(raw)
	if err != nil {
		return "", fmt.Errorf("memory registry: %s %q: %w", op, raw, err)
	}
	if pu.Service() == "" {
		return "", fmt.Errorf("memory registry: %s %q: no interface", op, raw)
	}
	return pu.Service(), nil
}

// Register adds a provider URL (as it would be written to
// /dubbo/<interface>/providers) and notifies subscribers of the interface.
func (h *Hub) Register(raw string) error {
	iface, err := interfaceOf("register", raw)
	if err != nil {
		return err
	}
	h.change(iface, func() {
		m := h.providers[iface]
		if m == nil {
			m = map[string]int{}
			h.providers[iface] = m
		}
		m[raw]++
	})
	return nil
}

// Unregister removes a provider URL registered with Register.
func (h *Hub) Unregister(raw string) error {
	iface, err := interfaceOf("unregister", raw)
	if err != nil {
		return err
	}
	h.change(iface, func() {
		if m := h.providers[iface]; m != nil {
			if m[raw] <= 1 {
				delete(m, raw)
			} else {
				m[raw]--
			}
		}
	})
	return nil
}

// Reset drops every provider and subscription (for tests).
func (h *Hub) Reset() {
	h.deliver.Lock()
	defer h.deliver.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.providers = map[string]map[string]int{}
	h.subs = map[*subscription]struct{}{}
}

func (h *Hub) change(iface string, mutate func()) {
	h.deliver.Lock()
	defer h.deliver.Unlock()
	h.mu.Lock()
	mutate()
	list := h.providerList(iface)
	var subs []*subscription
	for s := range h.subs {
		if s.iface == iface {
			subs = append(subs, s)
		}
	}
	h.mu.Unlock()
	for _, s := range subs {
		s.notify(list)
	}
}

func (h *Hub) subscribe(s *subscription) {
	h.deliver.Lock()
	defer h.deliver.Unlock()
	h.mu.Lock()
	h.subs[s] = struct{}{}
	list := h.providerList(s.iface)
	h.mu.Unlock()
	s.notify(list)
}

func (h *Hub) unsubscribe(match func(*subscription) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if match(s) {
			delete(h.subs, s)
		}
	}
}

func (h *Hub) snapshot(s *subscription) {
	h.deliver.Lock()
	defer h.deliver.Unlock()
	h.mu.Lock()
	list := h.providerList(s.iface)
	h.mu.Unlock()
	s.notify(list)
}

// notify hands the listener the complete list, as fresh URL objects (the
// directory merges and overrides them in place, like URLs read from ZooKeeper).
func (s *subscription) notify(list []string) {
	events := make([]*registry.ServiceEvent, 0, len(list))
	for _, raw := range list {
		u, err := common.NewURL(raw)
		if err != nil {
			continue // validated at Register
		}
		if !matchGroupVersion(s.group, u.Group()) || !matchGroupVersion(s.version, u.Version()) {
			continue
		}
		events = append(events, &registry.ServiceEvent{Action: remoting.EventTypeUpdate, Service: u})
	}
	s.listener.NotifyAll(events, func() {})
}

// matchGroupVersion follows Java's UrlUtils.isMatch for group and version:
// "*" matches anything, otherwise the values must be equal ("" and "0.0.0"
// count as no version).
func matchGroupVersion(want, have string) bool {
	if want == "*" {
		return true
	}
	if want == "0.0.0" {
		want = ""
	}
	if have == "0.0.0" {
		have = ""
	}
	return want == have
}

// registryView is one dubbo-go Registry (one per registry URL) over a Hub.
type registryView struct {
	hub *Hub
	url *common.URL

	mu         sync.Mutex
	registered map[string]int // raw provider URLs this view registered
	destroyed  bool
}

func newRegistry(u *common.URL) (registry.Registry, error) {
	if u == nil {
		return nil, errors.New("memory registry: nil registry URL")
	}
	return &registryView{hub: Registry, url: u, registered: map[string]int{}}, nil
}

// GetURL implements common.Node.
func (r *registryView) GetURL() *common.URL { return r.url }

// DefaultHost is the host the registry writes into a provider URL without
// one (DefaultHost); extension/provider reads it to match provider-side
// configurators against the registered host.
func (r *registryView) DefaultHost() string { return DefaultHost }

// IsAvailable implements common.Node.
func (r *registryView) IsAvailable() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.destroyed
}

// Destroy removes what this registry registered, as a ZooKeeper session end
// removes its ephemeral provider nodes.
func (r *registryView) Destroy() {
	r.mu.Lock()
	if r.destroyed {
		r.mu.Unlock()
		return
	}
	r.destroyed = true
	regs := r.registered
	r.registered = map[string]int{}
	r.mu.Unlock()
	for raw, n := range regs {
		for i := 0; i < n; i++ {
			_ = r.hub.Unregister(raw)
		}
	}
}

// providerRaw is u's published form if u is a provider's registration, ""
// for any other role (consumers are not published).
func providerRaw(u *common.URL) (string, error) {
	role, _ := strconv.Atoi(u.GetParam(constant.RegistryRoleKey, ""))
	if role != common.PROVIDER {
		return "", nil
	}
	return ProviderURL(u)
}

// Register implements registry.Registry: providers are published, consumers
// are accepted and not stored (nothing in-process reads consumer nodes).
func (r *registryView) Register(u *common.URL) error {
	if u == nil {
		return errors.New("memory registry: register nil URL")
	}
	raw, err := providerRaw(u)
	if raw == "" || err != nil {
		return err
	}
	if err := r.hub.Register(raw); err != nil {
		return err
	}
	r.mu.Lock()
	r.registered[raw]++
	r.mu.Unlock()
	return nil
}

// UnRegister implements registry.Registry.
func (r *registryView) UnRegister(u *common.URL) error {
	if u == nil {
		return nil
	}
	raw, err := providerRaw(u)
	if raw == "" || err != nil {
		return err
	}
	r.mu.Lock()
	if r.registered[raw] <= 1 {
		delete(r.registered, raw)
	} else {
		r.registered[raw]--
	}
	r.mu.Unlock()
	return r.hub.Unregister(raw)
}

func newSubscription(u *common.URL, l registry.NotifyListener) (*subscription, error) {
	if u == nil || l == nil {
		return nil, errors.New("memory registry: subscribe needs a URL and a listener")
	}
	iface := u.Service()
	if iface == "" {
		return nil, fmt.Errorf("memory registry: subscribe %s: no interface", u)
	}
	return &subscription{iface: iface, group: u.Group(), version: u.Version(), listener: l}, nil
}

// Subscribe implements registry.Registry: the listener gets the complete
// provider list now and after every change.
func (r *registryView) Subscribe(u *common.URL, l registry.NotifyListener) error {
	return r.withSubscription(u, l, r.hub.subscribe)
}

// UnSubscribe implements registry.Registry.
func (r *registryView) UnSubscribe(u *common.URL, l registry.NotifyListener) error {
	if u == nil {
		return nil
	}
	iface := u.Service()
	r.hub.unsubscribe(func(s *subscription) bool { return s.iface == iface && s.listener == l })
	return nil
}

// LoadSubscribeInstances implements registry.Registry: it hands the listener
// the current list synchronously.
func (r *registryView) LoadSubscribeInstances(u *common.URL, l registry.NotifyListener) error {
	return r.withSubscription(u, l, r.hub.snapshot)
}

// withSubscription hands the subscription of u for l to do.
func (r *registryView) withSubscription(u *common.URL, l registry.NotifyListener, do func(*subscription)) error {
	s, err := newSubscription(u, l)
	if err != nil {
		return err
	}
	do(s)
	return nil
}

// ProviderURL renders a provider URL as dubbo-go's interface-level registries
// write it: the URL's parameters plus anyhost=true and methods=..., empty
// parameters dropped, host defaulting to DefaultHost, parameters sorted.
func ProviderURL(c *common.URL) (string, error) {
	if c.Path == "" && c.Service() == "" {
		return "", fmt.Errorf("memory registry: provider URL %s has no path", c)
	}
	params := url.Values{}
	c.RangeParams(func(k, v string) bool {
		if v != "" {
			params.Set(k, v)
		}
		return true
	})
	params.Set(constant.AnyhostKey, "true")
	if len(c.Methods) > 0 {
		params.Set(constant.MethodsKey, strings.Join(c.Methods, ","))
	}
	host := c.Ip
	if host == "" {
		host = DefaultHost
	}
	path := c.Path
	if path == "" {
		path = c.Service()
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	q, err := url.QueryUnescape(params.Encode())
	if err != nil {
		return "", fmt.Errorf("memory registry: provider URL %s: %w", c, err)
	}
	return fmt.Sprintf("%s://%s:%s%s?%s", c.Protocol, host, c.Port, path, q), nil
}
