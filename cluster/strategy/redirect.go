package strategy

// Redirector is implemented by a Call that can tell a failed attempt whose
// request never left the consumer: the provider's connection was already
// closed, or refusing, when the call was to be written. Such a call did
// not reach any provider, so sending it to another routed provider cannot
// run it twice.
//
// With a Redirector, the strategies that pick one provider per attempt
// (failover, failfast, failsafe, failback and available) send such an
// attempt again to another routed provider, without counting it as a
// retry; every provider refused it once at most. Java Dubbo does not (its
// attempt fails, and failover counts it), which is a documented divergence
// (docs/divergences.md): Java avoids most of these attempts because its
// invoker's isAvailable follows the channel's connected state, which
// dubbo-go's does not. A Call that does not implement it (the Java oracle's)
// keeps Java's behaviour exactly.
type Redirector[R any] interface {
	// NotSent reports whether r failed before its request was sent.
	NotSent(r R) bool
}

// invokeRedirect invokes ivk (the selection's pick among invokers, with
// selected the providers already tried), and while the attempt failed
// before it was sent, selects again among the routed providers that have
// not refused it and invokes that one. It returns the last result and the
// provider that gave it. Without a Redirector it is invokeSelected.
func invokeRedirect[I Invoker, R any](c Call[I, R], s *Selector[I], name string, ivk I, invokers, selected []I, sticky bool) (R, I) {
	r := invokeSelected(c, name, ivk)
	rd, ok := any(c).(Redirector[R])
	if !ok || !rd.NotSent(r) {
		return r, ivk
	}
	var zero I
	refused := []I{ivk}
	for len(refused) < len(invokers) {
		cands := make([]I, 0, len(invokers)-len(refused))
		for _, x := range invokers {
			if !contains(refused, x) {
				cands = append(cands, x)
			}
		}
		if len(cands) == 0 {
			break
		}
		next := s.Select(pickOf(c), cands, selected, sticky)
		if next == zero || contains(refused, next) {
			break
		}
		ivk = next
		r = c.Invoke(ivk)
		if !rd.NotSent(r) {
			break
		}
		refused = append(refused, ivk)
	}
	return r, ivk
}
