package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dubbo.apache.org/dubbo-go/v3"
	"dubbo.apache.org/dubbo-go/v3/client"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	dglog "dubbo.apache.org/dubbo-go/v3/logger"
	"dubbo.apache.org/dubbo-go/v3/protocol"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/server"

	_ "dubbo.apache.org/dubbo-go/v3/imports"

	_ "github.com/dubboroute/dubboroute/extension"
)

type params map[string]string

func (p params) String() string { return fmt.Sprint(map[string]string(p)) }

func (p params) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	p[k] = v
	return nil
}

var (
	name    = flag.String("name", "", "instance name reported in traces, e.g. b-gray")
	class   = flag.String("class", "normal", "gray or normal: what this instance is, reported in traces")
	app     = flag.String("app", "", "application name")
	iface   = flag.String("iface", "", "Hop interface this instance serves (empty with -drive)")
	next    = flag.String("next", "", "Hop interface to call while serving (empty: leaf)")
	port    = flag.Int("port", 0, "dubbo port")
	zk      = flag.String("zk", "", "ZooKeeper host:port (registry and config center)")
	tag     = flag.String("tag", "", "static dubbo.tag of this instance")
	group   = flag.String("group", "", "Dubbo group of the served and the called interface")
	nextGrp = flag.String("next-group", "", "Dubbo group of the called interface (default: -group)")
	passCtx = flag.Bool("pass-ctx", true, "pass the serving ctx on to the downstream call (false: context.Background())")
	drive   = flag.Bool("drive", false, "entry mode: serve HTTP on -http and call -next for it")
	httpAt  = flag.String("http", "127.0.0.1:0", "HTTP address in -drive mode")
	lb      = flag.String("loadbalance", "gray", "load balancer of the -next reference")
	logLvl  = flag.String("log", "warn", "dubbo-go log level")
	ps      = params{}
)

var conn *client.Connection

// Hop is the served handler.
type Hop struct{}

// Hop serves hop(in): this instance's segment, then the downstream trace.
func (Hop) Hop(ctx context.Context, in string) (string, error) {
	seg := segment(ctx)
	if conn == nil {
		return seg, nil
	}
	out := ctx
	if !*passCtx {
		out = context.Background()
	}
	var reply string
	if err := conn.CallUnary(out, []any{in}, &reply, "hop"); err != nil {
		return seg + " > error=" + strings.ReplaceAll(err.Error(), ">", "}"), nil
	}
	return seg + " > " + reply, nil
}

