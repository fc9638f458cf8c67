// Package zkclient holds dubboroute's shared ZooKeeper clients (package
// directory/zookeeper), one per ensemble and settings, for every part of
// extension that talks to ZooKeeper itself: the rule and provider sources
// (extension/zookeeper), registry override:// URLs (extension/consumer),
// the registration guard (extension/provider) and metadata
// (extension/discovery).
package zkclient
