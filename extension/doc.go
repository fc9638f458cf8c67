// Package extension installs dubboroute into dubbo-go v3.3.2. A blank import
// is all an application needs:
//
//	import _ "github.com/dubboroute/dubboroute/extension"
//
// What it installs, in its init (which Go runs after the init of every
// dubbo-go package it imports, so the result does not depend on what else the
// application imports or in which order):
//
//   - Router factories. "tag" is replaced by dubboroute's binding factory: the
//     router it creates for a reference owns that reference's cluster.Chain,
//     receives the provider list (Notify) and subscribes the rules.
//     "service.condition" and "provider.condition" are replaced by factories
//     that return (nil, nil), which dubbo-go's chain builder skips, so
//     dubbo-go's own condition and tag routers are never created.
//   - Cluster strategies. Every strategy dubbo-go ships (failover, failfast,
//     failsafe, failback, forking, broadcast, available, zoneaware,
//     adaptivesvc) is wrapped: Join finds the binding inside the directory's
//     dubbo-go RouterChain and replaces that RouterChain with the binding's
//     own router.Chain implementation (Directory.SetRouterChain). From then
//     on the registry directory and the static (direct-URL) directory call
//     dubboroute directly: SetInvokers rebuilds the snapshot, List routes on
//     it lock-free, and dubbo-go's RouterChain (its invoker copy, its
//     per-invoker ServiceKey filter, and every router in it) is off the call
//     path.
//   - Load balancer "gray" (loadbalance/gray), fed by <provider-app>.gray-router.
//   - The consumer's load balancer wins: when the reference configures one
//     (loadbalance: gray, client.WithLoadBalance), invokers are handed out with
//     that name on their URL, also in registry mode against providers that
//     publish loadbalance=random (dubbo-go issue #2864).
//   - Application-level discovery (migration.go, applevel.go, appmeta.go,
//     metadata.go): application-level registries run as Java's
//     APPLICATION_FIRST (migration.step, or Java's properties in environment
//     form); provider URLs reach the chain as Java's InstanceAddressURL shows
//     them to routers; Go providers publish Java's service parameters, and
//     metadata is read and written at Java's and dubbo-go's nodes.
//
// Rules come from dubbo-go's dynamic configuration (any config center
// dubbo-go supports) under Java Dubbo's keys, each key subscribed once per
// process: <interface>:<version>:<group>.condition-router,
// <consumer-app>.condition-router, <provider-app>.condition-router,
// <provider-app>.tag-router and <provider-app>.gray-router. Add and update
// events replace the rule, delete (or empty content) removes it, and a rule
// that does not parse is logged with its key and line, counted, and ignored:
// the last good rule keeps routing. Static rules from dubbo-go YAML
// (dubbo.router, client.WithRouter) apply too, a service-scope one only to the
// service its key names; a dynamic rule for the same router takes
// precedence while it exists.
//
// Metrics are Prometheus collectors; register them with
// prometheus.MustRegister(extension.Collectors()...).
//
// Full-link lanes (lane.go): every provider invoker dubbo-go's proxy
// factories make captures the lane of the call it serves — the attachments
// named by LaneConfig (default dubbo.tag, dubbo.force.tag, dubboroute.gray)
// and by the gray rules in force (userId and any attachment a rule
// classifies on) — into the handler's ctx; every cluster invoker adds that
// lane to a call made with that ctx before routing it, and removes what
// dubbo-go copied from the served call besides the lane. A call made with a
// ctx not derived from the handler's carries no lane (LaneFrom and WithLane
// carry it by hand). The gray balancer writes percentage decisions into the
// call (dubboroute.gray) so later hops keep them. DUBBOROUTE_LANE=off or
// SetLaneConfig(LaneConfig{Off: true}) turns all of it off.
package extension
