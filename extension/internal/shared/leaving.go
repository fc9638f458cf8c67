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

// ServiceKey is k.Service: a LeavingKey names its own service for Has.
func (k LeavingKey) ServiceKey() string { return k.Service }

// ServiceKeyer names a provider's service; a dubbo-go *common.URL is one.
type ServiceKeyer interface {
	ServiceKey() string
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
	n  atomic.Int32 // marked keys; read alone on the hot path
	mu sync.Mutex
	m  map[string]map[string]int // address -> service key -> holders
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
		s.m = map[string]map[string]int{}
	}
	svc := s.m[k.Addr]
	if svc == nil {
		svc = map[string]int{}
		s.m[k.Addr] = svc
	}
	if svc[k.Service] == 0 {
		s.n.Add(1)
	}
	svc[k.Service]++
}

// Unmark drops one holder of k's pending removal (a no-op if none).
func (s *LeavingSet) Unmark(k LeavingKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	svc := s.m[k.Addr]
	switch c := svc[k.Service]; {
	case c == 0:
	case c > 1:
		svc[k.Service] = c - 1
	default:
		delete(svc, k.Service)
		s.n.Add(-1)
		if len(svc) == 0 {
			delete(s.m, k.Addr)
		}
	}
}

// Any reports whether any key is marked: one atomic load.
func (s *LeavingSet) Any() bool { return s.n.Load() > 0 }

// Has reports whether the providers of p's service at addr are marked: one
// atomic load while no key is, and p.ServiceKey() (which allocates for a
// dubbo-go URL) called only while a key at addr is.
func (s *LeavingSet) Has(addr string, p ServiceKeyer) bool {
	if !s.Any() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	svc := s.m[addr]
	return len(svc) > 0 && svc[p.ServiceKey()] > 0
}
