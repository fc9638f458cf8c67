// Package cluster is dubboroute's router chain: an immutable snapshot of the
// provider invokers, their parsed URLs, one router.Universe over them and
// every router's compiled form, rebuilt off the hot path whenever the
// provider list, the consumer URL or a rule changes and published with one
// atomic store.
//
// Routing a call loads the snapshot once and runs, in Java Dubbo 3.3's
// order (spec §1.1):
//
//	mock (-100) -> tag (100) -> service condition (140) -> provider-app condition (145) -> consumer-app condition (150)
//
// with Java's fail-fast: a router that returns no provider ends the chain.
// Routers only combine precomputed interned sets, so Route costs the same at
// 10 and at 10,000 providers, and the routed set materialises to a
// []base.Invoker cached on the set (Set.StorePayload), so Route allocates
// nothing once warm. A call uses one snapshot from start to end: rule or
// provider changes published meanwhile apply to the next call.
//
// Route can record a router.Trace (router by router: in, out, branch, rule
// key and version). List, the entry point the dubbo-go glue uses, turns an
// empty result into a single invoker whose Invoke fails with a
// NoProviderError carrying that trace, so the application sees why no
// provider was left.
package cluster
