// Package cluster is dubboroute's router chain: an immutable snapshot of the
// provider invokers, their parsed URLs, one router.Universe over them and
// every router's compiled form, rebuilt off the hot path whenever the
// provider list, the consumer URL or a rule changes and published with one
// atomic store.
//
// Building a snapshot first applies the configurators in force
// (configurator.Lists: the registry's override:// URLs, then
// <consumer-app>.configurators, then <interface>:<version>:<group>.configurators)
// to the consumer URL and to every provider, and leaves out the providers
// they disable, as Java's RegistryDirectory does before its routers see the
// list. Routing a call loads the snapshot once and runs, in Java Dubbo 3.3's
// order (spec §1.1; the numbers are Java's router orders, Slot the rule
// each router reads):
//
//	mock (-100)
//	-> mesh (-50, SlotMesh: <provider-app>.MESHAPPRULE of every provider application)
//	-> tag (100, SlotTag: <provider-app>.tag-router, and the static dubbo.tag)
//	-> affinity (130, SlotAffinity: <interface>:<version>:<group>.affinity-router; only when the consumer enables it)
//	-> affinity-provider-app (135, SlotAffinityApp: <provider-app>.affinity-router; dubboroute's, only when enabled)
//	-> service condition (140, SlotService: <interface>:<version>:<group>.condition-router)
//	-> provider-app condition (145, SlotProviderApp: <provider-app>.condition-router, or <consumer-app>'s: Java's quirk)
//	-> consumer-app condition (150, SlotConsumerApp: <consumer-app>.condition-router)
//	-> script (200, SlotScript: <provider-app>.script-router, package router/script; in traces only while a rule is in force)
//
// with Java's fail-fast: a router that returns no provider ends the chain.
// The cluster strategy and the load balancer (the gray balancer of
// loadbalance/gray when configured) then pick among what is left; neither
// is part of this package. Which key feeds which slot, and when, is the
// glue's business (extension/consumer for a running consumer).
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
