package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3"
	"dubbo.apache.org/dubbo-go/v3/client"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	dglog "dubbo.apache.org/dubbo-go/v3/logger"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting/getty"

	// dubbo protocol, hessian2, ZooKeeper registry and config center.
	_ "dubbo.apache.org/dubbo-go/v3/imports"

	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// Bucket is one cumulative histogram bucket.
type Bucket struct {
	Le    float64 `json:"le"`
	Count uint64  `json:"count"`
}

// Stats are dubboroute's snapshot rebuild statistics for the interface.
type Stats struct {
	Impl       string   `json:"impl"`
	Bindings   int      `json:"bindings"`
	Providers  int      `json:"providers"` // in the newest binding's snapshot
	Rebuilds   uint64   `json:"rebuilds"`
	Count      uint64   `json:"count"`
	SecondsSum float64  `json:"secondsSum"`
	Buckets    []Bucket `json:"buckets,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// Load is the answer of /load.
type Load struct {
	Impl    string         `json:"impl"`
	Calls   int            `json:"calls"`
	Failed  int            `json:"failed"`
	Wrong   int            `json:"wrong"`
	Mixed   int            `json:"mixed"`
	Gens    int            `json:"gens"`
	Seconds float64        `json:"seconds"`
	Rate    float64        `json:"rate"`
	P50us   float64        `json:"p50us"`
	P99us   float64        `json:"p99us"`
	Ports   map[int]int    `json:"ports"`
	Errors  map[string]int `json:"errors,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// RuleWait is the answer of /rulewait.
type RuleWait struct {
	Refs   int   `json:"refs"`
	Done   int   `json:"done"`
	LastAt int64 `json:"lastAt"` // unix ns when the last reference was served by the port
	Calls  int64 `json:"calls"`
	Failed int64 `json:"failed"`
	// FirstError is the first failed call's error.
	FirstError string `json:"firstError,omitempty"`
	Error      string `json:"error,omitempty"`
}

type consumer struct {
	app    string
	refs   []*client.Connection
	p0, p1 int
}

var grayCtx = context.WithValue(context.Background(), constant.AttachmentKey, map[string]any{constant.Tagkey: "gray"})

func call(ctx context.Context, conn *client.Connection, k int) (int, error) {
	if k == 0 {
		var books []*api.Book
		if err := conn.CallUnary(ctx, []any{}, &books, api.MethodQueryAll); err != nil {
			return 0, err
		}
		if len(books) == 0 {
			return 0, fmt.Errorf("queryAll: no book")
		}
		return api.PortOf(books[0]), nil
	}
	if ctx == context.Background() {
		ctx = grayCtx
	} else {
		ctx = context.WithValue(ctx, constant.AttachmentKey, map[string]any{constant.Tagkey: "gray"})
	}
	book := &api.Book{}
	if err := conn.CallUnary(ctx, []any{"Go"}, book, api.MethodQueryByName); err != nil {
		return 0, err
	}
	return api.PortOf(book), nil
}

func main() {
	app := flag.String("app", "demo-consumer1", "consumer application name")
	zk := flag.String("zk", "127.0.0.1:2181", "ZooKeeper host:port (registry and config center)")
	refs := flag.Int("refs", 1, "references of the interface to dial")
	want := flag.Int("want", 0, "provider port the first routed queryAll must be served by")
	p1 := flag.Int("p1", 0, "provider port queryByName tagged gray is routed to")
	httpAddr := flag.String("http", "127.0.0.1:0", "HTTP listen address (loopback)")
	logLevel := flag.String("log", "error", "dubbo-go log level")
	lb := flag.String("lb", "random", "load balancer (random; gray needs the dubboroute build)")
	conns := flag.Int("conns", 0, "connections per provider address (dubbo-go's getty connection-number; 0: its default, 16)")
	flag.Parse()
	if *conns > 0 {
		cc := *getty.GetDefaultClientConfig()
		cc.ConnectionNum = *conns
		getty.SetClientConf(cc)
	}
	if err := run(*app, *zk, *refs, *want, *p1, *httpAddr, *logLevel, *lb); err != nil {
		fmt.Fprintln(os.Stderr, "scaleconsumer:", err)
		os.Exit(1)
	}
}

func run(app, zk string, nrefs, want, p1 int, httpAddr, logLevel, lb string) error {
	ins, err := dubbo.NewInstance(
		dubbo.WithName(app),
		dubbo.WithLogger(dglog.WithLevel(logLevel)),
		dubbo.WithRegistry(
			registry.WithRegistry("zookeeper"),
			registry.WithAddress("zookeeper://"+zk),
			registry.WithRegisterInterface(),
			registry.WithoutUseAsMetaReport(),
			registry.WithoutUseAsConfigCenter(),
		),
		dubbo.WithConfigCenter(
			config_center.WithConfigCenter("zookeeper"),
			config_center.WithAddress("zookeeper://"+zk),
			config_center.WithNamespace("dubbo"),
		),
	)
	if err != nil {
		return fmt.Errorf("%s consumer %s: new instance: %w", impl, app, err)
	}
	cli, err := ins.NewClient(client.WithClientProtocolDubbo(), client.WithClientSerialization(constant.Hessian2Serialization))
	if err != nil {
		return fmt.Errorf("%s consumer %s: new client: %w", impl, app, err)
	}
	c := &consumer{app: app, p0: want, p1: p1}
	opts := []client.ReferenceOption{client.WithLoadBalance(lb), client.WithRetries(0)}
	if lb == "leastactive" || lb == "shortestresponse" {
		// dubbo-go counts active calls only in its active filter (Java
		// only in ActiveLimitFilter): listed, the balancer compares live
		// counts instead of drawing by weight alone.
		opts = append(opts, client.WithFilter(constant.ActiveFilterKey))
	}
	for i := 0; i < nrefs; i++ {
		conn, err := cli.Dial(api.Interface, opts...)
		if err != nil {
			return fmt.Errorf("%s consumer %s: dial %s (reference %d): %w", impl, app, api.Interface, i, err)
		}
		c.refs = append(c.refs, conn)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		p, err := call(context.Background(), c.refs[0], 0)
		if err == nil && (want == 0 || p == want) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s consumer %s: no queryAll served by port %d within 2m (last: port %d, %v)", impl, app, want, p, err)
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Printf("FIRST %d\n", time.Now().UnixNano())
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return fmt.Errorf("%s consumer %s: http listen %s: %w", impl, app, httpAddr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/load", c.serveLoad)
	mux.HandleFunc("/rulewait", c.serveRuleWait)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.Handle("/debug/pprof/heap", pprof.Handler("heap"))
	mux.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		st := rebuildStats()
		st.Impl = impl
		writeJSON(w, st)
	})
	fmt.Printf("READY %s http %s\n", impl, ln.Addr())
	return http.Serve(ln, mux)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func intParam(r *http.Request, k string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(k)
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%s must be an integer in %d..%d", k, lo, hi)
	}
	return v, nil
}

func durParam(r *http.Request, k string, def time.Duration) (time.Duration, error) {
	s := r.URL.Query().Get(k)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > 10*time.Minute {
		return 0, fmt.Errorf("%s must be a Go duration in (0, 10m]", k)
	}
	return d, nil
}

// genRoutes caches, per snapshot generation, the ports it routes each call
// kind to.
type genRoutes struct {
	mu sync.Mutex
	m  map[uint64][2]map[int]bool
}

func (g *genRoutes) see(app string) (uint64, bool) {
	gen, routed, ok := probe(app)
	if !ok {
		return 0, false
	}
	g.mu.Lock()
	_, seen := g.m[gen]
	g.mu.Unlock()
	if !seen {
		r := [2]map[int]bool{routed(0), routed(1)}
		g.mu.Lock()
		g.m[gen] = r
		g.mu.Unlock()
	}
	return gen, true
}

func (g *genRoutes) routes(gen uint64, k, port int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.m[gen][k][port]
}

func (c *consumer) serveLoad(w http.ResponseWriter, r *http.Request) {
	res := Load{Impl: impl, Ports: map[int]int{}}
	conc, err := intParam(r, "concurrency", 8, 1, 512)
	if err == nil {
		var d time.Duration
		d, err = durParam(r, "duration", 5*time.Second)
		if err == nil {
			var rate int
			rate, err = intParam(r, "rate", 0, 0, 1_000_000)
			if err == nil {
				c.load(r.Context(), &res, conc, d, rate, r.URL.Query().Get("check") == "1")
			}
		}
	}
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		res.Error = err.Error()
	}
	writeJSON(w, res)
}

