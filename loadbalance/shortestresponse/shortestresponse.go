package shortestresponse

import (
	"sync"
	"sync/atomic"

	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

// Name is Java's extension name.
const Name = "shortestresponse"

// DefaultSlidePeriod is Java's default shortestResponseSlidePeriod (ms).
const DefaultSlidePeriod = 30000

// Counters are one provider's call statistics for one method (Java's
// RpcStatus).
type Counters interface {
	// Active is the number of calls in flight.
	Active() int64
	// Succeeded is the number of successful calls so far.
	Succeeded() int64
	// SucceededElapsed is their total elapsed time in ms.
	SucceededElapsed() int64
}

// Window is Java's SlideWindowData for one Counters.
type Window struct {
	c                     Counters
	offset, elapsedOffset atomic.Int64
}

// Estimate is Java's getEstimateResponse.
func (w *Window) Estimate() int64 {
	return w.EstimateOf(w.c.Active(), w.c.Succeeded(), w.c.SucceededElapsed())
}

// EstimateOf is Estimate from the window's counters as the caller read
// them (their Active, Succeeded and SucceededElapsed): a caller holding
// the concrete counters reads them without the interface calls.
func (w *Window) EstimateOf(active, succeeded, succeededElapsed int64) int64 {
	succeeded -= w.offset.Load()
	var avg int64
	if succeeded != 0 {
		avg = (succeededElapsed - w.elapsedOffset.Load()) / succeeded
	}
	return avg * (active + 1)
}

func (w *Window) reset() {
	w.offset.Store(w.c.Succeeded())
	w.elapsedOffset.Store(w.c.SucceededElapsed())
}

// Windows is the balancer's state (Java's methodMap): one Window per
// Counters, and the slide clock. Safe for concurrent use.
type Windows struct {
	mu         sync.Mutex
	byCounters map[Counters]*Window
	period     int64
	last       atomic.Int64
	resetting  atomic.Bool
	slides     atomic.Uint64
	clock      weight.Clock
}

// NewWindows makes the state with a slide period in ms (<= 0: the
// default) and a clock (nil: weight.DefaultClock).
func NewWindows(period int64, clock weight.Clock) *Windows {
	if period <= 0 {
		period = DefaultSlidePeriod
	}
	if clock == nil {
		clock = weight.DefaultClock
	}
	w := &Windows{byCounters: map[Counters]*Window{}, period: period, clock: clock}
	w.last.Store(clock())
	return w
}

// Window returns the window of c, made on first use (Counters must be
// comparable, e.g. a pointer).
func (ws *Windows) Window(c Counters) *Window {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w := ws.byCounters[c]
	if w == nil {
		w = &Window{c: c}
		ws.byCounters[c] = w
	}
	return w
}

// Windows returns the windows of cs, in order, as Window does; the ones
// made here are allocated together, so that a routed list's windows are
// adjacent in memory.
func (ws *Windows) Windows(cs []Counters) []*Window {
	out := make([]*Window, len(cs))
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var slab []Window
	for i, c := range cs {
		w := ws.byCounters[c]
		if w == nil {
			if len(slab) == 0 {
				slab = make([]Window, len(cs)-i)
			}
			w = &slab[0]
			slab = slab[1:]
			w.c = c
			ws.byCounters[c] = w
		}
		out[i] = w
	}
	return out
}

// Pick returns the index Java's ShortestResponseLoadBalance picks, given
// the routed providers' windows (windows[i] for provider i of t).
func (ws *Windows) Pick(t *weight.Table, windows []*Window, rnd weight.Rand) int {
	i := leastactive.PickBy(t, func(i int) int64 { return windows[i].Estimate() }, rnd)
	ws.slide()
	return i
}

// PickIndex is Pick kept by an index over the windows' estimates
// (leastactive.Index, updated by the counters it reads as they change):
// O(log n). seen is the index's count of slides: when the windows slid
// since, every estimate changed and the index reads them all again.
func (ws *Windows) PickIndex(t *weight.Table, x *leastactive.Index, seen *atomic.Uint64, rnd weight.Rand) int {
	if s := ws.slides.Load(); seen.Load() != s {
		seen.Store(s)
		x.Refresh()
	}
	i := x.Pick(t, rnd)
	ws.slide()
	return i
}

// slide restarts every window once the slide period has passed (Java's
// resetSlideWindow, after the pick).
func (ws *Windows) slide() {
	if now := ws.clock(); now-ws.last.Load() > ws.period && ws.resetting.CompareAndSwap(false, true) {
		ws.mu.Lock()
		for _, w := range ws.byCounters {
			w.reset()
		}
		ws.mu.Unlock()
		ws.last.Store(ws.clock())
		ws.slides.Add(1)
		ws.resetting.Store(false)
	}
}
