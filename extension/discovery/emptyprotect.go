package discovery

import (
	"sort"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/extension/internal/shared"
)

// EmptyProtectionKey is the registry URL parameter that switches empty
// protection off ("false"). It is on by default, unlike Java Dubbo 3.2+,
// whose default is off (RegistryConstants.DEFAULT_ENABLE_EMPTY_PROTECTION,
// read in 3.3.6 by CacheableFailbackRegistry and
// ServiceInstancesChangedListener): a deliberate divergence, so that a
// registry outage or a provider's lost session fails no call.
const EmptyProtectionKey = "enable-empty-protection"

// DeleteGraceKey is the registry URL parameter (a Go duration, default
// DefaultDeleteGrace; "0s" switches it off) for how long a provider's
// removal from the registry is held back before the consumer drops it. A
// provider that re-registers within it keeps its invoker and connection.
const DeleteGraceKey = "dubboroute.delete-grace"

// DefaultDeleteGrace covers dubbo-go providers re-registering after a
// ZooKeeper restart (about 0.5-1 s after the server is back).
const DefaultDeleteGrace = 3 * time.Second

// protectedRegistry wraps the registry a registry directory subscribes
// through, so that every provider notification passes an empty-protection
// filter before dubbo-go's directory sees it.
//
// Why: when ZooKeeper comes back after an outage, dubbo-go v3.3.2 opens new
// ZooKeeper sessions (its client's Reconnect closes the old one), so the
// providers' ephemeral nodes disappear and reappear a few seconds later. The
// consumer's directory receives a delete for every provider, destroys their
// invokers — whose connections were fine all along — and routes to nobody
// until the providers re-register. Java Dubbo's RegistryDirectory keeps its
// invokers when a notification would leave it with none (empty protection);
// this does the same one step earlier, by holding back the delete that would
// remove the last provider.
type protectedRegistry struct {
	registry.Registry
	grace time.Duration

	wrapped wrappers[*protectingListener]
}

func protect(r registry.Registry) registry.Registry {
	if r == nil {
		return r
	}
	grace := DefaultDeleteGrace
	if u := r.GetURL(); u != nil {
		if u.GetParam(EmptyProtectionKey, "true") == "false" {
			return r
		}
		if v := u.GetParam(DeleteGraceKey, ""); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d >= 0 {
				grace = d
			} else {
				logger.Warnf("[dubboroute] registry parameter %s=%q is not a duration; using %s", DeleteGraceKey, v, grace)
			}
		}
	}
	return &protectedRegistry{Registry: r, grace: grace, wrapped: newWrappers[*protectingListener]()}
}

func (p *protectedRegistry) wrap(l registry.NotifyListener) registry.NotifyListener {
	return p.wrapped.get(l, func() *protectingListener { return newProtectingListener(l, p.grace) })
}

// Subscribe implements registry.Registry.
func (p *protectedRegistry) Subscribe(u *common.URL, l registry.NotifyListener) error {
	return p.wrapped.subscribe(l, func() (registry.NotifyListener, error) {
		w := p.wrap(l)
		return w, p.Registry.Subscribe(u, w)
	}, func(w registry.NotifyListener) { _ = p.Registry.UnSubscribe(u, w) })
}

// UnSubscribe implements registry.Registry. The listener's protection
// ends with its subscription: its grace timers are stopped and its entries
// (live, pending, held) are dropped, so a destroyed reference leaves
// nothing behind (TestReferenceDestroyReleases).
func (p *protectedRegistry) UnSubscribe(u *common.URL, l registry.NotifyListener) error {
	w, ok := p.wrapped.remove(l)
	if !ok {
		return p.Registry.UnSubscribe(u, l)
	}
	err := p.Registry.UnSubscribe(u, w)
	w.close()
	return err
}

// ProtectedListeners is the number of live protecting listeners of the
// process (one per subscribed directory), for leak tests.
func ProtectedListeners() int {
	protectors.Lock()
	defer protectors.Unlock()
	return len(protectors.list)
}

// LoadSubscribeInstances implements registry.Registry.
func (p *protectedRegistry) LoadSubscribeInstances(u *common.URL, l registry.NotifyListener) error {
	return p.Registry.LoadSubscribeInstances(u, p.wrap(l))
}

// protectingListener forwards provider events to the directory with two
// protections:
//
//   - Delete grace: a provider's delete is forwarded only after the grace
//     period, and dropped if the provider registers again meanwhile (dubbo-go
//     providers re-register right after a ZooKeeper restart; their
//     connections never broke).
//   - Empty protection (Java Dubbo's): a delete that would leave the directory
//     with no provider is held back (the invoker stays) until another provider
//     is added; then it is forwarded, so a provider that really went away is
//     removed once the list is non-empty again.
//
// Calls into the directory are serialised.
type protectingListener struct {
	inner registry.NotifyListener
	grace time.Duration

	mu      sync.Mutex
	live    map[string]string                 // providers the directory has, not pending removal: the URL registered under each key
	pending map[string]*time.Timer            // deletes waiting out the grace period
	held    map[string]*registry.ServiceEvent // deletes held back by empty protection
	marks   map[string]holdMark               // when each pending or held delete arrived (for the console)
	// leaving are the pending deletes' marks in shared.Leaving: a provider
	// whose registration is gone is not picked while its removal waits
	// out the grace (while another routed provider is available).
	leaving map[string]shared.LeavingKey

	out sync.Mutex // serialises calls into inner
}

