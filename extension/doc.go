// Package extension installs dubboroute into dubbo-go v3.3.2. A blank import
// is all an application needs:
//
//	import _ "github.com/dubboroute/dubboroute/extension"
//
// The import installs, through its one init (which Go runs after the init
// of every dubbo-go package it imports, so the result does not depend on
// what else the application imports or in which order; extension.go lists
// the order of the subpackages' Register calls):
//
//   - extension/consumer: the consumer chain. Router factories ("tag" is
//     dubboroute's binding factory; dubbo-go's condition, tag and script
//     routers are never created), every cluster strategy dubbo-go ships
//     wrapped so the directory's RouterChain is replaced by the binding's
//     chain (registry and static directories then call dubboroute directly,
//     lock-free), the "gray" load balancer (loadbalance/gray), the
//     consumer's load balancer winning over the provider's (dubbo-go issue
//     #2864), rules per chain slot, configurators, and inspection.
//   - extension/balancers: Java Dubbo 3.3's load balancers (package
//     loadbalance/...) under Java's names and dubbo-go's (random,
//     roundrobin, leastactive, shortestresponse, consistenthash, adaptive;
//     consistenthashing, iwrr, aliasmethod), planned once per routed
//     set; dubbo-go's p2c (adaptiveService's capacity-aware balancer) is
//     kept as dubbo-go's own; Choose is the one decision of which balancer
//     a call runs, and a name nobody registered falls back to random
//     instead of panicking in dubbo-go's lookup.
//   - extension/discovery: how provider lists reach the chain. Empty
//     protection and the delete grace, providers dubbo-go drops before
//     routing, application-level discovery as Java's APPLICATION_FIRST
//     (migration.step, or Java's properties in environment form), provider
//     URLs as Java's InstanceAddressURL shows them, Java's service
//     parameters and metadata nodes.
//   - extension/provider: a Go provider's side. Provider-side
//     configurators applied Java-exactly and re-registered, and the
//     ZooKeeper registration guard.
//   - extension/lane: full-link lanes. A call made while serving one
//     carries that call's lane (dubbo.tag, dubbo.force.tag, dubboroute.gray
//     and the gray rules' attachments; LaneFrom and WithLane carry it by
//     hand); triple keeps attachment keys' spelling. DUBBOROUTE_LANE=off or
//     SetLaneConfig(LaneConfig{Off: true}) turns it off.
//   - extension/zookeeper: rule keys and interface-level provider lists of
//     ZooKeeper config centers and registries followed with dubboroute's
//     own client, registered as the "zookeeper" sources of
//     extension/source (where other config centers and registries plug in).
//   - extension/nacosfollow: provider lists of Nacos registries followed
//     with dubboroute's own client (directory/nacos): interface level as
//     the "nacos" provider source, application level through
//     extension/discovery (docs/nacos-registry.md).
//   - extension/nacosrules: rule keys of Nacos config centers read and
//     followed with dubboroute's own Nacos client (directory/nacos), at
//     Java's dataId and group (dubbo), registered as the "nacos" rule
//     source (docs/nacos.md).
//
// Rules come from dubbo-go's dynamic configuration (any config center
// dubbo-go supports) under Java Dubbo's keys, each key subscribed once per
// process (extension/internal/rulestore): <interface>:<version>:<group>.condition-router,
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
// This package keeps the API applications call (extension.go): type aliases
// and wrappers of what the subpackages define, and the startup settings
// (StartupWait, StartupSettle, RegistryConfiguratorsWait) they read.
package extension
