package strategy

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// DefaultReselectCount is Java's dubbo.reselect.count default.
const DefaultReselectCount = 10

// Selector is the per-cluster-invoker selection state of Java's
// AbstractClusterInvoker: availablecheck, the reselect count and the sticky
// invoker. Safe for concurrent use; the zero value is not ready (use
// NewSelector).
type Selector[I Invoker] struct {
	// AvailableCheck is cluster.availablecheck (default true): unavailable
	// picks are reselected and the sticky invoker is honoured only with it.
	AvailableCheck bool
	// ReselectCount is Java's dubbo.reselect.count (default 10).
	ReselectCount int
	// Invalidate, if set, is called for an unavailable invoker that was
	// picked (Java's directory.addInvalidateInvoker).
	Invalidate func(I)
	// Intn draws for reselect when ReselectCount < len(invokers)
	// (ThreadLocalRandom in Java); nil: math/rand/v2.
	Intn func(n int) int
	// Avail, if set, is Java's invoker.isAvailable() as the selection
	// sees it (nil: the invoker's own IsAvailable). The dubbo-go glue sets
	// it to also report a provider whose connection it saw down (see
	// extension/strategies), which dubbo-go's IsAvailable does not.
	Avail func(I) bool

	hasSticky atomic.Bool
	mu        sync.Mutex
	sticky    I
}

// NewSelector returns a selector with Java's defaults.
func NewSelector[I Invoker]() *Selector[I] {
	return &Selector[I]{AvailableCheck: true, ReselectCount: DefaultReselectCount}
}

func (s *Selector[I]) intn(n int) int {
	if s.Intn != nil {
		return s.Intn(n)
	}
	return rand.IntN(n)
}

// Available is Java's invoker.isAvailable() as this selector sees it:
// Avail when set, else the invoker's IsAvailable.
func (s *Selector[I]) Available(x I) bool {
	if s.Avail != nil {
		return s.Avail(x)
	}
	return x.IsAvailable()
}

func (s *Selector[I]) invalidate(x I) {
	if s.Invalidate != nil {
		s.Invalidate(x)
	}
}

// Select is Java's AbstractClusterInvoker.select: the sticky invoker when
// sticky is on (the first invoker URL's method parameter sticky), it is
// still listed, not already selected and available (with availablecheck),
// else doSelect. The zero I for an empty list.
func (s *Selector[I]) Select(pick func([]I) I, invokers, selected []I, sticky bool) I {
	var zero I
	if len(invokers) == 0 {
		return zero
	}
	if s.hasSticky.Load() {
		s.mu.Lock()
		st := s.sticky
		if !contains(invokers, st) {
			s.sticky = zero
			s.hasSticky.Store(false)
			st = zero
		}
		s.mu.Unlock()
		if sticky && st != zero && !contains(selected, st) && s.AvailableCheck && s.Available(st) {
			return st
		}
	}
	ivk := s.doSelect(pick, invokers, selected)
	if sticky {
		s.mu.Lock()
		s.sticky = ivk
		s.hasSticky.Store(ivk != zero)
		s.mu.Unlock()
	}
	return ivk
}

// doSelect is Java's AbstractClusterInvoker.doSelect.
func (s *Selector[I]) doSelect(pick func([]I) I, invokers, selected []I) I {
	var zero I
	if len(invokers) == 1 {
		ivk := invokers[0]
		if s.AvailableCheck && !s.Available(ivk) {
			s.invalidate(ivk)
		}
		return ivk
	}
	ivk := pick(invokers)
	if ivk == zero {
		return zero
	}
	isSelected := contains(selected, ivk)
	isUnavailable := s.AvailableCheck && !s.Available(ivk)
	if isUnavailable {
		s.invalidate(ivk)
	}
	if isSelected || isUnavailable {
		if r := s.reselect(pick, invokers, selected); r != zero {
			return r
		}
		if i := indexOf(invokers, ivk); i >= 0 {
			return invokers[(i+1)%len(invokers)]
		}
	}
	return ivk
}

// reselect is Java's AbstractClusterInvoker.reselect.
func (s *Selector[I]) reselect(pick func([]I) I, invokers, selected []I) I {
	var zero I
	n := s.ReselectCount
	cands := make([]I, 0, min(len(invokers), max(n, 0)))
	if n >= len(invokers) {
		for _, ivk := range invokers {
			if s.AvailableCheck && !s.Available(ivk) {
				s.invalidate(ivk)
				continue
			}
			if !contains(selected, ivk) {
				cands = append(cands, ivk)
			}
		}
	} else {
		for i := 0; i < n; i++ {
			ivk := invokers[s.intn(len(invokers))]
			if s.AvailableCheck && !s.Available(ivk) {
				s.invalidate(ivk)
				continue
			}
			// Java's condition: only an invoker both tried and already a
			// candidate is skipped, so draws add duplicates and tried ones.
			if !contains(selected, ivk) || !contains(cands, ivk) {
				cands = append(cands, ivk)
			}
		}
	}
	if len(cands) > 0 {
		return pick(cands)
	}
	for _, ivk := range selected {
		if ivk != zero && s.Available(ivk) && !contains(cands, ivk) {
			cands = append(cands, ivk)
		}
	}
	if len(cands) > 0 {
		return pick(cands)
	}
	return zero
}
