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

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/dubboroute/dubboroute/integration/zk"
)

func main() {
	addrFile := flag.String("addr-file", "", "write host:port to this file once serving (removed on exit)")
	flag.Parse()
	srv, err := zk.StartServer(zk.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "zkserver:", err)
		os.Exit(1)
	}
	code := 0
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(srv.Addr()+"\n"), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "zkserver: write %s: %v\n", *addrFile, err)
			code = 1
		}
	}
	if code == 0 {
		fmt.Printf("ZK=%s\n", srv.Addr())
		fmt.Printf("private ZooKeeper serving on %s (data and log in %s); Ctrl-C stops it\n", srv.Addr(), srv.Dir())
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
	}
	if *addrFile != "" {
		_ = os.Remove(*addrFile)
	}
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "zkserver: stop:", err)
		code = 1
	}
	os.Exit(code)
}
