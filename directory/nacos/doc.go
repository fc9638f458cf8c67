// Package nacos is dubboroute's own Nacos client: the config operations
// (get, publish, delete, listen) of Nacos's 1.x HTTP OpenAPI, which both
// Apache Nacos (1.x and 2.x servers) and rnacos serve. It does not use
// nacos-sdk-go: the v2.2.5 that dubbo-go v3.3.2 pins drops deletes (the
// server's code 300 is taken as a failure), hands each change through two
// goroutines (so quick updates can arrive out of order) and never cancels a
// listener. The naming (registry) operations live in this package's
// naming_*.go files and share the Client's HTTP plumbing.
//
// # Where a config lives
//
// A config is addressed by namespace (Nacos's tenant), group and dataId.
// The namespace is the Client's (WithNamespace); "" and "public" are the
// public namespace. The group is the Client's (WithGroup, default
// DefaultGroup "dubbo", which is where Java Dubbo's routers and
// configurators and Dubbo Admin keep rules) unless an operation names
// another. The dataId of a rule key is the key itself, with the two
// rewrites Java's NacosConfigServiceWrapper applies to every key and group:
// '$' becomes "___" and '/' becomes "-" (DataID); so the service rule of
// com.foo.Bar is dataId "com.foo.Bar::.condition-router", group "dubbo".
//
// # Revisions, events and order
//
// A config's revision is the MD5 of its content (lower-case hex), as Nacos
// computes it. WatchConfig long-polls /nacos/v1/cs/configs/listener with
// the MD5 it last read for every watched key (one request per Client for
// all its keys, re-sent when the set of keys changes) and, when the server
// names a key as changed, re-reads it. Each watcher gets its own ordered
// stream of events built from those reads: watch.Added, watch.Updated
// (a new MD5) and watch.Deleted (the config is gone; Nacos refuses to store
// empty content, so there is no other way to "empty" a config). Several
// changes faster than one read arrive as one event carrying the latest
// content, so the last event a watcher sees is always Nacos's latest state.
// A watch ends (its channel closes) when its context ends or the Client
// closes; the key leaves the long-poll at once.
//
// # Server restarts
//
// A request that fails for want of a server is retried with backoff across
// the configured servers. When a long-poll fails and a later request
// succeeds, every watched key is read again, so a change made while the
// server was down or unreachable is delivered (as directory/zookeeper does
// after a new session).
package nacos
