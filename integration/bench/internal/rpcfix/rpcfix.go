package rpcfix

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dubbogo/gost/log/logger"

	"dubbo.apache.org/dubbo-go/v3"
	"dubbo.apache.org/dubbo-go/v3/client"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	dglog "dubbo.apache.org/dubbo-go/v3/logger"
	"dubbo.apache.org/dubbo-go/v3/registry"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/provider"
)

// ConsumerApp is the consumer application name.
const ConsumerApp = "demo-consumer1"

// TagKey is the config-center key of the provider application's tag rule.
const TagKey = api.ProviderApp + ".tag-router"

// Ports are the two providers' ports.
type Ports struct{ P0, P1 int }

// StartProviders starts two providers on free loopback ports, registered in
// the in-process memory registry.
func StartProviders() (Ports, error) {
	var ps Ports
	for _, p := range []*int{&ps.P0, &ps.P1} {
		port, err := freePort()
		if err != nil {
			return ps, err
		}
		if _, err := provider.Start(provider.Options{Port: port, Registry: "memory://", LogLevel: "error", Registered: memory.Registry.Registered(api.Interface)}); err != nil {
			return ps, fmt.Errorf("rpcfix: start provider on %d: %w", port, err)
		}
		*p = port
	}
	return ps, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("rpcfix: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// SeedServiceRule is the seeds' service rule (queryAll -> P0, queryByName ->
// P1) as Dubbo Admin stores it, with address=*:<port>.
func (ps Ports) SeedServiceRule() string {
	return fmt.Sprintf(`scope: service
force: true
runtime: true
enabled: true
key: %s
conditions:
  - method=queryAll => address=*:%d
  - method=queryByName => address=*:%d
`, api.Interface, ps.P0, ps.P1)
}

// DubbogoServiceRule is the same rule in the form dubbo-go 3.3.2 can apply:
// a configVersion, port= instead of address= (which never matches there),
// and enabled and force both true (it reads them swapped).
func (ps Ports) DubbogoServiceRule() string {
	s := "configVersion: v3.0\n" + ps.SeedServiceRule()
	s = strings.ReplaceAll(s, "address=*:", "port=")
	return s
}

// TagRule is the seeds' tag rule: requests tagged gray go to P1.
func (ps Ports) TagRule() string {
	return fmt.Sprintf(`force: false
runtime: true
enabled: true
priority: 1
key: %s
tags:
  - name: gray
    addresses:
      - 0.0.0.0:%d
`, api.ProviderApp, ps.P1)
}

// PutRules stores the tag rule and the given service rule in the in-process
// config center.
func PutRules(tagRule, serviceRule string) {
	memory.PutRule(TagKey, tagRule)
	memory.PutRule(api.ServiceRuleKey, serviceRule)
}

// Consumer is a BookFacade reference through the memory registry, with the
// memory config center, load balancer random and no retries (so a routed
// call is attempted once, on the routed provider).
type Consumer struct{ conn *client.Connection }

// Dial creates the consumer's dubbo-go instance and reference.
func Dial() (*Consumer, error) {
	ins, err := dubbo.NewInstance(
		dubbo.WithName(ConsumerApp),
		dubbo.WithLogger(dglog.WithLevel("error")),
		dubbo.WithRegistry(
			registry.WithRegistry(memory.Name),
			registry.WithAddress("memory://127.0.0.1:0"),
			registry.WithRegisterInterface(),
			registry.WithoutUseAsMetaReport(),
			registry.WithoutUseAsConfigCenter(),
		),
		dubbo.WithConfigCenter(
			config_center.WithConfigCenter(memory.Name),
			config_center.WithAddress("memory://127.0.0.1:0"),
			config_center.WithNamespace(memory.DefaultGroup),
		),
	)
	if err != nil {
		return nil, fmt.Errorf("rpcfix: consumer instance: %w", err)
	}
	cli, err := ins.NewClient(client.WithClientProtocolDubbo(), client.WithClientSerialization(constant.Hessian2Serialization))
	if err != nil {
		return nil, fmt.Errorf("rpcfix: consumer client: %w", err)
	}
	conn, err := cli.Dial(api.Interface, client.WithLoadBalance("random"), client.WithRetries(0))
	if err != nil {
		return nil, fmt.Errorf("rpcfix: dial %s: %w", api.Interface, err)
	}
	return &Consumer{conn: conn}, nil
}

// grayCtx carries the attachment dubbo.tag=gray.
var grayCtx = context.WithValue(context.Background(), constant.AttachmentKey, map[string]any{constant.Tagkey: "gray"})

// QueryAll calls queryAll(), tagged gray or not, and returns the serving port.
func (c *Consumer) QueryAll(gray bool) (int, error) {
	ctx := context.Background()
	if gray {
		ctx = grayCtx
	}
	var books []*api.Book
	if err := c.conn.CallUnary(ctx, []any{}, &books, api.MethodQueryAll); err != nil {
		return 0, fmt.Errorf("queryAll: %w", err)
	}
	if len(books) == 0 {
		return 0, fmt.Errorf("queryAll: no book")
	}
	return api.PortOf(books[0]), nil
}

// QueryByName calls queryByName("Go"), tagged gray or not, and returns the
// serving port.
func (c *Consumer) QueryByName(gray bool) (int, error) {
	ctx := context.Background()
	if gray {
		ctx = grayCtx
	}
	book := &api.Book{}
	if err := c.conn.CallUnary(ctx, []any{"Go"}, book, api.MethodQueryByName); err != nil {
		return 0, fmt.Errorf("queryByName: %w", err)
	}
	return api.PortOf(book), nil
}

// Call is one benchmark call and the port the rules send it to.
type Call struct {
	Name string
	Do   func() (int, error)
	Want int
}

// Calls are the benchmark's calls, made in turn: queryAll without a tag
// (service rule: P0) and queryByName tagged gray (tag rule: P1, service
// rule: P1).
func (c *Consumer) Calls(ps Ports) []Call {
	return []Call{
		{"queryAll", func() (int, error) { return c.QueryAll(false) }, ps.P0},
		{"queryByName+gray", func() (int, error) { return c.QueryByName(true) }, ps.P1},
	}
}

// Check makes each call rounds times and returns an error unless every
// call was served by the port its rules send it to.
func Check(calls []Call, rounds int) error {
	for r := 0; r < rounds; r++ {
		for _, c := range calls {
			got, err := c.Do()
			if err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
			if got != c.Want {
				return fmt.Errorf("%s served by %d, want %d", c.Name, got, c.Want)
			}
		}
	}
	return nil
}

// Ready waits up to timeout for every call to be routed as its rules say
// (the consumer has seen both providers and read the rules).
func Ready(calls []Call, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := Check(calls, 1)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rpcfix: not routed as the rules say after %s: %w", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Bench is the body of BenchmarkRPC: b.N calls, the calls in turn, each
// checked against the port its rules send it to.
func Bench(b *testing.B, calls []Call) {
	if err := Check(calls, 10); err != nil { // warm up connections and caches
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := calls[i%len(calls)]
		got, err := c.Do()
		if err != nil {
			b.Fatalf("%s: %v", c.Name, err)
		}
		if got != c.Want {
			b.Fatalf("%s served by %d, want %d", c.Name, got, c.Want)
		}
	}
}

// Setup starts the two providers, puts the tag rule and the service rule
// that serviceRule builds for their ports, dials the consumer and waits until
// every benchmark call routes as the rules say. Both benchmark binaries (rpc
// and rpcbase) call it from TestMain; only the service rule differs.
func Setup(serviceRule func(Ports) string) (Ports, *Consumer, error) {
	ports, err := StartProviders()
	if err != nil {
		return ports, nil, err
	}
	PutRules(ports.TagRule(), serviceRule(ports))
	cons, err := Dial()
	if err != nil {
		return ports, nil, err
	}
	logger.SetLoggerLevel("error")
	return ports, cons, Ready(cons.Calls(ports), 15*time.Second)
}
