package shared

import (
	"sync"
	"sync/atomic"
)

// LeavingKey names the providers of one service at one address.
type LeavingKey struct {
	// Addr is the provider's host:port; Service its service key
	// (interface:group:version as common.URL.ServiceKey gives it).
	Addr, Service string
}

// LeavingSet are the providers whose registration is gone while the
// consumer still holds their invokers: the delete grace of
// extension/discovery holds the removal back (for providers that
// re-register after a ZooKeeper restart), and meanwhile the strategies do
// not pick them while another routed provider is available. A Java
// consumer drops such a provider at once; picking it through the grace
// sends calls to a provider that is stopping, and a Java provider closes
// its server after dubbo.service.shutdown.wait whatever the consumer
// does. Marks are counted: every directory holding the removal marks the
// key once and unmarks it once. Safe for concurrent use.
type LeavingSet struct {
	n     atomic.Int32 // marked keys; read alone on the hot path
	mu    sync.Mutex
	m     map[LeavingKey]int
	addrs map[string]int // marked keys per address
}

// Leaving is the process's set: the discovery wrappers mark, the cluster
// strategies read (one table, as the connections it describes are shared by
// every reference of the process, and the wrappers and invokers that meet here
// are made through dubbo-go's process-wide extension registry, which passes no
// context).
var Leaving = &LeavingSet{}

// Mark records one holder of k's pending removal.
func (s *LeavingSet) Mark(k LeavingKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m, s.addrs = map[LeavingKey]int{}, map[string]int{}
	}
	if s.m[k] == 0 {
		s.n.Add(1)
		s.addrs[k.Addr]++
	}
	s.m[k]++
}

// Unmark drops one holder of k's pending removal (a no-op if none).
func (s *LeavingSet) Unmark(k LeavingKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.m[k]
	switch {
	case c == 0:
		return
	case c == 1:
		delete(s.m, k)
		s.n.Add(-1)
		if s.addrs[k.Addr] <= 1 {
			delete(s.addrs, k.Addr)
		} else {
			s.addrs[k.Addr]--
		}
	default:
		s.m[k] = c - 1
	}
}

// Any reports whether any key is marked: one atomic load.
func (s *LeavingSet) Any() bool { return s.n.Load() > 0 }

// Has reports whether k is marked.
func (s *LeavingSet) Has(k LeavingKey) bool {
	if !s.Any() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k] > 0
}

// HasAddr reports whether any key at addr is marked: the check before a
// caller builds a key's service name.
func (s *LeavingSet) HasAddr(addr string) bool {
	if !s.Any() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addrs[addr] > 0
}
