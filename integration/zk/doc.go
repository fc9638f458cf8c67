// Package zk runs a private, real Apache ZooKeeper server for tests.
//
// Start launches the server JVM of the locally installed ZooKeeper (Debian's
// package "zookeeper", found through ZOOKEEPER_HOME, default
// /usr/share/zookeeper) on a free loopback port with a temporary data
// directory, waits until it serves requests, and stops it when the test ends:
//
//	srv := zk.Start(t)
//	conn, _, err := gozk.Connect([]string{srv.Addr()}, 10*time.Second)
//
// The server can be stopped, killed and restarted on the same port and data
// directory (Stop, Kill, Restart) for outage tests, and Proxy puts a
// cuttable TCP hop between a client and the server, which is how a test
// expires a client's session while the server keeps running.
//
// No test may assume a ZooKeeper is already running, and none may skip
// because it is missing: Start fails the test with a message saying to run
// `make test`, which installs the package.
//
// The server is a child JVM started directly (java -cp <zookeeper jars>
// org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg), with a small
// heap, fsync off and a short tickTime so that session expiry tests are fast.
// It is tied to the test process with a parent-death signal, so a test binary
// that dies without running its cleanups does not leave a server behind.
package zk
