// Command consumer runs a BookFacade consumer (loadbalance: gray, dubboroute
// installed) behind the seeds' HTTP endpoints:
//
//	go run ./samples/bookfacade/cmd/consumer -app demo-consumer1 -registry zookeeper://127.0.0.1:2181 -http :8081
//	curl 'localhost:8081/books'                 # queryAll
//	curl 'localhost:8081/books?name=Go'         # queryByName
//	curl 'localhost:8081/testUser?userId=3'     # queryByName as user 3 (gray users go to status=gray providers)
//	curl 'localhost:8081/books?tag=gray'        # request tag dubbo.tag=gray (&force=true for dubbo.force.tag)
//
// Rules are read from the config center (default: the registry's address),
// under /dubbo/config/dubbo/<key> on ZooKeeper, where Dubbo Admin writes them.
package main

import (
	"flag"
	"fmt"
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
	httpAddr := flag.String("http", ":8080", "HTTP listen address")
	logLevel := flag.String("log", "warn", "dubbo-go log level")
	flag.Parse()
	c, err := consumer.New(consumer.Options{App: *app, Registry: *reg, ConfigCenter: *cc, URL: *direct, LoadBalance: *lb, LogLevel: *logLevel})
	if err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
	fmt.Printf("READY %s on http %s\n", *app, *httpAddr)
	if err := http.ListenAndServe(*httpAddr, c.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, "consumer: http:", err)
		os.Exit(1)
	}
}
