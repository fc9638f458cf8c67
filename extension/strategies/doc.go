// Package strategies registers dubboroute's cluster strategies into
// dubbo-go v3.3.2's extension registry under Java's names and dubbo-go's
// (failover, failfast, failsafe, failback, forking, broadcast, available,
// zone-aware/zoneAware, mergeable), each wrapped in Java's
// MockClusterInvoker (service downgrade), so that a dubbo-go consumer
// retries, fails over and downgrades exactly as a Java Dubbo 3.3.6 consumer
// of the same configuration.
//
// Routing stays dubboroute's chain (Directory.List); settings come from the
// configured consumer URL of the chain's snapshot (reference, method
// parameters, configurators); load balancers are dubbo-go's
// loadbalance.LoadBalance looked up by name without panicking (an unknown
// name falls back to random with one warning and a metric). The pure logic
// lives in cluster/strategy and cluster/mock; this package only adapts
// dubbo-go's invokers, invocations and results, and classifies a result as
// Java would (Classify): business exception, RpcException in the result,
// or failed call.
//
// Availability (health.go): dubbo-go's IsAvailable stays true for a provider
// whose connection is gone, so the selection also consults a table of
// provider addresses whose connection a call found down (until a TCP
// connect succeeds) and of provider invokers that announced their graceful
// shutdown; a call that failed before its request was sent (NotSent) goes
// to another routed provider (strategy.Redirector). A provider invoker the
// registry removes drains its calls in flight before it is destroyed
// (drain.go, wrapping dubbo-go's filter protocol), and dubbo-go's consumer
// graceful-shutdown filter is replaced by one that only counts the calls in
// flight (shutdownfilter.go). See docs/availability.md.
//
// Outlier ejection and the retry policy (resilience.go, retrypolicy.go),
// beyond Java and off unless configured: per reference an outlier detector
// (cluster/outlier) fed with every attempt's result, whose ejected
// providers leave the routed list before the balancer (never all of them),
// and failover's retries gated by the method's retry policy (cluster/retry:
// idempotency, budget, chain stop, deadline, backoff). Outliers reports
// their state for the console. See docs/resilience.md.
package strategies
