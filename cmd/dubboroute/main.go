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
