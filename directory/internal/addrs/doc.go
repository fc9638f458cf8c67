// Package addrs reads the server addresses the clients of directory/
// (ZooKeeper's, Nacos's) are given the way Dubbo writes them: comma-separated
// lists, an optional scheme, a path or query after the address, a default
// port.
package addrs
