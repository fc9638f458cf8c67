// Package nacosfollow serves the provider lists of dubbo-go consumers whose
// registry is Nacos from dubboroute's own Nacos client (directory/nacos),
// as extension/zkfollow.go does for ZooKeeper. Registration stays with
// dubbo-go's Nacos registry (nacos-sdk-go, gRPC).
//
// Interface level: a reference of <iface>, <version>, <group> follows the
// Nacos service providers:<iface>:<version>:<group> in the registry group
// (registry.group, default DEFAULT_GROUP) and namespace
// (registry.namespace), the name Java's NacosRegistry and dubbo-go both
// register under. The first list reaches the directory as one complete list
// (one rebuild), later changes one event per provider; instances with
// enabled=false are left out, as Java's NacosRegistry does. The list is read
// every dubboroute.nacos.poll (default 1s, a Go duration on the registry
// URL); a read that fails keeps the last list, so a Nacos restart or outage
// removes nothing, and the first read after it brings the consumer up to
// date. The delete grace and empty protection (extension/emptyprotect.go)
// apply on top, as on ZooKeeper.
//
// Why: dubbo-go v3.3.2's Nacos registry diffs the SDK's pushes against a
// baseline taken by a separate read before the subscription (PR #3479 for
// apache/dubbo-go#3468); a push lost between the two (the SDK's callback is
// registered after the read, and it drops pushes whose lastRefTime is not
// newer) leaves a stale provider until the next change. A poll of the whole
// list has no baseline to lose.
package nacosfollow