// holdMark is a delete that is being held back: the event and when it came.
type holdMark struct {
	ev    *registry.ServiceEvent
	since time.Time
}

func newProtectingListener(inner registry.NotifyListener, grace time.Duration) *protectingListener {
	l := &protectingListener{
		inner: inner, grace: grace,
		live: map[string]string{}, pending: map[string]*time.Timer{}, held: map[string]*registry.ServiceEvent{},
		marks: map[string]holdMark{}, leaving: map[string]shared.LeavingKey{},
	}
	protectors.Lock()
	protectors.list = append(protectors.list, l)
	protectors.Unlock()
	return l
}

// close stops the listener's grace timers, drops its state and removes it
// from protectors.
func (l *protectingListener) close() {
	l.mu.Lock()
	for _, t := range l.pending {
		t.Stop()
	}
	l.unmarkAllLocked()
	l.live, l.pending, l.held, l.marks = map[string]string{}, map[string]*time.Timer{}, map[string]*registry.ServiceEvent{}, map[string]holdMark{}
	l.mu.Unlock()
	protectors.Lock()
	defer protectors.Unlock()
	for i, x := range protectors.list {
		if x == l {
			protectors.list = append(protectors.list[:i:i], protectors.list[i+1:]...)
			break
		}
	}
}

// protectors are every protecting listener of the process (for Holds). Package
// state because the listeners are made inside registries built through
// dubbo-go's process-wide extension registry, which passes no context, and
// Holds reports process-wide.
var protectors struct {
	sync.Mutex
	list []*protectingListener
}

// Notify implements registry.NotifyListener.
func (l *protectingListener) Notify(ev *registry.ServiceEvent) {
	l.forward(l.filter(ev))
}

func (l *protectingListener) forward(evs []*registry.ServiceEvent) {
	if len(evs) == 0 {
		return
	}
	l.out.Lock()
	defer l.out.Unlock()
	for _, e := range evs {
		l.inner.Notify(e)
	}
}

// filter updates the state for one event and returns what to forward now,
// in order.
func (l *protectingListener) filter(ev *registry.ServiceEvent) []*registry.ServiceEvent {
	if ev == nil || ev.Service == nil {
		return []*registry.ServiceEvent{ev}
	}
	key := ev.Key()
	l.mu.Lock()
	defer l.mu.Unlock()
	if ev.Action == remoting.EventTypeDel {
		if _, isHeld := l.held[key]; isHeld {
			return nil
		}
		if _, isPending := l.pending[key]; isPending {
			return nil
		}
		live, known := l.live[key]
		if !known {
			return []*registry.ServiceEvent{ev} // unknown to us: let the directory decide
		}
		if deleted := ev.Service.String(); deleted != live {
			// The key (dubbo-go's invoker key: address, service and the
			// export timestamp) now holds a newer registration: a provider
			// that re-registered its configured URL (a provider-side
			// configurator, a re-export) registers the new URL before the
			// old one goes. dubbo-go's directory would remove the live
			// invoker under the key; Java's keeps it (its invokers are
			// keyed by the whole URL).
			logger.Infof("[dubboroute] provider %s: an earlier registration left the registry; the current one stays", ev.Service.Location)
			return nil
		}
		if l.grace <= 0 {
			return l.removeLocked(key, ev)
		}
		l.pending[key] = time.AfterFunc(l.grace, func() { l.expire(key, ev) })
		l.marks[key] = holdMark{ev: ev, since: time.Now()}
		lk := leavingKeyOf(ev)
		l.leaving[key] = lk
		shared.Leaving.Mark(lk)
		logger.Infof("[dubboroute] provider %s left the registry; not picked while another routed provider is available, removed after %s", ev.Service.Location, l.grace)
		return nil
	}
	// Add or update.
	if t, isPending := l.pending[key]; isPending {
		t.Stop()
		delete(l.pending, key)
		l.unmarkLocked(key)
		logger.Infof("[dubboroute] provider %s registered again within %s; its invoker was kept", ev.Service.Location, l.grace)
	}
	// A new registration at the address of a provider that is leaving (the
	// provider restarted on its port): the address serves again. The old
	// registration's removal still waits out its grace.
	if lk := leavingKeyOf(ev); shared.Leaving.Has(lk.Addr, lk) {
		for k, m := range l.leaving {
			if m == lk {
				l.unmarkLocked(k)
			}
		}
	}
	delete(l.held, key) // a held provider that came back was never removed
	delete(l.marks, key)
	l.live[key] = ev.Service.String()
	out := []*registry.ServiceEvent{ev}
	// The list is non-empty again: deletes held back for other providers are
	// due now.
	for k, d := range l.held {
		out = append(out, d)
		delete(l.held, k)
		logger.Infof("[dubboroute] empty protection: %s is gone for good (another provider registered)", d.Service.Location)
	}
	return out
}