func (c *consumer) load(ctx context.Context, res *Load, conc int, d time.Duration, rate int, check bool) {
	var (
		next  atomic.Int64
		mu    sync.Mutex
		lats  []time.Duration
		wg    sync.WaitGroup
		gens  = &genRoutes{m: map[uint64][2]map[int]bool{}}
		start = time.Now()
		end   = start.Add(d)
	)
	want := [2]int{c.p0, c.p1}
	conn := c.refs[0]
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			my := make([]time.Duration, 0, 4096)
			ports := map[int]int{}
			var failed, wrong, mixed int
			errs := map[string]int{}
			for {
				k := next.Add(1) - 1
				if rate > 0 {
					due := start.Add(time.Duration(float64(k) / float64(rate) * float64(time.Second)))
					if dd := time.Until(due); dd > 0 {
						time.Sleep(dd)
					}
				}
				if ctx.Err() != nil || !time.Now().Before(end) {
					break
				}
				kind := int(k & 1)
				var (
					g0      uint64
					inspect bool
				)
				if check {
					g0, inspect = gens.see(c.app)
				}
				t0 := time.Now()
				port, err := call(context.Background(), conn, kind)
				my = append(my, time.Since(t0))
				if err != nil {
					failed++
					msg := err.Error()
					if len(msg) > 200 {
						msg = msg[:200]
					}
					errs[msg]++
					continue
				}
				ports[port]++
				if port != want[kind] {
					wrong++
				}
				if inspect {
					g1, _ := gens.see(c.app)
					if !gens.routes(g0, kind, port) && !gens.routes(g1, kind, port) {
						mixed++
					}
				}
			}
			mu.Lock()
			lats = append(lats, my...)
			res.Failed += failed
			res.Wrong += wrong
			res.Mixed += mixed
			for p, n := range ports {
				res.Ports[p] += n
			}
			for e, n := range errs {
				if res.Errors == nil {
					res.Errors = map[string]int{}
				}
				res.Errors[e] += n
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	res.Calls = len(lats)
	res.Rate = float64(res.Calls) / res.Seconds
	res.Gens = len(gens.m)
	if len(lats) > 0 {
		sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
		res.P50us = float64(lats[len(lats)*50/100]) / 1e3
		res.P99us = float64(lats[len(lats)*99/100]) / 1e3
	}
}

func (c *consumer) serveRuleWait(w http.ResponseWriter, r *http.Request) {
	var res RuleWait
	port, err := intParam(r, "port", 0, 1, 65535)
	var timeout time.Duration
	if err == nil {
		timeout, err = durParam(r, "timeout", 10*time.Second)
	}
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		res.Error = err.Error()
		writeJSON(w, res)
		return
	}
	res.Refs = len(c.refs)
	if r.URL.Query().Get("mode") == "snapshot" {
		c.snapshotWait(&res, port, timeout)
		writeJSON(w, res)
		return
	}
	var (
		last          atomic.Int64
		done          atomic.Int64
		calls, failed atomic.Int64
		firstErr      sync.Once
		wg            sync.WaitGroup
		deadline      = time.Now().Add(timeout)
	)
	for _, conn := range c.refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) && r.Context().Err() == nil {
				p, err := call(context.Background(), conn, 0)
				calls.Add(1)
				if err != nil {
					failed.Add(1)
					firstErr.Do(func() {
						msg := err.Error()
						if len(msg) > 300 {
							msg = msg[:300] + "..."
						}
						res.FirstError = msg
					})
					time.Sleep(time.Millisecond)
					continue
				}
				if p == port {
					now := time.Now().UnixNano()
					for {
						old := last.Load()
						if now <= old || last.CompareAndSwap(old, now) {
							break
						}
					}
					done.Add(1)
					return
				}
			}
		}()
	}
	wg.Wait()
	res.Done, res.LastAt, res.Calls, res.Failed = int(done.Load()), last.Load(), calls.Load(), failed.Load()
	if res.Done < res.Refs {
		res.Error = fmt.Sprintf("%d of %d references not served by port %d within %v", res.Refs-res.Done, res.Refs, port, timeout)
	}
	writeJSON(w, res)
}

// snapshotWait polls every reference's routing snapshot (no calls) every
// 200 µs until each routes queryAll to port only.
func (c *consumer) snapshotWait(res *RuleWait, port int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	seen := map[int]bool{}
	for time.Now().Before(deadline) {
		ok, supported := routedOnly(c.app, port)
		if !supported {
			res.Error = impl + " has no routing snapshots to inspect"
			return
		}
		now := time.Now().UnixNano()
		for i, b := range ok {
			if b && !seen[i] {
				seen[i] = true
				res.LastAt = now
			}
		}
		res.Done = len(seen)
		if len(ok) == res.Refs && res.Done == res.Refs {
			return
		}
		time.Sleep(200 * time.Microsecond)
	}
	res.Error = fmt.Sprintf("%d of %d references' snapshots do not route queryAll to port %d only within %v", res.Refs-res.Done, res.Refs, port, timeout)
}
