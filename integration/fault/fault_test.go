package fault

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

func TestMain(m *testing.M) { harness.Main(m) }

// Rule keys, as Dubbo Admin names them.
var (
	svcKey     = api.ServiceRuleKey                    // service condition rule
	provAppKey = api.ProviderApp + ".condition-router" // provider-app condition rule
	tagKey     = api.ProviderApp + ".tag-router"
	grayKey    = api.ProviderApp + ".gray-router"
)

// consumerApp is the application of every consumer the tests start.
const consumerApp = "demo-consumer1"

// consumerAppKey is its consumer-app condition rule key.
var consumerAppKey = consumerApp + ".condition-router"

// settle bounds how long a provider or rule change may take to show in a
// consumer that is under load on a busy 2-core machine (the bound
// for a rule change after a ZooKeeper restart is asserted separately).
const settle = 15 * time.Second

// world is one private ZooKeeper with providers and one consumer.
type world struct {
	zk    *zk.Server
	reg   string
	rules *harness.Rules
	bins  *harness.Binaries
	ps    []*harness.Provider
	c     *harness.Consumer
}

// newWorld starts a private ZooKeeper, the given providers (Registry is
// filled in) and one consumer (App and Registry filled in), and waits until
// the consumer knows every provider.
func newWorld(t *testing.T, providers []harness.ProviderOptions, copts harness.ConsumerOptions) *world {
	t.Helper()
	return newWorldCC(t, providers, copts, "")
}

// newWorldCC is newWorld whose consumer, unless copts names another config
// center, reads rules from the world's ZooKeeper with the config-center
// URL parameters ccParams ("?k=v&..."; "" for none: the registry's).
func newWorldCC(t *testing.T, providers []harness.ProviderOptions, copts harness.ConsumerOptions, ccParams string) *world {
	t.Helper()
	begin := time.Now()
	w := &world{zk: zk.Start(t)}
	w.reg = "zookeeper://" + w.zk.Addr()
	w.rules = harness.DialRules(t, w.zk.Addr())
	if ccParams != "" && copts.ConfigCenter == "" {
		copts.ConfigCenter = w.reg + ccParams
	}
	w.bins = harness.SampleBinaries(t)
	for _, o := range providers {
		o.Registry = w.reg
		w.ps = append(w.ps, harness.StartProvider(t, w.bins, o))
	}
	copts.App, copts.Registry = consumerApp, w.reg
	w.c = harness.StartConsumer(t, w.bins, copts)
	if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, w.addrs()...)
	}); err != nil {
		t.Fatalf("consumer never saw every provider: %v", err)
	}
	t.Logf("world up in %v (binaries built in %v, race=%v): ZooKeeper %s, providers %v, consumer %s",
		time.Since(begin).Round(time.Millisecond), w.bins.BuildTime.Round(time.Millisecond), w.bins.Race, w.zk.Addr(), w.addrs(), w.c.BaseURL)
	return w
}

func (w *world) addrs() []string {
	var out []string
	for _, p := range w.ps {
		out = append(out, p.Addr)
	}
	return out
}

// put writes a rule and fails the test if it cannot.
func (w *world) put(t *testing.T, key, content string) {
	t.Helper()
	if err := w.rules.Put(key, content); err != nil {
		t.Fatal(err)
	}
}

// waitRouted waits until the consumer routes call to exactly want.
func (w *world) waitRouted(t *testing.T, call harness.Call, want ...*harness.Provider) httpapi.Explain {
	t.Helper()
	ex, err := w.c.WaitExplain(call, settle, func(ex httpapi.Explain) bool { return harness.Same(ex.Routed, addrsOf(want)...) })
	if err != nil {
		t.Fatalf("want %s routed to %v: %v", call, addrsOf(want), err)
	}
	return ex
}

func addrsOf(ps []*harness.Provider) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Addr)
	}
	return out
}

func portsOf(ps []*harness.Provider) []int {
	out := []int{}
	for _, p := range ps {
		out = append(out, p.Port)
	}
	return out
}

// samePorts reports whether two port lists hold the same ports, in any
// order.
func samePorts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	x := append([]int(nil), a...)
	y := append([]int(nil), b...)
	sort.Ints(x)
	sort.Ints(y)
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// grayDecision is the gray balancer's decision in an explain answer.
type grayDecision struct {
	Rule     int    `json:"rule"`
	Gray     bool   `json:"gray"`
	Branch   string `json:"branch"`
	Provider string `json:"provider"`
}

// grayOf decodes it; Rule is -2 when the answer has none (nothing routed).
func grayOf(ex httpapi.Explain) grayDecision {
	d := grayDecision{Rule: -2}
	_ = json.Unmarshal(ex.Gray, &d)
	return d
}