// leavingKeyOf is the shared.Leaving key of ev's provider.
func leavingKeyOf(ev *registry.ServiceEvent) shared.LeavingKey {
	return shared.LeavingKey{Addr: ev.Service.Location, Service: ev.Service.ServiceKey()}
}

// unmarkLocked drops the leaving mark of the pending delete key, if any.
func (l *protectingListener) unmarkLocked(key string) {
	if lk, ok := l.leaving[key]; ok {
		delete(l.leaving, key)
		shared.Leaving.Unmark(lk)
	}
}

// unmarkAllLocked drops every leaving mark of l.
func (l *protectingListener) unmarkAllLocked() {
	for k := range l.leaving {
		l.unmarkLocked(k)
	}
}

// expire forwards a delete whose grace period passed without the provider
// coming back.
func (l *protectingListener) expire(key string, ev *registry.ServiceEvent) {
	l.mu.Lock()
	if _, still := l.pending[key]; !still {
		l.mu.Unlock()
		return
	}
	delete(l.pending, key)
	l.unmarkLocked(key)
	evs := l.removeLocked(key, ev)
	l.mu.Unlock()
	l.forward(evs)
}

// removeLocked drops a live provider, unless it is the last one (empty
// protection), and returns what to forward.
func (l *protectingListener) removeLocked(key string, ev *registry.ServiceEvent) []*registry.ServiceEvent {
	delete(l.live, key)
	if len(l.live) == 0 {
		l.held[key] = ev
		if _, ok := l.marks[key]; !ok {
			l.marks[key] = holdMark{ev: ev, since: time.Now()}
		}
		logger.Warnf("[dubboroute] empty protection: provider %s left the registry, but it was the last one; keeping it until another provider registers", ev.Service.Location)
		return nil
	}
	return []*registry.ServiceEvent{ev}
}

// NotifyAll implements registry.NotifyListener: a complete list. An empty
// list is ignored while providers are known (Java's empty protection);
// otherwise the list replaces the state (pending and held deletes included)
// and is forwarded.
func (l *protectingListener) NotifyAll(events []*registry.ServiceEvent, callback func()) {
	l.mu.Lock()
	if len(events) == 0 && (len(l.live) > 0 || len(l.held) > 0) {
		known := len(l.live) + len(l.held)
		l.mu.Unlock()
		logger.Warnf("[dubboroute] empty protection: the registry reported no provider; keeping the %d known", known)
		if callback != nil {
			callback()
		}
		return
	}
	for _, t := range l.pending {
		t.Stop()
	}
	l.unmarkAllLocked()
	l.live = map[string]string{}
	l.pending = map[string]*time.Timer{}
	l.held = map[string]*registry.ServiceEvent{}
	l.marks = map[string]holdMark{}
	for _, e := range events {
		if e != nil && e.Service != nil && e.Action != remoting.EventTypeDel {
			l.live[e.Key()] = e.Service.String()
		}
	}
	l.mu.Unlock()
	l.out.Lock()
	defer l.out.Unlock()
	l.inner.NotifyAll(events, callback)
}

// Hold is a provider removal that is being held back: by the delete grace
// ("pending") or by empty protection ("held", it was the last provider).
type Hold struct {
	// Interface of the provider, Address its host:port, URL its URL.
	Interface, Address, URL string
	// State is "pending" or "held".
	State string
	// Since is when the removal arrived.
	Since time.Time
}

// Holds lists the removals held back right now, process-wide, sorted by
// interface and address.
func Holds() []Hold {
	protectors.Lock()
	ls := append([]*protectingListener(nil), protectors.list...)
	protectors.Unlock()
	var out []Hold
	for _, l := range ls {
		l.mu.Lock()
		for key, m := range l.marks {
			state := ""
			if _, ok := l.held[key]; ok {
				state = "held"
			} else if _, ok := l.pending[key]; ok {
				state = "pending"
			}
			if state == "" || m.ev == nil || m.ev.Service == nil {
				continue
			}
			u := m.ev.Service
			out = append(out, Hold{Interface: u.GetParam(constant.InterfaceKey, u.Service()), Address: u.Location,
				URL: u.String(), State: state, Since: m.since})
		}
		l.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Interface != out[j].Interface {
			return out[i].Interface < out[j].Interface
		}
		return out[i].Address < out[j].Address
	})
	return out
}
