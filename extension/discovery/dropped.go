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

	wrapped wrappers[*observingListener]
}

func observe(r registry.Registry) registry.Registry {
	if r == nil {
		return r
	}
	return &observedRegistry{Registry: r, wrapped: newWrappers[*observingListener]()}
}

// Observed makes a directory constructor subscribe through observe.
func Observed(newDir DirFactory) DirFactory {
	return func(u *common.URL, r registry.Registry) (Dir, error) { return newDir(u, observe(r)) }
}

func (o *observedRegistry) wrap(l registry.NotifyListener) *observingListener {
	return o.wrapped.get(l, func() *observingListener {
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
		return w
	})
}

// Subscribe implements registry.Registry.
func (o *observedRegistry) Subscribe(u *common.URL, l registry.NotifyListener) error {
	return o.wrapped.subscribe(l, func() (registry.NotifyListener, error) {
		w := o.wrap(l)
		return w, o.Registry.Subscribe(u, w)
	}, func(w registry.NotifyListener) {
		_ = o.Registry.UnSubscribe(u, w)
		if ow := w.(*observingListener); ow.dirURL != nil {
			droppedByDir.CompareAndDelete(ow.dirURL, ow)
		}
	})
}

// UnSubscribe implements registry.Registry; the listener's observer is
// dropped with it.
func (o *observedRegistry) UnSubscribe(u *common.URL, l registry.NotifyListener) error {
	w := o.wrap(l)
	o.wrapped.remove(l)
	if w.dirURL != nil {
		droppedByDir.CompareAndDelete(w.dirURL, w)
	}
	return o.Registry.UnSubscribe(u, w)
}

// wrappers are a registry wrapper's listener wrappers, one per directory
// listener, and the subscriptions that arrive after their unsubscription:
// dubbo-go's RegistryDirectory subscribes from a goroutine of its own, so a
// reference destroyed right after it was built unsubscribes first, and the
// late subscription would then live on for good.
type wrappers[W registry.NotifyListener] struct {
	mu         sync.Mutex
	m          map[registry.NotifyListener]W
	subscribed map[registry.NotifyListener]bool
	gone       map[registry.NotifyListener]bool
}

func newWrappers[W registry.NotifyListener]() wrappers[W] {
	return wrappers[W]{m: map[registry.NotifyListener]W{}, subscribed: map[registry.NotifyListener]bool{}, gone: map[registry.NotifyListener]bool{}}
}

// get returns l's wrapper, made by mk (under the lock) the first time.
func (ws *wrappers[W]) get(l registry.NotifyListener, mk func() W) W {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, ok := ws.m[l]; ok {
		return w
	}
	w := mk()
	ws.m[l] = w
	return w
}

// subscribe runs sub, the subscription of l through the wrapped registry,
// unless l was unsubscribed before (the directory was destroyed before its
// subscription goroutine ran: nothing is subscribed). An unsubscription
// that comes while sub runs may reach the wrapped registry before sub's
// subscription does, and would leave it there for good (the registry's
// listener holds the directory, its invokers and its binding): when sub
// returns after l's unsubscription, unsub ends the subscription sub made.
func (ws *wrappers[W]) subscribe(l registry.NotifyListener, sub func() (registry.NotifyListener, error), unsub func(registry.NotifyListener)) error {
	if ws.late(l) {
		return nil
	}
	w, err := sub()
	if ws.stillSubscribed(l) {
		return err
	}
	unsub(w)
	return err
}

// late records a subscription of l; true means it comes after its
// unsubscription and must be dropped.
func (ws *wrappers[W]) late(l registry.NotifyListener) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.gone[l] {
		delete(ws.gone, l)
		return true
	}
	ws.subscribed[l] = true
	return false
}

// stillSubscribed reports whether l, subscribed (late returned false), has
// not been unsubscribed since.
func (ws *wrappers[W]) stillSubscribed(l registry.NotifyListener) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.subscribed[l]
}

// remove records the unsubscription of l and drops its wrapper, returning
// it (ok false: l had none).
func (ws *wrappers[W]) remove(l registry.NotifyListener) (w W, ok bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, ok = ws.m[l]
	delete(ws.m, l)
	if ws.subscribed[l] {
		delete(ws.subscribed, l)
	} else {
		ws.gone[l] = true
	}
	return w, ok
}

// LoadSubscribeInstances implements registry.Registry.
func (o *observedRegistry) LoadSubscribeInstances(u *common.URL, l registry.NotifyListener) error {
	return o.Registry.LoadSubscribeInstances(u, o.wrap(l))
}

// droppedByDir maps a directory's URL (the URL its router chain, and so its
// Binding, is built with) to the listener observing it. Package state because
// the registry that makes the listener and the consumer that reads it meet
// only through dubbo-go's process-wide extension registry, which passes no
// context (the directory URL is their one common key).
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
