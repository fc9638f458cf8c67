package gray

import (
	"math"
	"sync"
	"sync/atomic"
)

// rrState is the smooth weighted round-robin state (nginx style, as Java's
// RoundRobinLoadBalance) of one weight table. A rebuilt table (warm-up step)
// starts from zero, as Java resets a provider whose weight changed.
//
// Two implementations exist because the brief asked to measure them:
// a tiny mutex around the O(n) update (exact smooth sequence even under
// concurrency), and Java's lock-free per-entry atomics (each add is atomic,
// the whole update is not, so concurrent picks may interleave; the weights'
// sum is conserved so the long-run distribution holds). BenchmarkRoundRobin
// compares them; the mutex wins or ties on this hardware (see README), so it
// is the one used.
type rrState struct {
	mu  sync.Mutex
	cur []int64
	at  []atomic.Int64
}

func (s *rrState) init(n int) {
	s.cur = make([]int64, n)
	s.at = make([]atomic.Int64, n)
}

// weightOrOne treats an all-zero table as all ones so round robin still
// rotates (Java would return the first provider forever).
func weightOrOne(t *table, i int) int64 {
	if t.total == 0 {
		return 1
	}
	return t.weights[i]
}

func totalOrN(t *table) int64 {
	if t.total == 0 {
		return int64(len(t.weights))
	}
	return t.total
}

// pickLocked is the smooth weighted round robin under a mutex.
func (t *table) pickLocked() int {
	s := &t.rr
	total := totalOrN(t)
	s.mu.Lock()
	sel, best := 0, int64(math.MinInt64)
	for i := range s.cur {
		s.cur[i] += weightOrOne(t, i)
		if s.cur[i] > best { // strict: the first of equals wins, as in Java
			best, sel = s.cur[i], i
		}
	}
	s.cur[sel] -= total
	s.mu.Unlock()
	return sel
}

// pickAtomic is Java's lock-free variant (per-entry atomic adds).
func (t *table) pickAtomic() int {
	s := &t.rr
	total := totalOrN(t)
	sel, best := 0, int64(math.MinInt64)
	for i := range s.at {
		if c := s.at[i].Add(weightOrOne(t, i)); c > best {
			best, sel = c, i
		}
	}
	s.at[sel].Add(-total)
	return sel
}
