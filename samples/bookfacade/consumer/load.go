package consumer

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// Bounds of one /load request.
const (
	maxLoadCalls       = 1_000_000
	maxLoadDuration    = 5 * time.Minute
	maxLoadConcurrency = 256
	maxErrorText       = 300
)

// loadSpec is a parsed /load request.
type loadSpec struct {
	calls       int           // stop after this many calls (0: no limit)
	duration    time.Duration // stop issuing calls after this long (0: no limit)
	rate        float64       // calls per second (0: as fast as the workers go)
	concurrency int
	perCall     bool
}

func parseLoadSpec(r *http.Request) (loadSpec, error) {
	q := r.URL.Query()
	s := loadSpec{concurrency: 8, perCall: q.Get("results") == "1"}
	var err error
	if v := q.Get("calls"); v != "" {
		if s.calls, err = strconv.Atoi(v); err != nil || s.calls < 0 || s.calls > maxLoadCalls {
			return s, fmt.Errorf("calls must be an integer in 0..%d", maxLoadCalls)
		}
	}
	if v := q.Get("duration"); v != "" {
		if s.duration, err = time.ParseDuration(v); err != nil || s.duration < 0 || s.duration > maxLoadDuration {
			return s, fmt.Errorf("duration must be a Go duration in 0..%v", maxLoadDuration)
		}
	}
	if s.calls == 0 && s.duration == 0 {
		s.calls = 100
	}
	if v := q.Get("rate"); v != "" {
		if s.rate, err = strconv.ParseFloat(v, 64); err != nil || s.rate < 0 || s.rate > 1e6 {
			return s, fmt.Errorf("rate must be a number of calls per second in 0..1e6")
		}
	}
	if v := q.Get("concurrency"); v != "" {
		if s.concurrency, err = strconv.Atoi(v); err != nil || s.concurrency < 1 || s.concurrency > maxLoadConcurrency {
			return s, fmt.Errorf("concurrency must be an integer in 1..%d", maxLoadConcurrency)
		}
	}
	return s, nil
}

// loadProbe returns the generation of the routing snapshot in force and a
// function computing the ports that snapshot routes the load's call to.
type loadProbe func() (gen uint64, routed func() []int)

// runLoad makes calls as spec says, paced open-loop (call k is due at
// start + k/rate, whichever worker is free takes it), and records for each
// call the serving port, whether it failed, and the snapshot generation
// before and after it. probe may be nil.
func runLoad(ctx context.Context, spec loadSpec, call func(context.Context) (int, error), probe loadProbe) httpapi.Load {
	res := httpapi.Load{Ports: map[int]int{}, Routed: map[uint64][]int{}}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		results []httpapi.LoadCall
		wg      sync.WaitGroup
	)
	gen := func() uint64 {
		if probe == nil {
			return 0
		}
		g, routed := probe()
		mu.Lock()
		_, seen := res.Routed[g]
		mu.Unlock()
		if !seen {
			ports := routed()
			mu.Lock()
			res.Routed[g] = ports
			mu.Unlock()
		}
		return g
	}
	start := time.Now()
	res.Started = start.UnixNano()
	var end time.Time
	if spec.duration > 0 {
		end = start.Add(spec.duration)
	}
	for w := 0; w < spec.concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := next.Add(1) - 1
				if spec.calls > 0 && k >= int64(spec.calls) {
					return
				}
				if spec.rate > 0 {
					due := start.Add(time.Duration(float64(k) / spec.rate * float64(time.Second)))
					if d := time.Until(due); d > 0 {
						select {
						case <-time.After(d):
						case <-ctx.Done():
							return
						}
					}
				}
				if ctx.Err() != nil || (!end.IsZero() && !time.Now().Before(end)) {
					return
				}
				at := time.Since(start)
				g0 := gen()
				port, err := call(ctx)
				g1 := gen()
				c := httpapi.LoadCall{Port: port, Gen0: g0, Gen1: g1, At: at.Microseconds(), Took: (time.Since(start) - at).Microseconds()}
				mu.Lock()
				res.Calls++
				if err != nil {
					c.Port, c.Failed = 0, true
					res.Failed++
					msg := err.Error()
					if len(msg) > maxErrorText {
						msg = msg[:maxErrorText] + "..."
					}
					if res.Errors == nil {
						res.Errors = map[string]int{}
					}
					res.Errors[msg]++
					if spec.perCall {
						c.Error = msg
					}
				} else {
					res.Ports[port]++
				}
				if spec.perCall {
					results = append(results, c)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	if res.Seconds > 0 {
		res.Rate = float64(res.Calls) / res.Seconds
	}
	if spec.perCall {
		res.Results = results
	}
	return res
}

// serveLoad handles GET /load (see package httpapi).
func (c *Consumer) serveLoad(w http.ResponseWriter, r *http.Request) {
	spec, err := parseLoadSpec(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, httpapi.Load{Error: err.Error()})
		return
	}
	q := r.URL.Query()
	at := requestAttachments(r)
	method := q.Get("method")
	var (
		args []any
		call func(context.Context) (int, error)
	)
	switch method {
	case "", api.MethodQueryAll:
		method = api.MethodQueryAll
		call = func(ctx context.Context) (int, error) {
			bs, err := c.QueryAll(ctx, at)
			if err != nil || len(bs) == 0 {
				return 0, orNoBook(err)
			}
			return api.PortOf(bs[0]), nil
		}
	case api.MethodQueryByName, "testUser":
		name := q.Get("name")
		if method == "testUser" {
			if _, err := strconv.ParseInt(at["userId"], 10, 64); err != nil {
				writeJSON(w, http.StatusBadRequest, httpapi.Load{Error: "testUser: userId must be an integer"})
				return
			}
			name = "user-" + at["userId"]
		}
		if name == "" {
			name = "Go"
		}
		method = api.MethodQueryByName
		args = []any{name}
		call = func(ctx context.Context) (int, error) {
			b, err := c.QueryByName(ctx, name, at)
			if err != nil || b == nil {
				return 0, orNoBook(err)
			}
			return api.PortOf(b), nil
		}
	default:
		writeJSON(w, http.StatusBadRequest, httpapi.Load{Error: "method must be queryAll, queryByName or testUser"})
		return
	}
	res := runLoad(r.Context(), spec, call, c.loadProbe(method, args, at))
	res.Call = method
	writeJSON(w, http.StatusOK, res)
}

func orNoBook(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("the provider returned no book")
}

// loadProbe reads the consumer's current routing snapshot; nil when the
// dubboroute binding does not exist (yet).
func (c *Consumer) loadProbe(method string, args []any, at Attachments) loadProbe {
	return func() (uint64, func() []int) {
		b := extension.BindingFor(api.Interface, c.opts.App)
		if b == nil {
			return 0, func() []int { return nil }
		}
		snap := b.Chain().Snapshot()
		return snap.Generation, func() []int {
			atts := make(map[string]any, len(at))
			for k, v := range at {
				atts[k] = v
			}
			ports := []int{}
			for _, ivk := range snap.Route(invocation.NewRPCInvocation(method, args, atts), nil, nil) {
				if p, err := strconv.Atoi(ivk.GetURL().Port); err == nil {
					ports = append(ports, p)
				}
			}
			return ports
		}
	}
}

// serveGoroutines handles GET /debug/goroutines: the number of goroutines,
// and with ?stacks=1 their stacks as text.
func serveGoroutines(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("stacks") == "1" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_ = pprof.Lookup("goroutine").WriteTo(w, 1)
		return
	}
	writeJSON(w, http.StatusOK, httpapi.Goroutines{Count: runtime.NumGoroutine()})
}
