package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	// The extension on a provider: application metadata Java consumers can
	// read, full-link lanes for the calls it serves, and Dubbo Admin's
	// side: provider configurators applied and re-registered as Java
	// providers do.
	_ "github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/internal/regconf"
	"github.com/dubboroute/dubboroute/samples/bookfacade/provider"
)

func main() {
	ps := regconf.Params{}
	port := flag.Int("port", 20880, "port of the (first) protocol")
	proto := flag.String("protocol", "dubbo", "protocol the service is exported over: dubbo, tri (triple, hessian2 as Java's triple sends it for non-IDL interfaces), or dubbo,tri (both: tri on -tri-port)")
	triPort := flag.Int("tri-port", 0, "triple port with -protocol dubbo,tri")
	reg := flag.String("registry", "zookeeper://127.0.0.1:2181", "registry: zookeeper://host:port, or empty for none")
	app := flag.String("app", api.ProviderApp, "application name")
	tag := flag.String("tag", "", "static dubbo.tag of this provider")
	logLevel := flag.String("log", "warn", "dubbo-go log level")
	host := flag.String("host", "", "IP to listen on and register (default: dubbo-go's choice)")
	cc := flag.String("config-center", "", "config center for dynamic configuration (side: provider configurators), e.g. zookeeper://127.0.0.1:2181; default none")
	regType := flag.String("registry-type", "interface", "dubbo-go registry-type: interface, service (application-level), all, or default (the setting left out)")
	wait := flag.Duration("shutdown-wait", shutdownWaitDefault(), "Java's dubbo.service.shutdown.wait: on SIGTERM/SIGINT, unregister, keep serving this long while consumers drop this provider, finish the calls in flight, exit (default: $DUBBO_SERVICE_SHUTDOWN_WAIT in ms, else 10s)")
	sessions := flag.Int("sessions", 0, "most connections accepted at once (dubbo-go's getty session-number; 0: its default, 700)")
	flag.Var(ps, "param", "extra provider URL parameter key=value (repeatable), e.g. status=gray")
	flag.Parse()
	p, err := provider.Start(provider.Options{Port: *port, Protocol: *proto, TriPort: *triPort, Host: *host, Registry: *reg, RegistryType: *regType, ConfigCenter: *cc, App: *app, Tag: *tag, Params: ps, LogLevel: *logLevel, Sessions: *sessions, ShutdownWait: *wait})
	if err != nil {
		fmt.Fprintln(os.Stderr, "provider:", err)
		os.Exit(1)
	}
	fmt.Printf("READY %d (%s, protocol %s, registry %s, tag %q, params %v)\n", p.Port(), *app, *proto, *reg, *tag, ps)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	s := <-sig
	// dubbo-go's own handler has started the graceful shutdown too (and
	// exits the process when it is done); main must not return before.
	begin := time.Now()
	fmt.Printf("SHUTDOWN %s: unregistering, then serving for %v\n", s, *wait)
	ctx, cancel := context.WithTimeout(context.Background(), *wait+time.Minute)
	defer cancel()
	if err := provider.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "provider:", err)
		os.Exit(1)
	}
	fmt.Printf("STOPPED after %v\n", time.Since(begin).Round(time.Millisecond))
}

// shutdownWaitDefault is $DUBBO_SERVICE_SHUTDOWN_WAIT (milliseconds, as
// Java's dubbo.service.shutdown.wait) or Java's default, 10 s.
func shutdownWaitDefault() time.Duration {
	if v := os.Getenv("DUBBO_SERVICE_SHUTDOWN_WAIT"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 10 * time.Second
}
