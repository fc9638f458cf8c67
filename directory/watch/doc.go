// Package watch holds what the config-center clients of directory/ (ZooKeeper's
// and Nacos's) share about a watched key: the kind of change a watch
// reports. Each client names the values in its own terms (zookeeper.RuleAdded,
// nacos.ConfigDeleted, ...) and says when it reports each.
package watch
