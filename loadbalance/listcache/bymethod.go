package listcache

import (
	"sync"
	"sync/atomic"
)

// ByMethod is the part of a plan made per method (a ring, an index, a
// rotation's entries): read with one atomic load and a map lookup, built
// once per method under a lock, published as a new map (copy on write).
// The zero value is empty and ready.
type ByMethod[V any] struct {
	m  atomic.Pointer[map[string]V]
	mu sync.Mutex
}

// Get returns the value of method, made by mk on first use. mk runs under
// the lock, at most once per method, and may read (never write) the
// values made so far, by method.
func (b *ByMethod[V]) Get(method string, mk func(made map[string]V) V) V {
	if m := b.m.Load(); m != nil {
		if v, ok := (*m)[method]; ok {
			return v
		}
	}
	return b.make(method, mk)
}

// make is Get's slow path: under the lock, method's value found or made
// and published.
func (b *ByMethod[V]) make(method string, mk func(made map[string]V) V) V {
	b.mu.Lock()
	defer b.mu.Unlock()
	var old map[string]V
	if m := b.m.Load(); m != nil {
		old = *m
	}
	if v, ok := old[method]; ok {
		return v
	}
	v := mk(old)
	next := make(map[string]V, len(old)+1)
	for k, o := range old {
		next[k] = o
	}
	next[method] = v
	b.m.Store(&next)
	return v
}
