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
