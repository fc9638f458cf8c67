// Package zkconn gives dubbo-go v3.3.2's ZooKeeper clients and dubboroute's
// own the security a registry or config-center URL asks for: digest
// credentials (the URL's username and password) with the ACL Java Dubbo's
// Curator client sets, and TLS to ZooKeeper's secure client port.
//
// dubbo-go v3.3.2 creates its registry, service-discovery and
// config-center clients (dubbogo/gost database/kv/zk, shared in a pool by
// the URL's location) without the URL's credentials, with the default
// plain-TCP dialer, and creates every node world:anyone:cdrwa. Prepare
// puts a client into that pool before dubbo-go asks for it: authenticated
// with the URL's digest credentials (go-zookeeper re-submits them on every
// reconnect), and, for a TLS registry, connected through a loopback relay
// that speaks TLS to the servers (gost's client takes no dialer). The relay
// listens on 127.0.0.1 and serves only sockets of this process's user.
//
// Parameters of the registry or config-center URL, read by dubbo-go's
// clients here and by dubboroute's (extension/internal/zkclient):
//
//	zookeeper.tls=true                 TLS to every server of the address
//	zookeeper.tls.ca=<PEM file>        CA certificates to trust (default: the system's)
//	zookeeper.tls.cert=<PEM file>      client certificate (ssl.clientAuth=need)
//	zookeeper.tls.key=<PEM file>       its key
//	zookeeper.tls.server-name=<name>   name to verify the certificate against (default: the host)
//
// With credentials, the nodes dubboroute creates (the provider, consumer,
// configurator and router category nodes of a service, registrations it
// re-creates) get Curator's CREATOR_ALL_ACL, and the provider nodes
// dubbo-go created world-writable are tightened to it (package
// directory/zookeeper, EphemeralOptions.Tighten). A reference whose
// providers node refuses its identity (NoAuth) does not start with zero
// providers silently: Probe reports it, and the reference fails every call
// with that error (FailedInvoker).
package zkconn
