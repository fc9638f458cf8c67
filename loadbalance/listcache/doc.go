// Package listcache keeps what a balancer planned for a routed invoker
// list, found again by the list's identity.
//
// dubboroute's chain hands out one cached slice per routed set and keeps it
// until the next snapshot, so a balancer can plan once per slice (weights,
// rings, rotations, gray pools) and find that plan on every call with a few
// pointer compares: the slice's backing array and length, and the URLs at
// its first, middle and last positions (an owner that rewrote the array in
// place changes them). The cache is a direct-mapped table of Slots entries;
// foreign slices (dubbo-go's built-in chain, a failover reselect list)
// evict each other and cost a plan per call, which is correct, only slower.
//
// Both the Java balancers (extension/balancers) and the gray balancer's
// dubbo-go adapter (loadbalance/gray/dubbogo) key their plans here.
// ByMethod keeps the part of a plan made per method (consistenthash's
// rings, leastactive's and shortestresponse's indexes, roundrobin's
// entries), read lock-free and built once per method.
package listcache
