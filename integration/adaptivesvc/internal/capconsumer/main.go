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
	url := flag.String("url", "", "direct provider list, dubbo://a;dubbo://b")
	n := flag.Int("n", 40, "calls")
	flag.Parse()
	c, err := capfleet.Call(*url, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("COUNTS " + c.String())
	// Wait to be stopped, as the harness ends its processes.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
