// Command dubboroute lints, evaluates and explains Dubbo routing rules
// (condition, tag and gray) with the same compiled code dubboroute's runtime
// uses, and reads, writes and watches them in ZooKeeper where Dubbo Admin
// keeps them. See README.md in this directory, or run dubboroute --help.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dubboroute/dubboroute/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Color: cli.ColorFor(os.Stdout)})
	stop()
	os.Exit(code)
}
