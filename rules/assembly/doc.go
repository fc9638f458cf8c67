// Package assembly is the one place that decides how a consumer
// reference's rules are assembled from config-center keys, as Java Dubbo
// 3.3.6's routers subscribe them: which keys a reference reads (Reference:
// ConsumerSubs when its routers are built, ProviderAppSubs for the
// provider application they follow, MeshKey per provider application,
// ConfiguratorKeys), which chain slot each key's rule goes to or why it is
// unread (Reference.Slots), and what one content of a key does — accepted
// with its version, deleted, rejected, or ignored as Java ignores it
// (Accept, AcceptConfigurators).
//
// The running consumer (extension/consumer and its rule store) applies
// these decisions event by event; Assemble applies them to a whole batch of
// keyed rule events at once, for `dubboroute route` and `explain`
// (internal/cli), which the Java oracle differentials drive. It has no
// dubbo-go imports.
package assembly
