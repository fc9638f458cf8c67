// Package watch holds what the config-center clients of directory/
// (ZooKeeper's and Nacos's) share about a watched key: the kind of change a
// watch reports (Added, Updated, Deleted), and Relay, which passes a
// watch's events on converted. Each client's event type says when it
// reports each change.
package watch
