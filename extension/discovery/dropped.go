package discovery

import (
	"sort"
	"strconv"
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"

	"github.com/dubboroute/dubboroute/cluster"
)

// observedRegistry wraps the registry a registry directory subscribes
// through and records the providers that dubbo-go's directory will drop
// before they reach the chain, so that a NoProviderError can say why a
// reference has fewer providers than the registry holds.
//
// What dubbo-go v3.3.2 drops there: on a single notification
// (RegistryDirectory.cacheInvoker), a provider whose protocol differs from
// the reference's (a reference defaults to tri, so a dubbo:// provider is
// silently ignored). Group and version are filtered earlier, inside the
// registry, and never reach a listener.
type observedRegistry struct {
	registry.Registry

	mu        sync.Mutex
	listeners map[registry.NotifyListener]*observingListener
}

func observe(r registry.Registry) registry.Registry {
	if r == nil {
		return r
	}
	return &observedRegistry{Registry: r, listeners: map[registry.NotifyListener]*observingListener{}}
}

// Observed makes a directory constructor subscribe through observe.
func Observed(newDir DirFactory) DirFactory {
	return func(u *common.URL, r registry.Registry) (Dir, error) { return newDir(u, observe(r)) }
}

func (o *observedRegistry) wrap(l registry.NotifyListener) *observingListener {
	o.mu.Lock()
	defer o.mu.Unlock()
	if w, ok := o.listeners[l]; ok {
		return w
	}
	w := &observingListener{inner: l, dropped: map[string]cluster.Dropped{}}
	if d, ok := l.(interface{ GetURL() *common.URL }); ok {
		if u := d.GetURL(); u != nil {
			w.dirURL = u
			if u.SubURL != nil {
				w.refProtocol = u.SubURL.Protocol
			}
			droppedByDir.Store(u, w)
		}
	}
	o.listeners[l] = w
	return w
}

// Subscribe implements registry.Registry.
func (o *observedRegistry) Subscribe(u *common.URL, l registry.NotifyListener) error {
	return o.Registry.Subscribe(u, o.wrap(l))
}

// UnSubscribe implements registry.Registry.
func (o *observedRegistry) UnSubscribe(u *common.URL, l registry.NotifyListener) error {
	w := o.wrap(l)
	if w.dirURL != nil {
		droppedByDir.Delete(w.dirURL)
	}
	return o.Registry.UnSubscribe(u, w)
}

// LoadSubscribeInstances implements registry.Registry.
func (o *observedRegistry) LoadSubscribeInstances(u *common.URL, l registry.NotifyListener) error {
	return o.Registry.LoadSubscribeInstances(u, o.wrap(l))
}

// droppedByDir maps a directory's URL (the URL its router chain, and so its
// Binding, is built with) to the listener observing it.
var droppedByDir sync.Map // *common.URL -> *observingListener

// DroppedFor returns the providers dropped before routing for the directory
// whose URL is u, sorted by address.
func DroppedFor(u *common.URL) []cluster.Dropped {
	v, ok := droppedByDir.Load(u)
	if !ok {
		return nil
	}
	return v.(*observingListener).snapshot()
}

// observingListener forwards every event unchanged and keeps the set of
// providers the directory drops.
type observingListener struct {
	inner       registry.NotifyListener
	dirURL      *common.URL
	refProtocol string

	mu      sync.Mutex
	dropped map[string]cluster.Dropped // by the provider URL's key
}

// Notify implements registry.NotifyListener.
func (l *observingListener) Notify(ev *registry.ServiceEvent) {
	if ev != nil && ev.Service != nil && isProviderURL(ev.Service) {
		key := ev.Service.Key()
		l.mu.Lock()
		if ev.Action != remoting.EventTypeDel && l.refProtocol != "" && ev.Service.Protocol != l.refProtocol {
			l.dropped[key] = cluster.Dropped{
				Address: ev.Service.Location,
				Reason:  "protocol " + strconv.Quote(ev.Service.Protocol) + ", the reference wants " + strconv.Quote(l.refProtocol),
			}
		} else {
			delete(l.dropped, key)
		}
		l.mu.Unlock()
	}
	l.inner.Notify(ev)
}

// NotifyAll implements registry.NotifyListener. dubbo-go's directory keeps
// every provider of a complete list (it does not check the protocol there).
func (l *observingListener) NotifyAll(events []*registry.ServiceEvent, callback func()) {
	l.mu.Lock()
	l.dropped = map[string]cluster.Dropped{}
	l.mu.Unlock()
	l.inner.NotifyAll(events, callback)
}

func (l *observingListener) snapshot() []cluster.Dropped {
	l.mu.Lock()
	out := make([]cluster.Dropped, 0, len(l.dropped))
	for _, d := range l.dropped {
		out = append(out, d)
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// isProviderURL is false for the override and router URLs a registry also
// delivers (dubbo-go's directory takes those as configuration).
func isProviderURL(u *common.URL) bool {
	if u.Protocol == constant.OverrideProtocol || u.Protocol == constant.RouterProtocol || u.Protocol == constant.EmptyProtocol {
		return false
	}
	switch u.GetParam(constant.CategoryKey, constant.DefaultCategory) {
	case constant.ConfiguratorsCategory, constant.RouterCategory:
		return false
	}
	return true
}
