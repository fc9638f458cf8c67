package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/dubboroute/dubboroute/console"
	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
	"github.com/dubboroute/dubboroute/samples/bookfacade/internal/regconf"
)

func main() {
	app := flag.String("app", "demo-consumer1", "consumer application name")
	reg := flag.String("registry", "zookeeper://127.0.0.1:2181", "registry: zookeeper://host:port (an ensemble: zookeeper://host:port,host:port,...)")
	regType := flag.String("registry-type", "interface", "dubbo-go registry-type: interface, service (application-level, with dubboroute's APPLICATION_FIRST fallback), all, or default (the setting left out)")
	proto := flag.String("protocol", "dubbo", "the reference's protocol: dubbo or tri (triple; only providers of this protocol are used)")
	cc := flag.String("config-center", "", "config center address (default: the registry's); none to disable")
	direct := flag.String("url", "", "direct provider URLs instead of the registry, e.g. dubbo://127.0.0.1:20880;dubbo://127.0.0.1:20881")
	lb := flag.String("loadbalance", "gray", "load balancer")
	httpAddr := flag.String("http", ":8080", "HTTP listen address (port 0: a free port, printed on the READY line)")
	logLevel := flag.String("log", "warn", "dubbo-go log level")
	retries := flag.Int("retries", 0, "failover retries (0: a routed call is tried once, so the serving port is the routed one)")
	tag := flag.String("tag", "", "the consumer's static dubbo.tag (used when a request sets none)")
	consoleAddr := flag.String("console", "", "serve dubboroute's route console on this loopback `address` (e.g. 127.0.0.1:8081; port 0 picks one, printed on a CONSOLE line)")
	timeout := flag.Duration("timeout", 0, "the reference's request timeout (0: dubbo-go's default, 3s)")
	params := regconf.Params{}
	flag.Var(params, "param", "a reference parameter `key=value` (repeatable), e.g. dubboroute.outlier.consecutive-errors=5")
	flag.Parse()
	c, err := consumer.New(consumer.Options{App: *app, Registry: *reg, RegistryType: *regType, Protocol: *proto, ConfigCenter: *cc, URL: *direct, LoadBalance: *lb,
		LogLevel: *logLevel, Retries: *retries, Tag: *tag, Params: params, Timeout: *timeout})
	if err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "consumer: http listen %s: %v\n", *httpAddr, err)
		os.Exit(1)
	}
	if *consoleAddr != "" {
		cs, err := console.Serve(*consoleAddr, console.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "consumer:", err)
			os.Exit(1)
		}
		fmt.Printf("CONSOLE %s\n", cs.URL())
	}
	fmt.Printf("READY %s http %s\n", *app, ln.Addr())
	if err := http.Serve(ln, c.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "consumer: http:", err)
		os.Exit(1)
	}
}
