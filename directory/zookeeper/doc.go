// Package zookeeper is a standalone ZooKeeper source of routing rules and
// provider lists, at exactly the nodes Java Dubbo and Dubbo Admin use. It is
// for the CLI and for Go programs that are not dubbo-go consumers; dubbo-go
// consumers get the same data through dubbo-go's own registry and config
// center (package extension).
//
// Rules live at <root>/<group>/<key>, as Java's TreePathDynamicConfiguration
// builds the path: root /dubbo/config and group dubbo by default, so the
// service rule of com.foo.Bar is /dubbo/config/dubbo/com.foo.Bar::.condition-router.
// The node data is the rule text as written. PutRule creates missing parents
// as Dubbo Admin does (persistent, empty data); with digest credentials every
// node it creates gets Dubbo's ACL (CREATOR_ALL_ACL, as Dubbo's Curator
// client sets), else world:anyone with all permissions.
//
// WithACL gives created nodes any other ACL (ParseACL reads zkCli's
// notation); WithTLS and WithTLSFiles connect to ZooKeeper's TLS client
// port. An operation or watch a node's ACL refuses (NoAuth) gives an
// *AuthError naming the server, the node, the operation and the identity.
//
// Providers are the children of /dubbo/<URL-encoded interface>/providers,
// each named by its URL-encoded full provider URL (Java's ZookeeperRegistry
// layout); WatchProviders decodes and parses them with router.ParseEncodedURL
// and reports names that do not parse instead of failing.
//
// ZooKeeper watches fire once and carry no data, so every watcher here
// re-reads its node and re-arms its watch after each notification. A watcher
// therefore reports each state it reads, in order, but several changes made
// faster than one read may arrive as one event carrying the latest state.
// Empty rule content is reported as a delete, the config-center convention.
//
// The client survives disconnects and session expiry: operations wait
// (bounded by their context) for a session, and after a new session replaces
// an expired one every watcher re-reads its node and re-arms its watch, so
// changes made while the session was gone are delivered.
package zookeeper
