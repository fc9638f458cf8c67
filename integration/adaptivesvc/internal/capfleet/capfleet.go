package capfleet

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dubbo.apache.org/dubbo-go/v3"
	"dubbo.apache.org/dubbo-go/v3/client"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/filter"
	dglog "dubbo.apache.org/dubbo-go/v3/logger"
	"dubbo.apache.org/dubbo-go/v3/protocol"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"dubbo.apache.org/dubbo-go/v3/server"

	_ "dubbo.apache.org/dubbo-go/v3/imports"
)

// Interface is the Capacity service's interface name.
const Interface = "org.dubboroute.it.Capacity"

// Method answers the serving provider's port.
const Method = "port"

// CapacityFilter is the provider filter that reports the configured
// capacity: it runs outside padasvc and replaces the remaining capacity
// padasvc put on the reply.
const CapacityFilter = "dubboroute-it-capacity"

// reported is the capacity this process reports (-1: padasvc's own).
var reported = -1

func init() {
	extension.SetFilter(CapacityFilter, func() filter.Filter { return capacityFilter{} })
}

type capacityFilter struct{}

// Invoke implements filter.Filter.
func (capacityFilter) Invoke(ctx context.Context, ivk base.Invoker, inv base.Invocation) result.Result {
	return ivk.Invoke(ctx, inv)
}

// OnResponse implements filter.Filter.
func (capacityFilter) OnResponse(_ context.Context, res result.Result, _ base.Invoker, _ base.Invocation) result.Result {
	if reported >= 0 && res.Attachment(constant.AdaptiveServiceRemainingKey, nil) != nil {
		res.AddAttachment(constant.AdaptiveServiceRemainingKey, strconv.Itoa(reported))
	}
	return res
}

// Capacity is the service: it answers its port.
type Capacity struct{ port int }

// Port answers the serving provider's port.
func (c *Capacity) Port(context.Context) (string, error) { return strconv.Itoa(c.port), nil }

// Serve runs a provider on 127.0.0.1:port with the adaptive-service
// filter on, reporting capacity (< 0: what padasvc computes), until the
// process ends. It returns once the port accepts connections.
func Serve(port, capacity int) error {
	reported = capacity
	ins, err := dubbo.NewInstance(dubbo.WithName("capacity-provider-"+strconv.Itoa(port)),
		dubbo.WithLogger(dglog.WithLevel("warn")),
		// No MetadataService export: dubbo-go would listen on every
		// interface at the same port, and the 127.0.0.1 listener would
		// fail to bind.
		dubbo.WithRemoteMetadata(),
		dubbo.WithProtocol(protocol.WithID(constant.DubboProtocol), protocol.WithDubbo(), protocol.WithPort(port), protocol.WithIp("127.0.0.1")))
	if err != nil {
		return fmt.Errorf("capacity provider %d: new instance: %w", port, err)
	}
	srv, err := ins.NewServer(server.WithServerAdaptiveService())
	if err != nil {
		return fmt.Errorf("capacity provider %d: new server: %w", port, err)
	}
	if err := srv.RegisterService(&Capacity{port: port}, server.WithInterface(Interface),
		server.WithSerialization(constant.Hessian2Serialization),
		// dubbo-go v3.3.2's server.WithServerAdaptiveService sets a flag its
		// filter list never reads: name padasvc (innermost, so the capacity
		// filter sees the reply it wrote).
		server.WithFilter(constant.DefaultServiceFilters+","+CapacityFilter+","+constant.AdaptiveServiceProviderFilterKey)); err != nil {
		return fmt.Errorf("capacity provider %d: register: %w", port, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case err := <-errc:
			return fmt.Errorf("capacity provider %d: serve: %w", port, err)
		default:
		}
		if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 200*time.Millisecond); err == nil {
			_ = c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("capacity provider %d: not listening after 20s", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Counts are the calls each port served ("err": failed calls).
type Counts map[string]int

// String is "port=count" pairs, sorted: the consumer's COUNTS line.
func (c Counts) String() string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.Itoa(c[k])
	}
	return strings.Join(parts, ",")
}

// ParseCounts reads a COUNTS line's value back.
func ParseCounts(s string) (Counts, error) {
	c := Counts{}
	for _, kv := range strings.Split(strings.TrimSpace(s), ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil {
			return nil, fmt.Errorf("capfleet: counts %q: bad pair %q", s, kv)
		}
		c[k] = n
	}
	return c, nil
}

// Call makes n sequential calls through cluster adaptiveService with
// balancer p2c to the direct provider list url ("dubbo://a;dubbo://b")
// and counts the serving ports.
func Call(url string, n int) (Counts, error) {
	ins, err := dubbo.NewInstance(dubbo.WithName("capacity-consumer"), dubbo.WithLogger(dglog.WithLevel("warn")))
	if err != nil {
		return nil, fmt.Errorf("capacity consumer: new instance: %w", err)
	}
	cli, err := ins.NewClient(client.WithClientProtocolDubbo(), client.WithClientSerialization(constant.Hessian2Serialization))
	if err != nil {
		return nil, fmt.Errorf("capacity consumer: new client: %w", err)
	}
	conn, err := cli.Dial(Interface, client.WithURL(url), client.WithCluster(constant.ClusterKeyAdaptiveService),
		client.WithLoadBalance(constant.LoadBalanceKeyP2C), client.WithRetries(0))
	if err != nil {
		return nil, fmt.Errorf("capacity consumer: dial %s: %w", url, err)
	}
	c := Counts{}
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var port string
		err := conn.CallUnary(ctx, []any{}, &port, Method)
		cancel()
		if err != nil || port == "" {
			c["err"]++
			continue
		}
		c[port]++
	}
	return c, nil
}

// ProviderMain is capprovider's main: -port, -capacity; READY once it
// listens, then serve until SIGTERM or SIGINT.
func ProviderMain() {
	port := flag.Int("port", 0, "port to listen on (127.0.0.1)")
	capacity := flag.Int("capacity", -1, "remaining capacity to report (-1: dubbo-go's own)")
	flag.Parse()
	if err := Serve(*port, *capacity); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("READY")
	waitStopped()
}

// ConsumerMain is the consumers' main: -url, -n; one line
// "COUNTS port=count,...", then wait until SIGTERM or SIGINT (the harness
// stops its processes).
func ConsumerMain() {
	url := flag.String("url", "", "direct provider list, dubbo://a;dubbo://b")
	n := flag.Int("n", 40, "calls")
	flag.Parse()
	c, err := Call(*url, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("COUNTS " + c.String())
	waitStopped()
}

func waitStopped() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}
