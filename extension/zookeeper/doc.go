// Package zookeeper makes dubboroute follow ZooKeeper with its own client
// (package directory/zookeeper) instead of dubbo-go's: it registers, for
// protocol "zookeeper", the rule source that reads and watches config-center
// rule keys and the provider source that serves interface-level registry
// directories (package extension/source). Its one registration point is
// Register, called by package extension's init.
package zookeeper
