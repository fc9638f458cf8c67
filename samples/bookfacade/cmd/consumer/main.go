// Command consumer runs a BookFacade consumer (loadbalance: gray, dubboroute
// installed) behind the seeds' HTTP endpoints:
//
//	go run ./samples/bookfacade/cmd/consumer -app demo-consumer1 -registry zookeeper://127.0.0.1:2181 -http :8081
//	curl 'localhost:8081/books'                 # queryAll
//	curl 'localhost:8081/books?name=Go'         # queryByName
//	curl 'localhost:8081/testUser?userId=3'     # queryByName as user 3 (gray users go to status=gray providers)
//	curl 'localhost:8081/books?tag=gray'        # request tag dubbo.tag=gray (&force=true for dubbo.force.tag)
//
//	curl 'localhost:8081/explain?method=queryAll&tag=gray'   # how that call is routed now, without calling
//
// Rules are read from the config center (default: the registry's address),
// under /dubbo/config/dubbo/<key> on ZooKeeper, where Dubbo Admin writes them.
//
// Once the HTTP listener is bound it prints one line to stdout,
//
//	READY <app> http <host:port>
//
// with the bound address (so -http 127.0.0.1:0 picks a free port and says
// which); programs that start the consumer wait for that line.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
)

func main() {
	app := flag.String("app", "demo-consumer1", "consumer application name")
	reg := flag.String("registry", "zookeeper://127.0.0.1:2181", "registry: zookeeper://host:port")
	cc := flag.String("config-center", "", "config center address (default: the registry's); none to disable")
	direct := flag.String("url", "", "direct provider URLs instead of the registry, e.g. dubbo://127.0.0.1:20880;dubbo://127.0.0.1:20881")
	lb := flag.String("loadbalance", "gray", "load balancer")
	httpAddr := flag.String("http", ":8080", "HTTP listen address (port 0: a free port, printed on the READY line)")
	logLevel := flag.String("log", "warn", "dubbo-go log level")
	retries := flag.Int("retries", 0, "failover retries (0: a routed call is tried once, so the serving port is the routed one)")
	tag := flag.String("tag", "", "the consumer's static dubbo.tag (used when a request sets none)")
	flag.Parse()
	c, err := consumer.New(consumer.Options{App: *app, Registry: *reg, ConfigCenter: *cc, URL: *direct, LoadBalance: *lb,
		LogLevel: *logLevel, Retries: *retries, Tag: *tag})
	if err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "consumer: http listen %s: %v\n", *httpAddr, err)
		os.Exit(1)
	}
	fmt.Printf("READY %s http %s\n", *app, ln.Addr())
	if err := http.Serve(ln, c.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "consumer: http:", err)
		os.Exit(1)
	}
}
