package status

import (
	"sync"
	"sync/atomic"
	"weak"

	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
)

// Status is one provider's counters for one method. Its methods are safe
// for concurrent use; Begin and End update every index watching it.
type Status struct {
	active, total, failed       atomic.Int64
	totalElapsed, failedElapsed atomic.Int64

	mu       sync.Mutex
	watchers []watcher
}

// watcher is an index holding this status at position i; weak, so that an
// index dropped with its plan is not kept alive by the providers' counters.
type watcher struct {
	x weak.Pointer[leastactive.Index]
	i int
}

// Begin counts a call starting (Java's RpcStatus.beginCount).
func (s *Status) Begin() {
	s.active.Add(1)
	s.notify()
}

// End counts a call ending after elapsed ms (Java's RpcStatus.endCount:
// a business exception is a success).
func (s *Status) End(elapsed int64, succeeded bool) {
	s.active.Add(-1)
	s.total.Add(1)
	s.totalElapsed.Add(elapsed)
	if !succeeded {
		s.failed.Add(1)
		s.failedElapsed.Add(elapsed)
	}
	s.notify()
}

// Reset sets the counters back to zero (for tests and tools between
// cases; not while calls are counted).
func (s *Status) Reset() {
	s.active.Store(0)
	s.total.Store(0)
	s.failed.Store(0)
	s.totalElapsed.Store(0)
	s.failedElapsed.Store(0)
	s.notify()
}

// Active is the calls begun and not ended.
func (s *Status) Active() int64 { return s.active.Load() }

// Total is the calls ended.
func (s *Status) Total() int64 { return s.total.Load() }

// Failed is the calls ended with a failure.
func (s *Status) Failed() int64 { return s.failed.Load() }

// Succeeded is the calls ended successfully.
func (s *Status) Succeeded() int64 { return s.total.Load() - s.failed.Load() }

// SucceededElapsed is the ms the successful calls took in all.
func (s *Status) SucceededElapsed() int64 { return s.totalElapsed.Load() - s.failedElapsed.Load() }

// Watch makes every later change of s update x at position i.
func (s *Status) Watch(x *leastactive.Index, i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.watchers[:0]
	for _, w := range s.watchers {
		if w.x.Value() != nil {
			live = append(live, w)
		}
	}
	clear(s.watchers[len(live):])
	s.watchers = append(live, watcher{x: weak.Make(x), i: i})
}

func (s *Status) notify() {
	s.mu.Lock()
	for _, w := range s.watchers {
		if x := w.x.Value(); x != nil {
			x.Update(w.i)
		}
	}
	s.mu.Unlock()
}
