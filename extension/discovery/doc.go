// Package discovery is dubboroute's registry side of a consumer (and the
// metadata of a provider): how provider lists reach the chain.
//
//   - Interface-level registries: Followed serves a directory's
//     subscription from the provider source registered for the registry's
//     protocol (package extension/source; ZooKeeper's is in
//     extension/zookeeper); Protected applies Java's empty protection and
//     dubboroute's delete grace (emptyprotect.go; Holds lists what is held
//     back); Observed records the providers dubbo-go's directory drops
//     before routing (dropped.go; DroppedFor).
//   - Application-level discovery (migration.go, applevel.go, appmeta.go,
//     metadata.go): application-level registries run as Java's
//     APPLICATION_FIRST (migration.step, or Java's properties in
//     environment form); provider URLs reach the chain as Java's
//     InstanceAddressURL shows them to routers (JavaView); Go providers
//     publish Java's service parameters, and metadata is read and written
//     at Java's and dubbo-go's nodes.
//
// Its one registration point is Register (register.go), called by package
// extension's init; the directory wrappers are composed where the directories are
// registered, in extension/consumer.
package discovery