// loadClient talks to /load; a batch can run for seconds.
var loadClient = &http.Client{Timeout: 2 * time.Minute}

// loadSpec is one kind of call driven through the consumer's /load.
type loadSpec struct {
	Call        harness.Call
	Rate        float64 // calls per second
	Concurrency int
	Batch       time.Duration // length of one /load request
}

func (s loadSpec) query() url.Values {
	q := url.Values{}
	q.Set("method", s.Call.Method)
	if s.Call.Name != "" {
		q.Set("name", s.Call.Name)
	}
	if s.Call.UserID != "" {
		q.Set("userId", s.Call.UserID)
	}
	if s.Call.Tag != "" {
		q.Set("tag", s.Call.Tag)
	}
	if s.Call.Force {
		q.Set("force", "true")
	}
	q.Set("rate", strconv.FormatFloat(s.Rate, 'f', -1, 64))
	c := s.Concurrency
	if c == 0 {
		c = 32
	}
	q.Set("concurrency", strconv.Itoa(c))
	b := s.Batch
	if b == 0 {
		b = time.Second
	}
	q.Set("duration", b.String())
	q.Set("results", "1")
	return q
}

// runLoad makes one /load request.
func runLoad(c *harness.Consumer, s loadSpec) (httpapi.Load, error) {
	var l httpapi.Load
	resp, err := loadClient.Get(c.BaseURL + "/load?" + s.query().Encode())
	if err != nil {
		return l, fmt.Errorf("load %s: %w", s.Call, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return l, fmt.Errorf("load %s: read: %w", s.Call, err)
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return l, fmt.Errorf("load %s: HTTP %d %.200q: %w", s.Call, resp.StatusCode, body, err)
	}
	if resp.StatusCode != http.StatusOK {
		return l, fmt.Errorf("load %s: HTTP %d: %s", s.Call, resp.StatusCode, l.Error)
	}
	return l, nil
}

// loader keeps one kind of call going through /load: a new batch starts
// every Batch interval whether or not the previous one has ended, so a call
// that hangs (a killed provider's request timeout) delays only its own
// batch, not the rate.
type loader struct {
	spec  loadSpec
	begin time.Time
	stopc chan struct{}
	done  chan struct{}

	mu      sync.Mutex
	batches []httpapi.Load
	err     error
	end     time.Time
}

func startLoad(c *harness.Consumer, s loadSpec) *loader {
	if s.Batch == 0 {
		s.Batch = time.Second
	}
	l := &loader{spec: s, begin: time.Now(), stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		var wg sync.WaitGroup
		defer wg.Wait()
		tick := time.NewTicker(s.Batch)
		defer tick.Stop()
		for {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b, err := runLoad(c, s)
				l.mu.Lock()
				defer l.mu.Unlock()
				if err != nil {
					if l.err == nil {
						l.err = err
					}
					return
				}
				l.batches = append(l.batches, b)
				if e := time.Unix(0, b.Started).Add(time.Duration(b.Seconds * float64(time.Second))); e.After(l.end) {
					l.end = e
				}
			}()
			select {
			case <-l.stopc:
				return
			case <-tick.C:
			}
		}
	}()
	return l
}

// stop ends the load after the batches in flight and returns every batch,
// in the order they started.
func (l *loader) stop(t *testing.T) []httpapi.Load {
	t.Helper()
	select {
	case <-l.stopc:
	default:
		close(l.stopc)
	}
	<-l.done
	if l.err != nil {
		t.Errorf("load %s: %v", l.spec.Call, l.err)
	}
	sort.Slice(l.batches, func(i, j int) bool { return l.batches[i].Started < l.batches[j].Started })
	return l.batches
}

// failure returns the first error of a /load request.
func (l *loader) failure() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// calls returns how many calls have been made so far.
func (l *loader) calls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, b := range l.batches {
		n += b.Calls
	}
	return n
}

// loadStats summarises a loader's batches.
type loadStats struct {
	Calls, Failed int
	Ports         map[int]int
	Seconds       float64 // wall time of the whole load, gaps included
	Generations   int     // distinct routing snapshots the calls saw
	Latency       string  // per call, inside the consumer
}

func (s loadStats) Rate() float64 {
	if s.Seconds == 0 {
		return 0
	}
	return float64(s.Calls) / s.Seconds
}

func (s loadStats) String() string {
	ports := make([]int, 0, len(s.Ports))
	for p := range s.Ports {
		ports = append(ports, p)
	}
	sort.Ints(ports)
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, " %d:%d", p, s.Ports[p])
	}
	return fmt.Sprintf("%d calls in %.1fs (%.0f/s), %d failed, %d snapshots, ports%s; latency %s", s.Calls, s.Seconds, s.Rate(), s.Failed, s.Generations, b.String(), s.Latency)
}

