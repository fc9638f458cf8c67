// Package strategy holds dubboroute's cluster strategies (fault tolerance)
// with Java Dubbo 3.3.6's semantics: failover, failfast, failsafe,
// failback, forking, broadcast, available, zone-aware and mergeable
// (without a merger), and Java's select/doSelect/reselect with sticky
// invokers and cluster.availablecheck.
//
// The strategies are generic over a small Call interface (route the call
// again, invoke one provider, classify a result, ask the load balancer), so
// they are tested, and compared with Java's own cluster invokers by the
// oracle in integration/interop, without dubbo-go's protocol packages.
// extension/strategies binds them to dubbo-go: the invokers are dubbo-go's,
// the routing is dubboroute's chain (Directory.List), the load balancers
// are dubbo-go's loadbalance.LoadBalance fetched by name.
//
// What separates a failed call from a business exception is the Kind of its
// result (see Kind): Java retries, swallows and mocks only thrown
// exceptions; a provider's business exception travels inside the Result
// and is returned to the caller after exactly one attempt.
package strategy
