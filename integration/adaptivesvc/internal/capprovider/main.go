package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/dubboroute/dubboroute/integration/adaptivesvc/internal/capfleet"
)

func main() {
	port := flag.Int("port", 0, "port to listen on (127.0.0.1)")
	capacity := flag.Int("capacity", -1, "remaining capacity to report (-1: dubbo-go's own)")
	flag.Parse()
	if err := capfleet.Serve(*port, *capacity); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("READY")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