func (l *loader) stats() loadStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := loadStats{Ports: map[int]int{}}
	gens := map[uint64]bool{}
	for _, b := range l.batches {
		s.Calls += b.Calls
		s.Failed += b.Failed
		for p, n := range b.Ports {
			s.Ports[p] += n
		}
		for _, c := range b.Results {
			gens[c.Gen0], gens[c.Gen1] = true, true
		}
	}
	s.Generations = len(gens)
	var took []int64
	for _, b := range l.batches {
		for _, c := range b.Results {
			took = append(took, c.Took)
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	if len(took) > 0 {
		s.Latency = fmt.Sprintf("p50 %v, p99 %v, max %v", time.Duration(took[len(took)/2])*time.Microsecond,
			time.Duration(took[len(took)*99/100])*time.Microsecond, time.Duration(took[len(took)-1])*time.Microsecond)
	}
	end := l.end
	if end.IsZero() {
		end = time.Now()
	}
	s.Seconds = end.Sub(l.begin).Seconds()
	if len(l.batches) > 0 {
		s.Seconds = end.Sub(time.Unix(0, l.batches[0].Started)).Seconds()
	}
	return s
}

// checkCalls applies check to every call of every batch and reports the
// first few violations; it returns how many calls violated it.
func checkCalls(t *testing.T, what string, batches []httpapi.Load, check func(b httpapi.Load, c httpapi.LoadCall) error) int {
	t.Helper()
	bad := 0
	for _, b := range batches {
		for _, c := range b.Results {
			if err := check(b, c); err != nil {
				bad++
				if bad <= 5 {
					t.Errorf("%s: call at +%.3fs of the batch started %s: %v", what, float64(c.At)/1e6, time.Unix(0, b.Started).Format("15:04:05.000"), err)
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d calls violated the check in all", what, bad)
	}
	return bad
}

// onSnapshot is the "routed by a snapshot, never a mix" check: a call that
// succeeded was served by a provider that a routing snapshot in force
// during the call routes it to (the one when it began, when it ended, or one
// in between).
func onSnapshot(b httpapi.Load, c httpapi.LoadCall) error {
	if c.Failed {
		return fmt.Errorf("failed: %s", c.Error)
	}
	// A call that spans several rebuilds (Gen0 < g < Gen1) may have been
	// routed by any snapshot of its window; one that no call saw at its
	// edges cannot be checked, so the call passes.
	for g := c.Gen0; g <= c.Gen1; g++ {
		routed, known := b.Routed[g]
		if !known && g != c.Gen0 && g != c.Gen1 {
			return nil
		}
		for _, p := range routed {
			if p == c.Port {
				return nil
			}
		}
	}
	return fmt.Errorf("served by %d, but snapshot %d routes to %v and snapshot %d to %v", c.Port, c.Gen0, b.Routed[c.Gen0], c.Gen1, b.Routed[c.Gen1])
}

// servedBy accepts successful calls served by one of ports.
func servedBy(ports ...int) func(httpapi.Load, httpapi.LoadCall) error {
	return func(_ httpapi.Load, c httpapi.LoadCall) error {
		if c.Failed {
			return fmt.Errorf("failed: %s", c.Error)
		}
		for _, p := range ports {
			if c.Port == p {
				return nil
			}
		}
		return fmt.Errorf("served by %d, want one of %v", c.Port, ports)
	}
}

// goroutines reads the consumer's goroutine count.
func goroutines(c *harness.Consumer) (int, error) {
	resp, err := loadClient.Get(c.BaseURL + "/debug/goroutines")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var g httpapi.Goroutines
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
		return 0, err
	}
	return g.Count, nil
}

// goroutineStacks returns the consumer's goroutine dump (for a failure
// message).
func goroutineStacks(c *harness.Consumer) string {
	resp, err := loadClient.Get(c.BaseURL + "/debug/goroutines?stacks=1")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// countLog counts the consumer log lines that contain every one of subs.
func countLog(p *harness.Proc, subs ...string) int {
	n := 0
	for _, line := range strings.Split(p.Log(), "\n") {
		all := true
		for _, s := range subs {
			if !strings.Contains(line, s) {
				all = false
				break
			}
		}
		if all {
			n++
		}
	}
	return n
}

// lastLog returns the last consumer log line that contains every one of
// subs.
func lastLog(p *harness.Proc, subs ...string) string {
	lines := strings.Split(p.Log(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		all := true
		for _, s := range subs {
			if !strings.Contains(lines[i], s) {
				all = false
				break
			}
		}
		if all {
			return lines[i]
		}
	}
	return ""
}
