package strategy

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Java's defaults.
const (
	DefaultRetries       = 2    // failover retries (attempts = retries + 1)
	DefaultFailbackTimes = 3    // failback retries
	DefaultFailbackTasks = 100  // failbacktasks
	DefaultForks         = 2    // forks
	DefaultForkTimeout   = 1000 // forking timeout, ms
	DefaultFailPercent   = 100  // broadcast.fail.percent
	// FailbackDelay is the first retry delay and the interval between
	// failback retries (Java: RETRY_FAILED_PERIOD 5 s on a 1 s wheel).
	FailbackDelay = 5 * time.Second
)

// Attempts is Java's FailoverClusterInvoker.calculateInvokeTimes: the
// consumer URL's retries + 1, overridden by a numeric client attachment
// (attached: whether there is one), at least 1.
func Attempts(retries int, attachment int, attached bool) int {
	n := retries + 1
	if attached {
		n = attachment + 1
	}
	if n <= 0 {
		n = 1
	}
	return n
}

func pickOf[I Invoker, R any](c Call[I, R]) func([]I) I { return c.Pick }

// invokeSelected invokes ivk, or fails when the selection found none.
func invokeSelected[I Invoker, R any](c Call[I, R], name string, ivk I) R {
	var zero I
	if ivk == zero {
		return c.Fail(&Error{Strategy: name, Code: CodeUnknown, Msg: "the load balancer selected no provider"})
	}
	return c.Invoke(ivk)
}

// Failover is Java's FailoverClusterInvoker.doInvoke: up to attempts
// calls, each on a provider not tried yet where possible (routing again
// from the second), returning the first result that is not a thrown
// non-business exception; after the last a thrown Error with the last
// cause's code. invoked, if not nil, receives each provider tried.
func Failover[I Invoker, R any](c Call[I, R], s *Selector[I], invokers []I, attempts int, sticky bool) R {
	var last R
	var lastErr error
	invoked := make([]I, 0, min(max(attempts, 1), 8))
	for i := 0; i < attempts; i++ {
		if i > 0 {
			again, err := c.List()
			if err != nil {
				return c.Fail(&Error{Strategy: "failover", Code: CodeOf(err), Msg: "no provider left to retry", Cause: err})
			}
			invokers = again
		}
		ivk := s.Select(pickOf(c), invokers, invoked, sticky)
		r, ivk := invokeRedirect(c, s, "failover", ivk, invokers, invoked, sticky)
		invoked = append(invoked, ivk)
		switch c.Kind(r) {
		case Thrown, ThrownOther:
			last, lastErr = r, c.Err(r)
			if err := gateRetry(c, i+1, attempts, r); err != nil {
				d := countDistinct(invoked)
				return c.Fail(&Error{Strategy: "failover", Code: CodeOf(lastErr), Tried: i + 1, Providers: d, Of: len(invokers),
					Msg: fmt.Sprintf("failed on %d provider(s) of %d", d, len(invokers)), Cause: err})
			}
			continue
		}
		return r
	}
	_ = last
	d := countDistinct(invoked)
	return c.Fail(&Error{Strategy: "failover", Code: CodeOf(lastErr), Tried: attempts, Providers: d, Of: len(invokers),
		Msg: fmt.Sprintf("failed on %d provider(s) of %d", d, len(invokers)), Cause: lastErr})
}

func countDistinct[I Invoker](list []I) int {
	n := 0
	for i, x := range list {
		if indexOf(list[:i], x) < 0 {
			n++
		}
	}
	return n
}

// Failfast is Java's FailfastClusterInvoker: one call; a thrown failure
// becomes "Failfast invoke providers" with its code (a thrown business
// exception stays as it is).
func Failfast[I Invoker, R any](c Call[I, R], s *Selector[I], invokers []I, sticky bool) R {
	ivk := s.Select(pickOf(c), invokers, nil, sticky)
	r, _ := invokeRedirect(c, s, "failfast", ivk, invokers, nil, sticky)
	switch c.Kind(r) {
	case Thrown, ThrownOther:
		err := c.Err(r)
		return c.Fail(&Error{Strategy: "failfast", Code: CodeOf(err), Msg: "invoke failed", Cause: err})
	}
	return r
}

