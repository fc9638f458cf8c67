// Package weight computes a provider's load-balancing weight exactly as Java
// Dubbo 3.3's AbstractLoadBalance.getWeight does, and keeps the per-method
// weight tables every dubboroute balancer picks from.
//
// # The weight of one provider for one method
//
//  1. The configured weight is the method parameter weight of the provider's
//     configured URL: Java's <method>.weight (read unless the URL has a
//     methods parameter that does not contain the method name as a
//     substring, URLParam.getMethodParameterStrict),
//     then dubbo-go's methods.<method>.weight (where a dubbo-go reference's
//     method configuration puts it), then the service-level weight, then 100.
//  2. With a weight above 0 and a provider timestamp above 0 (milliseconds
//     since the epoch, as Java publishes it): an uptime below 0 gives 1; an
//     uptime strictly between 0 and warmup (default 600000 ms) gives
//     (int)(uptime / ((float)warmup / weight)) clamped to [1, weight], computed
//     in float32 as Java computes it (so 300000 ms of 600000 at weight 14 is
//     6, not 7).
//  3. A negative result is 0.
//
// Java's multi-registry case (a ClusterInvoker per registry, weighted by its
// registry URL's weight without warm-up) does not reach a balancer in
// dubbo-go: its zone-aware cluster chooses the registry itself.
//
// A malformed number is where Java throws NumberFormatException on every
// call; here it reads as absent (the default) and Set.Problems reports it,
// which the lint command shows.
//
// # Tables
//
// A Set is built once per routed provider list (a snapshot's routed set):
// for the service level and every method some provider configures a weight
// for, it keeps a Table of effective weights and prefix sums, valid until
// the earliest instant at which a warming provider's weight changes. Table
// returns the current table without allocating; a table past its validity
// is rebuilt once, under a lock, by the first call that notices.
package weight