func segment(ctx context.Context) string {
	m, _ := ctx.Value(constant.AttachmentKey).(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	str := func(k string) string {
		if s, ok := m[k].(string); ok {
			return s
		}
		return ""
	}
	return fmt.Sprintf("name=%s;class=%s;port=%d;tag=%s;user=%s;decision=%s;timeout=%s;keys=%s",
		*name, *class, *port, str("dubbo.tag"), str("userId"), str("dubboroute.gray"), str("timeout"), strings.Join(keys, ","))
}

func main() {
	flag.Var(ps, "param", "extra provider URL parameter key=value (repeatable), e.g. status=gray")
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hop:", err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

func run() error {
	insOpts := []dubbo.InstanceOption{
		dubbo.WithName(*app),
		dubbo.WithLogger(dglog.WithLevel(*logLvl)),
		dubbo.WithRegistry(registry.WithRegistry("zookeeper"), registry.WithAddress("zookeeper://"+*zk),
			registry.WithRegisterInterface(), registry.WithoutUseAsMetaReport(), registry.WithoutUseAsConfigCenter()),
		dubbo.WithConfigCenter(config_center.WithConfigCenter("zookeeper"), config_center.WithAddress("zookeeper://"+*zk),
			config_center.WithNamespace("dubbo")),
	}
	if !*drive {
		insOpts = append(insOpts, dubbo.WithProtocol(protocol.WithDubbo(), protocol.WithPort(*port), protocol.WithIp("127.0.0.1")),
			dubbo.WithRemoteMetadata())
	}
	ins, err := dubbo.NewInstance(insOpts...)
	if err != nil {
		return fmt.Errorf("new instance %s: %w", *name, err)
	}
	if *next != "" {
		cli, err := ins.NewClient(client.WithClientProtocolDubbo(), client.WithClientSerialization(constant.Hessian2Serialization))
		if err != nil {
			return fmt.Errorf("new client %s: %w", *name, err)
		}
		refOpts := []client.ReferenceOption{client.WithLoadBalance(*lb), client.WithRetries(0)}
		if g := *group; *nextGrp != "" {
			refOpts = append(refOpts, client.WithGroup(*nextGrp))
		} else if g != "" {
			refOpts = append(refOpts, client.WithGroup(g))
		}
		if conn, err = cli.Dial(*next, refOpts...); err != nil {
			return fmt.Errorf("dial %s from %s: %w", *next, *name, err)
		}
	}
	if *drive {
		return serveHTTP()
	}
	srv, err := ins.NewServer(func(o *server.ServerOptions) {
		if o.Provider != nil && o.Provider.Weight <= 0 {
			o.Provider.Weight = 100 // Java's default weight, see samples/bookfacade/provider
		}
	})
	if err != nil {
		return fmt.Errorf("new server %s: %w", *name, err)
	}
	_ = common.ServiceMap.UnRegister(*iface, constant.Dubbo, common.ServiceKey(*iface, *group, ""))
	svcOpts := []server.ServiceOption{server.WithInterface(*iface), server.WithSerialization(constant.Hessian2Serialization)}
	if *tag != "" {
		svcOpts = append(svcOpts, server.WithTag(*tag))
	}
	if *group != "" {
		svcOpts = append(svcOpts, server.WithGroup(*group))
	}
	for k, v := range ps {
		svcOpts = append(svcOpts, server.WithParam(k, v))
	}
	if err := srv.RegisterService(&Hop{}, svcOpts...); err != nil {
		return fmt.Errorf("register %s on %s: %w", *iface, *name, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve() }()
	// Serve exports and registers synchronously before it blocks.
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	for i := 0; ; i++ {
		select {
		case err := <-errc:
			return fmt.Errorf("serve %s: %w", *name, err)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			_ = c.Close()
			break
		}
		if i > 600 {
			return fmt.Errorf("serve %s: %s not listening", *name, addr)
		}
		sleep()
	}
	fmt.Printf("READY %s %d\n", *name, *port)
	return nil
}

// Request is one call the driver makes: its attachments.
type Request struct {
	Tag    string `json:"tag,omitempty"`
	User   string `json:"user,omitempty"`
	Cohort string `json:"cohort,omitempty"`
	// Decision is a gray decision the caller claims (dubboroute.gray).
	Decision string `json:"decision,omitempty"`
}

// serveHTTP serves POST /calls: a JSON list of Requests in, a JSON list of
// traces out (one per request, in order).
func serveHTTP() error {
	l, err := net.Listen("tcp", *httpAt)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *httpAt, err)
	}
	http.HandleFunc("/calls", func(w http.ResponseWriter, r *http.Request) {
		var reqs []Request
		if err := json.NewDecoder(r.Body).Decode(&reqs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := make([]string, len(reqs))
		for i, rq := range reqs {
			// x-probe is an application attachment that is not a lane key:
			// it must not travel past the first hop.
			at := map[string]any{"x-probe": "1"}
			if rq.Tag != "" {
				at[constant.Tagkey] = rq.Tag
			}
			if rq.User != "" {
				at["userId"] = rq.User
			}
			if rq.Cohort != "" {
				at["cohort"] = rq.Cohort
			}
			if rq.Decision != "" {
				at["dubboroute.gray"] = rq.Decision
			}
			ctx := context.WithValue(r.Context(), constant.AttachmentKey, at)
			var reply string
			if err := conn.CallUnary(ctx, []any{"x"}, &reply, "hop"); err != nil {
				reply = "error=" + err.Error()
			}
			out[i] = reply
		}
		_ = json.NewEncoder(w).Encode(out)
	})
	go func() { _ = http.Serve(l, nil) }()
	fmt.Printf("READY %s http %s\n", *name, l.Addr())
	return nil
}

func sleep() { time.Sleep(50 * time.Millisecond) }
