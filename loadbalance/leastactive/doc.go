// Package leastactive is Java Dubbo 3.3's LeastActiveLoadBalance: among the
// providers with the fewest active calls for the method, a weighted draw
// (offset in [0, total), subtract weights in order, pick where it first goes
// below 0: dubbo-go v3.3.2 draws in [1, total] instead), or a uniform one
// when their weights are equal or all 0. Pick touches only the routed
// providers, once each, and allocates nothing; Index keeps the same choice
// in a tournament tree that a change of one count updates in O(log n) and
// a pick walks in O(log n).
//
// Who counts active calls is the caller's business (Actives; dubboroute's
// are loadbalance/status, kept by extension/balancers): Java's
// ActiveLimitFilter counts only when the reference sets actives; without
// counts every provider has 0 and the pick is a weighted draw over all.
package leastactive
