// Package outlier is per-provider outlier ejection after Envoy's outlier
// detector (source/common/upstream/outlier_detection_impl.cc): consecutive
// errors (5xx-equivalent, gateway, local-origin with the external/local
// split), success rate and failure percentage evaluated on an interval,
// ejection for base × a backoff multiplier that grows per ejection and
// decays per healthy interval, capped by max ejection time, at most max
// ejection percent of the providers ejected at once, and a panic floor.
//
// It is pure: no dubbo-go types, time and randomness injected (Clock,
// Rand). A Detector holds one reference's state keyed by provider address;
// it survives snapshot rebuilds (Sync keeps the addresses still present and
// drops the others). Recording a result and asking whether a provider is
// ejected are O(1) and allocation-free; the interval sweep runs lazily on
// the call path when an interval has passed (or from Sweep), so no
// goroutine or timer is needed.
//
// Ejection happens after routing and before the load balancer (Filter): it
// never widens a routed set, and never empties it — when every routed
// provider is ejected (or fewer than MinHealthPercent of them are left), the
// routed set is used as it is (the panic floor; Envoy with Istio's default
// minHealthPercent 0 would fail the call instead, see docs/divergences.md).
//
// Nothing here runs unless a Config enables a detector: with the zero
// Config a Detector is off and Filter returns the routed list unchanged.
package outlier