// Failsafe is Java's FailsafeClusterInvoker: any thrown exception
// (business ones included) becomes an empty result; a business exception
// in the result is returned.
func Failsafe[I Invoker, R any](c Call[I, R], s *Selector[I], invokers []I, sticky bool) R {
	ivk := s.Select(pickOf(c), invokers, nil, sticky)
	r, _ := invokeRedirect(c, s, "failsafe", ivk, invokers, nil, sticky)
	if c.Kind(r).IsThrown() {
		return c.Empty()
	}
	return r
}

// Available is Java's AvailableClusterInvoker: the first available
// provider in list order (available as s sees it; nil s: IsAvailable), no
// load balancer, no retry. With a Redirector, an attempt that failed
// before it was sent goes on to the next available provider.
func Available[I Invoker, R any](c Call[I, R], s *Selector[I], invokers []I) R {
	rd, redirect := any(c).(Redirector[R])
	var (
		last    R
		invoked bool
	)
	for _, ivk := range invokers {
		if s != nil && !s.Available(ivk) || s == nil && !ivk.IsAvailable() {
			continue
		}
		last, invoked = c.Invoke(ivk), true
		if !redirect || !rd.NotSent(last) {
			return last
		}
	}
	if invoked {
		return last
	}
	return c.Fail(&Error{Strategy: "available", Code: CodeUnknown, Msg: fmt.Sprintf("no provider available in %d provider(s)", len(invokers))})
}

// Broadcast is Java's BroadcastClusterInvoker: every provider in list
// order; a thrown exception or a result carrying one is a failure; the
// loop stops when the failures reach len(invokers)*percent/100 (Java's
// quirk: a threshold of 0 never stops it); if anything failed the last
// failure is thrown, else the last result is returned. percent outside
// [0,100] is 100.
func Broadcast[I Invoker, R any](c Call[I, R], invokers []I, percent int) R {
	if percent < 0 || percent > 100 {
		percent = DefaultFailPercent
	}
	threshold := len(invokers) * percent / 100
	var (
		last    R
		failErr error
		failK   Kind
		fails   int
	)
	for _, ivk := range invokers {
		r := c.Invoke(ivk)
		last = r
		k := c.Kind(r)
		if k == OK {
			continue
		}
		failErr, failK = c.Err(r), k
		fails++
		if fails == threshold {
			break
		}
	}
	if fails == 0 {
		return last
	}
	// Java throws getRpcException(e): an RpcException as it is (its code),
	// anything else wrapped with code 0.
	e := &Error{Strategy: "broadcast", Msg: fmt.Sprintf("%d of %d provider(s) failed", fails, len(invokers)), Cause: failErr}
	switch failK {
	case ResultRPC, Thrown, ThrownBiz:
		e.Code = CodeOf(failErr)
		if failK == ThrownBiz {
			e.Code = CodeBiz
		}
	}
	return c.Fail(e)
}

