package consumer

import (
	"sort"
	"sync"
	"time"

	"github.com/dubboroute/dubboroute/cluster"
)

// This file is the read-only view of the process's routing state that the
// console (package console) shows. Nothing here is on the call path.

// MaxNoProviders is how many recent "no provider" answers a binding keeps.
const MaxNoProviders = 20

// AllBindings returns every live binding, sorted by interface (bindings of
// one interface in creation order).
func AllBindings() []*Binding {
	bindings.Lock()
	ifaces := make([]string, 0, len(bindings.m))
	for k := range bindings.m {
		ifaces = append(ifaces, k)
	}
	sort.Strings(ifaces)
	var out []*Binding
	for _, k := range ifaces {
		out = append(out, bindings.m[k]...)
	}
	bindings.Unlock()
	return out
}

// Interface is the interface of the binding's reference.
func (b *Binding) Interface() string { return b.iface }

// LoadBalance is the reference's configured load balancer ("" if none).
func (b *Binding) LoadBalance() string { return b.lb }

// RouterCounts are the calls one router of the chain saw, by outcome.
type RouterCounts struct {
	Router                string
	Kept, Filtered, Empty uint64
}

// Counters reads the binding's per-router counters (the Prometheus series
// dubboroute_routed_total of its interface: bindings of one interface share
// them).
func (b *Binding) Counters() []RouterCounts {
	out := make([]RouterCounts, len(cluster.RouterNames))
	for r, name := range cluster.RouterNames {
		out[r].Router = name
		out[r].Kept = b.metrics.RoutedCount(r, cluster.OutcomeKept)
		out[r].Filtered = b.metrics.RoutedCount(r, cluster.OutcomeFiltered)
		out[r].Empty = b.metrics.RoutedCount(r, cluster.OutcomeEmpty)
	}
	return out
}

// NoProviderRecord is one call that routing left without a provider.
type NoProviderRecord struct {
	At  time.Time
	Err *cluster.NoProviderError
}

// noProviders is a binding's ring of recent no-provider answers.
type noProviders struct {
	mu   sync.Mutex
	ring [MaxNoProviders]NoProviderRecord
	next int
	n    int
}

func (r *noProviders) add(err *cluster.NoProviderError) {
	r.mu.Lock()
	r.ring[r.next] = NoProviderRecord{At: time.Now(), Err: err}
	r.next = (r.next + 1) % MaxNoProviders
	if r.n < MaxNoProviders {
		r.n++
	}
	r.mu.Unlock()
}

// NoProviders returns the binding's recent no-provider answers, newest
// first (at most MaxNoProviders).
func (b *Binding) NoProviders() []NoProviderRecord {
	r := &b.noProv
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]NoProviderRecord, 0, r.n)
	for i := 1; i <= r.n; i++ {
		out = append(out, r.ring[(r.next-i+MaxNoProviders)%MaxNoProviders])
	}
	return out
}
