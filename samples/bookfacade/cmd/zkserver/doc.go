// Command zkserver runs a private ZooKeeper for trying the sample's real
// mode without touching a shared one: the locally installed Apache
// ZooKeeper (Debian package "zookeeper", or $ZOOKEEPER_HOME) on a free
// loopback port with a temporary data directory, through integration/zk,
// the same server the integration tests use. It prints
//
//	ZK=127.0.0.1:<port>
//
// (and writes that address to -addr-file when given), serves until SIGINT
// or SIGTERM, then stops the server and removes its data.
//
//	go run ./samples/bookfacade/cmd/zkserver -addr-file /tmp/bookfacade-zk &
//	ZK=$(cat /tmp/bookfacade-zk)
package main