// Forking is Java's ForkingClusterInvoker: forks distinct providers (all
// when forks <= 0 or >= len), called in parallel; the first result that is
// not thrown wins, even one carrying a business exception; when every fork
// threw, the last failure is thrown; nothing within timeout fails with
// code 2 (Java returns null). selected, if not nil, receives the forks.
func Forking[I Invoker, R any](c Call[I, R], s *Selector[I], invokers []I, forks int, timeout time.Duration, sticky bool, selected *[]I) R {
	var chosen []I
	if forks <= 0 || forks >= len(invokers) {
		chosen = invokers
	} else {
		chosen = make([]I, 0, forks)
		var zero I
		// Java loops until forks distinct providers are chosen, which
		// never ends when fewer are selectable; stop after a bound.
		for tries := 0; len(chosen) < forks && tries < 64*forks; tries++ {
			ivk := s.Select(pickOf(c), invokers, chosen, sticky)
			if ivk != zero && !contains(chosen, ivk) {
				chosen = append(chosen, ivk)
			}
		}
	}
	if selected != nil {
		*selected = append((*selected)[:0], chosen...)
	}
	if len(chosen) == 0 {
		return c.Fail(&Error{Strategy: "forking", Code: CodeNoInvoker, Msg: "no provider selected"})
	}
	type res struct{ r R }
	ch := make(chan res, 1)
	var done atomic.Bool
	var failed atomic.Int32
	var wg sync.WaitGroup
	for _, ivk := range chosen {
		wg.Add(1)
		go func(ivk I) {
			defer wg.Done()
			if done.Load() {
				return
			}
			r := c.Invoke(ivk)
			if c.Kind(r).IsThrown() {
				if int(failed.Add(1)) >= len(chosen) {
					offer(ch, res{r}, &done)
				}
				return
			}
			offer(ch, res{r}, &done)
		}(ivk)
	}
	if timeout <= 0 {
		timeout = DefaultForkTimeout * time.Millisecond
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case x := <-ch:
		if c.Kind(x.r).IsThrown() {
			err := c.Err(x.r)
			code := CodeOf(err)
			if c.Kind(x.r) == ThrownBiz {
				code = CodeBiz
			}
			return c.Fail(&Error{Strategy: "forking", Code: code, Msg: fmt.Sprintf("all %d fork(s) failed", len(chosen)), Cause: err})
		}
		return x.r
	case <-t.C:
		done.Store(true)
		return c.Fail(&Error{Strategy: "forking", Code: CodeTimeout, Msg: fmt.Sprintf("no fork answered within %v", timeout)})
	}
}

func offer[T any](ch chan T, v T, done *atomic.Bool) {
	select {
	case ch <- v:
		done.Store(true)
	default:
	}
}

// Mergeable is Java's MergeableClusterInvoker without a merger: the first
// available provider in list order (a no-provider failure tries the next),
// else the first provider. With a merger it fails clearly: dubboroute does
// not merge group results.
func Mergeable[I Invoker, R any](c Call[I, R], invokers []I, merger string) R {
	if merger != "" {
		return c.Fail(&Error{Strategy: "mergeable", Code: CodeUnknown,
			Msg: fmt.Sprintf("merger %q is not supported: dubboroute does not merge the results of several groups", merger)})
	}
	for _, ivk := range invokers {
		if !ivk.IsAvailable() {
			continue
		}
		r := c.Invoke(ivk)
		if c.Kind(r).IsThrown() && CodeOf(c.Err(r)) == CodeNoInvoker {
			continue
		}
		return r
	}
	return c.Invoke(invokers[0])
}

// ZoneInfo says which registry a zone-aware join's invoker stands for.
type ZoneInfo[I Invoker] struct {
	// Preferred is the registry URL's preferred=true.
	Preferred func(I) bool
	// Zone is the registry URL's zone.
	Zone func(I) string
}

// ZoneAware is Java's ZoneAwareClusterInvoker over per-registry invokers:
// the first available preferred registry; then the first available one of
// the call's zone (none with force: Java's IllegalStateException); then
// the load balancer's pick if available; then the first available.
func ZoneAware[I Invoker, R any](c Call[I, R], s *Selector[I], invokers []I, z ZoneInfo[I], zone string, force bool, sticky bool) R {
	for _, ivk := range invokers {
		if z.Preferred != nil && z.Preferred(ivk) && ivk.IsAvailable() {
			return c.Invoke(ivk)
		}
	}
	if zone != "" {
		for _, ivk := range invokers {
			if z.Zone != nil && z.Zone(ivk) == zone && ivk.IsAvailable() {
				return c.Invoke(ivk)
			}
		}
		if force {
			return c.Fail(&Error{Strategy: "zone-aware", NotRPC: true,
				Msg: fmt.Sprintf("no registry instance in zone %s or it is not available (registry_zone_force=true)", zone)})
		}
	}
	var zero I
	if b := s.Select(pickOf(c), invokers, nil, sticky); b != zero && b.IsAvailable() {
		return c.Invoke(b)
	}
	for _, ivk := range invokers {
		if ivk.IsAvailable() {
			return c.Invoke(ivk)
		}
	}
	return c.Fail(&Error{Strategy: "zone-aware", Code: CodeUnknown, Msg: "no registry instance available"})
}
