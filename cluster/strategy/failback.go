package strategy

import (
	"sync/atomic"
	"time"
)

// Failback is the retry queue of one cluster invoker (Java's
// FailbackClusterInvoker timer): at most Tasks pending retries.
type Failback struct {
	// Retries is the consumer URL's service-level retries (default 3;
	// negative: 3). Retries are made only when it is > 0.
	Retries int
	// Tasks bounds the pending retries (failbacktasks, default 100).
	Tasks int
	// Delay is the first delay and the interval (default FailbackDelay).
	Delay time.Duration
	// After schedules f (time.AfterFunc when nil).
	After func(d time.Duration, f func())

	pending atomic.Int32
}

func (f *Failback) after(d time.Duration, fn func()) {
	if f.After != nil {
		f.After(d, fn)
		return
	}
	time.AfterFunc(d, fn)
}

// Invoke is Java's FailbackClusterInvoker.doInvoke: one call; a thrown
// failure returns an empty result at once and schedules up to Retries
// background calls, Delay apart, each on a provider of the list captured
// now other than the last tried (retry must invoke detached from the
// caller's context); a result that is not thrown ends them. It returns
// whether a retry was scheduled.
func FailbackInvoke[I Invoker, R any](f *Failback, c Call[I, R], s *Selector[I], invokers []I, sticky bool) (R, bool) {
	ivk := s.Select(pickOf(c), invokers, nil, sticky)
	r, ivk := invokeRedirect(c, s, "failback", ivk, invokers, nil, sticky)
	if !c.Kind(r).IsThrown() {
		return r, false
	}
	retries := f.Retries
	if retries < 0 {
		retries = DefaultFailbackTimes
	}
	if retries == 0 {
		return c.Empty(), false
	}
	tasks := f.Tasks
	if tasks <= 0 {
		tasks = DefaultFailbackTasks
	}
	if int(f.pending.Add(1)) > tasks {
		f.pending.Add(-1)
		return c.Empty(), false
	}
	delay := f.Delay
	if delay <= 0 {
		delay = FailbackDelay
	}
	captured := append([]I(nil), invokers...)
	last := ivk
	tried := 0
	var run func()
	run = func() {
		next := s.Select(pickOf(c), captured, []I{last}, sticky)
		last = next
		r := invokeSelected(c, "failback", next)
		if !c.Kind(r).IsThrown() {
			f.pending.Add(-1)
			return
		}
		if tried++; tried >= retries {
			f.pending.Add(-1)
			return
		}
		f.after(delay, run)
	}
	f.after(delay, run)
	return c.Empty(), true
}
