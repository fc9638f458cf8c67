// Package status is the per-provider, per-method call counters that Java's
// leastactive and shortestresponse balancers read (Java's RpcStatus: active
// calls, calls ended, failures and their elapsed times), owned by
// dubboroute instead of read from dubbo-go's RPCStatus, so that a balancer
// keeps an index over them (leastactive.Index) that each change updates in
// O(log n) instead of reading every routed provider's counters per pick.
package status
