// Package dubbogo adapts the gray-release balancer of package gray to
// dubbo-go v3's loadbalance.LoadBalance. The extension package registers it
// under the name "gray".
//
// Compiled plans are cached by the identity of the routed invoker slice
// (dubboroute's chain hands back one cached slice per routed set), so Select
// on such a slice allocates nothing; a foreign slice is compiled on the fly.
// A call's gray classification is kept in the invocation attribute
// RetryAttribute so failover retries reuse it.
package dubbogo
