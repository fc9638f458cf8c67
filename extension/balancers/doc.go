// Package balancers registers dubboroute's load balancers (package
// loadbalance/...: Java Dubbo 3.3's algorithms) into dubbo-go's extension
// registry, under Java's names and dubbo-go's:
//
//	random, aliasmethod                               -> loadbalance/random
//	roundrobin, interleavedweightedroundrobin, iwrr   -> loadbalance/roundrobin
//	leastactive                                       -> loadbalance/leastactive
//	shortestresponse                                  -> loadbalance/shortestresponse
//	consistenthash, consistenthashing                 -> loadbalance/consistenthash
//	adaptive                                          -> loadbalance/adaptive
//
// dubbo-go's p2c is not replaced: it is the balancer of dubbo-go's
// adaptiveService cluster and picks by the remaining capacity the
// providers' adaptive-service filter reports, which Java's adaptive does
// not read (loadbalance/names.DubboGoKept).
//
// The extension package imports it, so the one blank import of
// github.com/dubboroute/dubboroute/extension replaces dubbo-go's balancers.
//
// # Plans
//
// Every balancer works on a plan of the routed provider list: the Java
// view of each provider URL (weights, warm-up, address, identity), built
// once per list and cached by the identity of the slice (dubboroute's chain
// hands out one cached []base.Invoker per routed set of a snapshot). The
// cache entry keeps the slice alive, so its address cannot be reused by
// another list while the entry exists, and is checked against the first,
// middle and last invoker URLs, so a list rewritten in place is planned
// again. A slice the cache does not know (dubbo-go's failover reselect
// lists, foreign callers) is planned on the spot and takes a slot.
//
// # Which balancer a call runs
//
// Choose is the one decision: Java's precedence over a configurator's, the
// consumer's and the provider's loadbalance, then the name resolved (ours,
// another registered balancer as itself, or the unknown-name fallback
// below). Get, Resolve and URLFor (the invoker URL a chain hands dubbo-go's
// cluster invokers, which read the balancer from the first routed
// invoker) all go through it.
//
// # Names that do not exist
//
// dubbo-go's extension.GetLoadbalance panics on a name it lacks. Get never
// does: an unknown name gets Java's default (random) with one warning per
// name, the counter dubboroute_unknown_loadbalance_total{name} and an
// entry in Unknown (the lint command reports those names). Resolve tells
// the chain which name to put on an invoker URL so that dubbo-go's own
// cluster invokers never look an unknown name up.
package balancers
