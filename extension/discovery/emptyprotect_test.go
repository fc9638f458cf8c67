package discovery

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"

	"github.com/dubboroute/dubboroute/extension/internal/shared"
)

// recorder is the directory side: it applies what it is told.
type recorder struct {
	mu   sync.Mutex
	have map[string]bool
	log  []string
}

func (r *recorder) Notify(ev *registry.ServiceEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.have == nil {
		r.have = map[string]bool{}
	}
	k := ev.Service.Location
	if ev.Action == remoting.EventTypeDel {
		delete(r.have, k)
		r.log = append(r.log, "del "+k)
		return
	}
	r.have[k] = true
	r.log = append(r.log, "add "+k)
}

func (r *recorder) NotifyAll(evs []*registry.ServiceEvent, cb func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.have = map[string]bool{}
	for _, e := range evs {
		r.have[e.Service.Location] = true
	}
	r.log = append(r.log, fmt.Sprintf("all %d", len(evs)))
	if cb != nil {
		cb()
	}
}

func (r *recorder) providers() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.have {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func event(t *testing.T, action remoting.EventType, addr string) *registry.ServiceEvent {
	t.Helper()
	return eventWith(t, action, addr, "")
}

// eventWith is event with more URL parameters (params: "&k=v...").
func eventWith(t *testing.T, action remoting.EventType, addr, params string) *registry.ServiceEvent {
	t.Helper()
	u, err := common.NewURL("dubbo://" + addr + "/com.muke.dubbocourse.common.api.BookFacade?interface=com.muke.dubbocourse.common.api.BookFacade" + params)
	if err != nil {
		t.Fatal(err)
	}
	return &registry.ServiceEvent{Action: action, Service: u}
}

func TestEmptyProtection(t *testing.T) {
	const p1, p2, p3 = "127.0.0.1:20880", "127.0.0.1:20881", "127.0.0.1:20882"
	add, del := remoting.EventTypeAdd, remoting.EventTypeDel
	steps := []struct {
		name   string
		action remoting.EventType
		addr   string
		want   string // providers the directory has afterwards
	}{
		{"first provider", add, p1, p1},
		{"second provider", add, p2, p1 + "," + p2},
		{"a delete that leaves one passes", del, p1, p2},
		{"the delete of the last provider is held", del, p2, p2},
		{"a repeated held delete is held", del, p2, p2},
		{"the held provider comes back", add, p2, p2},
		{"another provider joins", add, p3, p2 + "," + p3},
		{"the only remaining delete rules again", del, p3, p2},
		{"last one held again", del, p2, p2},
		{"a new provider flushes the held delete", add, p1, p1},
	}
	rec := &recorder{}
	l := newProtectingListener(rec, 0)
	for _, s := range steps {
		l.Notify(event(t, s.action, s.addr))
		if got := rec.providers(); got != s.want {
			t.Fatalf("%s: directory has %q, want %q (log %v)", s.name, got, s.want, rec.log)
		}
	}
}

func TestEmptyProtectionIgnoresEmptyFullList(t *testing.T) {
	rec := &recorder{}
	l := newProtectingListener(rec, 0)
	l.NotifyAll([]*registry.ServiceEvent{event(t, remoting.EventTypeAdd, "127.0.0.1:20880")}, nil)
	called := false
	l.NotifyAll(nil, func() { called = true })
	if rec.providers() != "127.0.0.1:20880" || !called {
		t.Fatalf("empty full list: directory has %q (callback %v)", rec.providers(), called)
	}
	l.NotifyAll([]*registry.ServiceEvent{event(t, remoting.EventTypeAdd, "127.0.0.1:20881")}, nil)
	if rec.providers() != "127.0.0.1:20881" {
		t.Fatalf("new full list: directory has %q", rec.providers())
	}
}

func TestEmptyProtectionCanBeSwitchedOff(t *testing.T) {
	u, _ := common.NewURL("zookeeper://127.0.0.1:2181?" + EmptyProtectionKey + "=false")
	r := &urlOnlyRegistry{url: u}
	if protect(r) != registry.Registry(r) {
		t.Fatal("enable-empty-protection=false must leave the registry unwrapped")
	}
	u2, _ := common.NewURL("zookeeper://127.0.0.1:2181")
	if _, ok := protect(&urlOnlyRegistry{url: u2}).(*protectedRegistry); !ok {
		t.Fatal("empty protection must be on by default")
	}
}

type urlOnlyRegistry struct {
	registry.Registry
	url *common.URL
}

func (r *urlOnlyRegistry) GetURL() *common.URL { return r.url }

// dubbo-go providers vanish from ZooKeeper and re-register right after a
// ZooKeeper restart: within the grace period their invokers must stay, and a
// provider that does not come back is dropped once the period is over.
func TestDeleteGrace(t *testing.T) {
	const p1, p2 = "127.0.0.1:20880", "127.0.0.1:20881"
	add, del := remoting.EventTypeAdd, remoting.EventTypeDel
	rec := &recorder{}
	l := newProtectingListener(rec, 200*time.Millisecond)
	l.Notify(event(t, add, p1))
	l.Notify(event(t, add, p2))

	// Both vanish and come back within the grace period: nothing changes.
	l.Notify(event(t, del, p1))
	l.Notify(event(t, del, p2))
	if got := rec.providers(); got != p1+","+p2 {
		t.Fatalf("during the grace period the directory has %q", got)
	}
	l.Notify(event(t, add, p2))
	l.Notify(event(t, add, p1))
	time.Sleep(400 * time.Millisecond) // past the grace period of the cancelled deletes
	if got := rec.providers(); got != p1+","+p2 {
		t.Fatalf("after re-registration the directory has %q", got)
	}
	for _, line := range rec.log {
		if strings.HasPrefix(line, "del") {
			t.Fatalf("a delete reached the directory although the provider came back: %v", rec.log)
		}
	}

	// p2 goes for good: it is dropped once the grace period is over.
	l.Notify(event(t, del, p2))
	deadline := time.Now().Add(5 * time.Second)
	for rec.providers() != p1 {
		if time.Now().After(deadline) {
			t.Fatalf("p2 never dropped: directory has %q", rec.providers())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The last one goes: empty protection keeps it.
	l.Notify(event(t, del, p1))
	time.Sleep(400 * time.Millisecond)
	if got := rec.providers(); got != p1 {
		t.Fatalf("the last provider was dropped: directory has %q", got)
	}
}

// A provider whose registration is gone is marked leaving (shared.Leaving,
// which the strategies read to avoid it) for as long as the delete grace
// keeps its invoker: unmarked when it registers again, when another
// registration appears at its address (restarted on its port), when its
// removal is forwarded, and when the subscription ends.
func TestDeleteGraceMarksLeaving(t *testing.T) {
	const p1, p2 = "127.0.0.1:20880", "127.0.0.1:20881"
	add, del := remoting.EventTypeAdd, remoting.EventTypeDel
	k1 := shared.LeavingKey{Addr: p1, Service: event(t, add, p1).Service.ServiceKey()}
	rec := &recorder{}
	l := newProtectingListener(rec, 150*time.Millisecond)
	l.Notify(event(t, add, p1))
	l.Notify(event(t, add, p2))
	leaving := func() bool { return shared.Leaving.Has(k1.Addr, k1) }

	l.Notify(event(t, del, p1))
	if !leaving() {
		t.Fatal("a provider whose removal waits out the grace is not marked leaving")
	}
	l.Notify(event(t, add, p1))
	if leaving() {
		t.Fatal("a provider that registered again is still marked leaving")
	}

	// Restarted on its port: the new registration is another URL.
	l.Notify(event(t, del, p1))
	restarted := restartedEvent(t, add, p1)
	if restarted.Key() == event(t, add, p1).Key() {
		t.Fatal("test setup: the restarted provider's event has the old key")
	}
	l.Notify(restarted)
	if leaving() {
		t.Fatal("the address is marked leaving after a new registration at it")
	}

	// Gone for good: unmarked when the removal is forwarded.
	l.Notify(event(t, del, p2))
	k2 := shared.LeavingKey{Addr: p2, Service: k1.Service}
	if !shared.Leaving.Has(k2.Addr, k2) {
		t.Fatal("p2 not marked leaving")
	}
	if err := waitFor(2*time.Second, func() bool { return !shared.Leaving.Has(k2.Addr, k2) }); err != nil {
		t.Fatalf("p2 still marked leaving after its grace: %v (directory %q)", err, rec.providers())
	}

	// The subscription ends while a removal is pending: unmarked.
	l.Notify(restartedEvent(t, del, p1))
	if !leaving() {
		t.Fatal("the restarted provider's removal is not marked leaving")
	}
	l.close()
	if shared.Leaving.Any() {
		t.Fatal("marks left after the listener closed")
	}
}

// restartedEvent is event's provider registered again with another
// timestamp (a new registration of the same service at the same address).
func restartedEvent(t *testing.T, action remoting.EventType, addr string) *registry.ServiceEvent {
	t.Helper()
	return eventWith(t, action, addr, "&timestamp=2")
}

func waitFor(d time.Duration, ok func() bool) error {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// A provider that re-registers its configured URL (a provider-side
// configurator, a Java re-export) registers the new URL before the old one
// goes, under the same dubbo-go invoker key (address, service, export
// timestamp). The old registration's delete must not remove the provider
// (dubbo-go's directory would drop the live invoker under the key; a Java
// consumer keys its invokers by the whole URL and keeps it), nor mark it
// leaving; its own later delete still removes it.
func TestReRegistrationKeepsProvider(t *testing.T) {
	const p1, p2 = "127.0.0.1:20880", "127.0.0.1:20881"
	add, del := remoting.EventTypeAdd, remoting.EventTypeDel
	for _, grace := range []time.Duration{0, 100 * time.Millisecond} {
		rec := &recorder{}
		l := newProtectingListener(rec, grace)
		old, cur := "&timestamp=1700000000000&disabled=true", "&timestamp=1700000000000"
		if a, b := eventWith(t, add, p1, old), eventWith(t, add, p1, cur); a.Key() != b.Key() {
			t.Fatalf("the two registrations have different invoker keys %q and %q", a.Key(), b.Key())
		}
		l.Notify(eventWith(t, add, p1, old))
		l.Notify(event(t, add, p2))
		l.Notify(eventWith(t, add, p1, cur))
		l.Notify(eventWith(t, del, p1, old))
		k1 := shared.LeavingKey{Addr: p1, Service: event(t, add, p1).Service.ServiceKey()}
		if shared.Leaving.Has(k1.Addr, k1) {
			t.Errorf("grace %v: the re-registered provider is marked leaving", grace)
		}
		time.Sleep(2 * grace)
		if got := rec.providers(); got != p1+","+p2 {
			t.Fatalf("grace %v: after the old registration's delete the directory has %q (log %v)", grace, got, rec.log)
		}
		for _, line := range rec.log {
			if strings.HasPrefix(line, "del") {
				t.Fatalf("grace %v: the old registration's delete reached the directory: %v", grace, rec.log)
			}
		}
		l.Notify(eventWith(t, del, p1, cur))
		deadline := time.Now().Add(5 * time.Second)
		for rec.providers() != p2 {
			if time.Now().After(deadline) {
				t.Fatalf("grace %v: the current registration's delete never removed p1: %q", grace, rec.providers())
			}
			time.Sleep(10 * time.Millisecond)
		}
		l.close()
	}
}
