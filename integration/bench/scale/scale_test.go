package scale

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

func TestMain(m *testing.M) { harness.Main(m) }

// Benchmark parameters; SCALE_N (comma-separated fleet sizes, default
// 100,1000) and SCALE_LOAD (the measured load's duration) override. At
// n = 5,000 the four provider processes of this fleet (1,250 connections
// each from one consumer) time calls out on a 2-core machine, so it is not
// a default size (see integration/bench/README.md).
const (
	concurrency = 16
	warmup      = 3 * time.Second
	stormAt     = 1000 // fleet size of the storm
	stormRate   = 400  // calls/s during the storm
	stormShare  = 5    // one registration in stormShare leaves and returns
	refsN       = 100  // references of the many-references consumer
	refsFleet   = 100  // fleet size for the many-references consumer
	ruleSamples = 4    // rule switches per consumer (P2, P0, P2, P0)
)

func fleetSizes() []int {
	s := os.Getenv("SCALE_N")
	if s == "" {
		return []int{100, 1000}
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n >= numProviders {
			out = append(out, n)
		}
	}
	return out
}

func loadFor() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SCALE_LOAD")); err == nil && d > 0 {
		return d
	}
	return 10 * time.Second
}

// loadResult is scaleconsumer's /load answer.
type loadResult struct {
	Calls, Failed, Wrong, Mixed, Gens int
	Seconds, Rate, P50us, P99us       float64
	Ports                             map[int]int
	Errors                            map[string]int
	Error                             string
}

func (c *consumer) load(q string) (loadResult, error) {
	var r loadResult
	if err := c.get("/load?"+q, &r); err != nil {
		return r, err
	}
	if r.Error != "" {
		return r, fmt.Errorf("%s consumer: load %s: %s", c.impl, q, r.Error)
	}
	return r, nil
}

// ruleWait is scaleconsumer's /rulewait answer.
type ruleWait struct {
	Refs, Done            int
	LastAt, Calls, Failed int64
	FirstError, Error     string
}

// bucket and stats are scaleconsumer's /stats answer.
type bucket struct {
	Le    float64
	Count uint64
}

type stats struct {
	Impl            string
	Bindings        int
	Providers       int
	Rebuilds, Count uint64
	SecondsSum      float64
	Buckets         []bucket
	Error           string
}

// row is one consumer at one fleet size.
type row struct {
	n                 int
	impl              string
	firstMs           float64
	rate, cpuUs       float64
	p50us, p99us, rss float64
	calls, failed     int
	wrong             int
	ruleMs            []float64
	ruleNote          string
	settledS          float64 // process start to idle: the fleet taken in
	note              string  // why nothing was measured
	// pickUs and clusterUs are the CPU per call inside the load balancer's
	// Select and inside the cluster invoker outside the provider call,
	// from the consumer's CPU profile of the measured load (-1: no profile).
	pickUs, clusterUs float64
	lb                string // the SCALE_LB balancer (Java's name), "" for the default rows
}

// storm is the provider storm's outcome for one consumer.
type storm struct {
	impl                      string
	n, moved                  int
	tookS                     float64
	calls, failed, wrong, mix int
	rate                      float64
	gens                      int
	rebuilds                  uint64
	rebuildMeanMs, rebuildP99 float64
	rebuildP99Bucket          string
	errors                    map[string]int
}

// refsRow is the many-references consumer.
type refsRow struct {
	impl    string
	refs, n int
	firstMs float64
	rss     float64
	// ruleMs: rule write to every reference served by the new port;
	// snapMs: to every reference's snapshot routing to it (dubboroute).
	ruleMs, snapMs     []float64
	ruleNote, snapNote string
}

// BenchmarkScale runs the whole scale scenario once (see the package
// documentation); each fleet size and implementation is a sub-benchmark
// reporting its figures as metrics, and the tables are logged (and written
// to $SCALE_OUT).
func BenchmarkScale(b *testing.B) {
	bs := buildAll(b)
	f := startFleet(b, bs)
	var (
		rows   []row
		storms []storm
		refs   []refsRow
	)
	for _, n := range fleetSizes() {
		f.grow(n)
		b.Logf("fleet: %d registrations (node name %d bytes)", f.size(), len(f.nodePath(0))-len(providersDir)-1)
		for _, impl := range impls {
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl, n), func(b *testing.B) {
				r := f.measure(b, bs, impl)
				rows = append(rows, r)
				if r.note != "" {
					return
				}
				b.ReportMetric(r.rate, "calls/s")
				b.ReportMetric(r.cpuUs, "cpu-us/call")
				b.ReportMetric(r.p50us, "p50-us")
				b.ReportMetric(r.p99us, "p99-us")
				b.ReportMetric(r.rss, "RSS-MiB")
				b.ReportMetric(r.firstMs, "first-call-ms")
				if r.ruleNote == "" {
					b.ReportMetric(median(r.ruleMs), "rule-ms")
				}
			})
		}
		for _, name := range scaleLBs() {
			for _, bin := range impls[:2] {
				lb := name
				if bin == "dubbogo" {
					if lb = dubbogoLB(name); lb == "" {
						continue
					}
				}
				b.Run(fmt.Sprintf("impl=%s/lb=%s/n=%d", bin, name, n), func(b *testing.B) {
					r := f.measure(b, bs, bin+"+lb="+lb)
					r.lb = name
					rows = append(rows, r)
					if r.note != "" {
						return
					}
					b.ReportMetric(r.rate, "calls/s")
					b.ReportMetric(r.cpuUs, "cpu-us/call")
					b.ReportMetric(r.p50us, "p50-us")
					b.ReportMetric(r.p99us, "p99-us")
					if r.pickUs >= 0 {
						b.ReportMetric(r.pickUs, "pick-cpu-us/call")
						b.ReportMetric(r.clusterUs, "cluster-cpu-us/call")
					}
				})
			}
		}
		if n == refsFleet {
			for _, impl := range impls[:2] {
				b.Run(fmt.Sprintf("refs=%d/impl=%s/n=%d", refsN, impl, n), func(b *testing.B) {
					r := f.manyRefs(b, bs, impl)
					refs = append(refs, r)
					if r.ruleNote == "" {
						b.ReportMetric(median(r.ruleMs), "rule-ms")
					}
					if r.snapNote == "" && len(r.snapMs) > 0 {
						b.ReportMetric(median(r.snapMs), "rule-snapshot-ms")
						b.ReportMetric(maxOf(r.snapMs), "rule-snapshot-max-ms")
					}
				})
			}
		}
		if n == stormAt {
			for _, impl := range impls[:2] {
				b.Run(fmt.Sprintf("storm/impl=%s/n=%d", impl, n), func(b *testing.B) {
					s := f.storm(b, bs, impl)
					storms = append(storms, s)
					b.ReportMetric(float64(s.failed), "failed-calls")
					b.ReportMetric(float64(s.mix), "mixed-calls")
				})
			}
		}
	}
	table := render(rows, storms, refs)
	b.Log("\n" + table)
	if out := os.Getenv("SCALE_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
			b.Error(err)
		}
	}
}

// measure runs one consumer against the fleet as it is.
func (f *fleet) measure(b testing.TB, bs bins, impl string) row {
	c := f.startConsumer(bs, impl, 1)
	defer func() { _ = c.Stop(10 * time.Second) }()
	r := row{n: f.size(), impl: impl, firstMs: c.firstMs}
	var err error
	if r.settledS, err = c.settle(); err != nil {
		r.note = err.Error()
		b.Log(r.note)
		return r
	}
	f.checkProviders(b, c)
	if _, err := c.load(fmt.Sprintf("concurrency=%d&duration=%s", concurrency, warmup)); err != nil {
		b.Fatal(err)
	}
	t0, err := cpuTicks(c.Pid())
	if err != nil {
		b.Fatal(err)
	}
	prof, profPath, profSecs := f.profile(b, c, fmt.Sprintf("cpu-%s-n%d.pprof", strings.ReplaceAll(impl, "+", "-"), r.n))
	res, err := c.load(fmt.Sprintf("concurrency=%d&duration=%s", concurrency, loadFor()))
	prof()
	if err != nil {
		b.Fatal(err)
	}
	r.pickUs, r.clusterUs = -1, -1
	if profPath != "" && res.Rate > 0 {
		calls := res.Rate * profSecs
		if ms, err := profileMs(profPath, pickFocus, ""); err != nil {
			b.Log(err)
		} else {
			r.pickUs = ms * 1e3 / calls
		}
		if ms, err := profileMs(profPath, clusterFocus, providerCall); err != nil {
			b.Log(err)
		} else {
			r.clusterUs = ms * 1e3 / calls
		}
	}
	t1, err := cpuTicks(c.Pid())
	if err != nil {
		b.Fatal(err)
	}
	if res.Calls == 0 {
		b.Fatalf("%s at n=%d: no calls", impl, r.n)
	}
	r.calls, r.failed, r.wrong = res.Calls, res.Failed, res.Wrong
	r.rate, r.p50us, r.p99us = res.Rate, res.P50us, res.P99us
	r.cpuUs = float64(time.Duration(t1-t0)*clockTick) / 1e3 / float64(res.Calls)
	if r.rss, err = rssMiB(c.Pid()); err != nil {
		b.Fatal(err)
	}
	if res.Failed > 0 || res.Wrong > 0 {
		b.Errorf("%s at n=%d: %d of %d calls failed, %d served by a provider the rules do not route to; errors %v", impl, r.n, res.Failed, res.Calls, res.Wrong, res.Errors)
	}
	r.ruleMs, r.ruleNote = f.ruleSwitches(b, c, "calls")
	b.Logf("%s n=%d: %.0f calls/s, %.1f µs CPU/call, p50 %.0f µs, p99 %.0f µs, RSS %.0f MiB, first call %.0f ms, idle after %.1f s, rule %v ms",
		impl, r.n, r.rate, r.cpuUs, r.p50us, r.p99us, r.rss, r.firstMs, r.settledS, r.ruleMs)
	return r
}

// profile starts a CPU profile of the consumer over the measured load when
// $SCALE_PROFILE names a directory, and returns the function that waits
// for it and writes it there as name, the file's path and the seconds it
// covers ("" and 0 without $SCALE_PROFILE).
func (f *fleet) profile(b testing.TB, c *consumer, name string) (wait func(), path string, seconds float64) {
	dir := os.Getenv("SCALE_PROFILE")
	if dir == "" {
		return func() {}, "", 0
	}
	secs := int(loadFor().Seconds()) - 1
	if secs < 1 {
		secs = 1
	}
	path = filepath.Join(dir, name)
	done := make(chan error, 1)
	go func() {
		resp, err := httpc.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", c.base, secs))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil {
			err = os.WriteFile(path, body, 0o644)
		}
		done <- err
	}()
	return func() {
		if err := <-done; err != nil {
			b.Errorf("%s consumer: CPU profile: %v", c.impl, err)
		}
	}, path, float64(secs)
}

// The functions the profile decomposition looks for, in both consumers
// (dubboroute's and plain dubbo-go's names).
const (
	// pickFocus: a load balancer's Select (extension/balancers, or
	// dubbo-go's cluster/loadbalance/<name>).
	pickFocus = `(extension/balancers|cluster/loadbalance/[a-z]+)\.\(\*[A-Za-z]+\)\.Select$`
	// clusterFocus: the cluster invoker a reference calls (dubboroute's
	// lane wrapper around its strategies; dubbo-go's failover).
	clusterFocus = `(lane\.\(\*laneClusterInvoker\)|failover\.\(\*failoverClusterInvoker\))\.Invoke$`
	// providerCall: the provider invoker the cluster invoker calls (its
	// filters, codec and transport), left out of the cluster layer.
	providerCall = `protocolwrapper\.\(\*FilterInvoker\)\.Invoke$`
)

var showingRE = regexp.MustCompile(`Showing nodes accounting for ([0-9.]+)(ms)?, `)

// profileMs is the CPU time, in ms, of the profile's samples with a frame
// matching focus and none matching ignore ("": no ignore), as go tool
// pprof counts them.
func profileMs(path, focus, ignore string) (float64, error) {
	args := []string{"tool", "pprof", "-top", "-unit=ms", "-nodefraction=0", "-focus=" + focus}
	if ignore != "" {
		args = append(args, "-ignore="+ignore)
	}
	out, err := exec.Command("go", append(args, path)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("go tool pprof %s: %v: %s", path, err, out)
	}
	m := showingRE.FindSubmatch(out)
	if m == nil {
		if bytes.Contains(out, []byte("no samples")) || bytes.Contains(out, []byte("matched no samples")) {
			return 0, nil
		}
		return 0, fmt.Errorf("go tool pprof %s: no total in %q", path, out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// checkProviders fails b unless a dubboroute consumer's snapshot holds the
// whole fleet (a plain dubbo-go consumer cannot be asked).
func (f *fleet) checkProviders(b testing.TB, c *consumer) {
	if !strings.HasPrefix(c.impl, "dubboroute") {
		return
	}
	var st stats
	if err := c.get("/stats", &st); err != nil {
		b.Fatal(err)
	}
	if st.Providers != f.size() {
		b.Errorf("%s consumer idles with %d providers in its snapshot, want the fleet's %d", c.impl, st.Providers, f.size())
	}
}

// ruleSwitches moves queryAll to p2 and back, twice, and returns the time
// from each rule write until every reference of the consumer routes with
// it: served by the new port (mode "calls") or, mode "snapshot"
// (dubboroute), every reference's snapshot routing to it, polled without
// calls. A switch not complete within 30 s ends the samples and is
// described in the returned note.
func (f *fleet) ruleSwitches(b testing.TB, c *consumer, mode string) (ms []float64, note string) {
	defer f.putRules(f.ports[0])
	for i := 0; i < ruleSamples; i++ {
		to := f.ports[2]
		if i%2 == 1 {
			to = f.ports[0]
		}
		type answer struct {
			rw  ruleWait
			err error
		}
		ch := make(chan answer, 1)
		go func() {
			var rw ruleWait
			err := c.get(fmt.Sprintf("/rulewait?port=%d&timeout=30s&mode=%s", to, mode), &rw)
			ch <- answer{rw, err}
		}()
		time.Sleep(300 * time.Millisecond) // the consumer is polling
		wrote := time.Now()
		f.putRules(to)
		a := <-ch
		if a.err != nil {
			if crash := c.crash(); crash != "" {
				note = fmt.Sprintf("switch %d (queryAll to port %d):%s", i+1, to, crash)
				b.Logf("%s consumer: %s", c.impl, note)
				return ms, note
			}
			b.Fatal(a.err)
		}
		if a.rw.Error != "" || a.rw.LastAt == 0 {
			note = fmt.Sprintf("switch %d (queryAll to port %d): %s (%d calls, %d failed", i+1, to, a.rw.Error, a.rw.Calls, a.rw.Failed)
			if a.rw.FirstError != "" {
				note += "; first error: " + a.rw.FirstError
			}
			note += ")"
			b.Logf("%s consumer: %s", c.impl, note)
			return ms, note
		}
		ms = append(ms, float64(time.Unix(0, a.rw.LastAt).Sub(wrote).Microseconds())/1e3)
	}
	return ms, ""
}

// manyRefs starts a consumer with refsN references and switches rules.
func (f *fleet) manyRefs(b *testing.B, bs bins, impl string) refsRow {
	r := refsRow{impl: impl, refs: refsN, n: f.size()}
	c, err := f.tryConsumer(bs, impl, refsN)
	if err != nil {
		r.ruleNote = "did not start: " + err.Error()
		b.Logf("%s with %d references: %s", impl, refsN, r.ruleNote)
		return r
	}
	defer func() { _ = c.Stop(10 * time.Second) }()
	r.firstMs = c.firstMs
	if _, err := c.settle(); err != nil {
		b.Fatal(err)
	}
	f.checkProviders(b, c)
	if strings.HasPrefix(impl, "dubboroute") {
		var st stats
		if err := c.get("/stats", &st); err != nil {
			b.Fatal(err)
		}
		if st.Bindings < refsN {
			b.Errorf("dubboroute consumer with %d references has %d bindings", refsN, st.Bindings)
		}
	}
	r.ruleMs, r.ruleNote = f.ruleSwitches(b, c, "calls")
	if strings.HasPrefix(impl, "dubboroute") {
		r.snapMs, r.snapNote = f.ruleSwitches(b, c, "snapshot")
	}
	if c.crash() == "" {
		if r.rss, err = rssMiB(c.Pid()); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s with %d references, n=%d: first call %.0f ms, rule %v ms %s, snapshots %v ms %s, RSS %.0f MiB", impl, refsN, r.n, r.firstMs, r.ruleMs, r.ruleNote, r.snapMs, r.snapNote, r.rss)
	return r
}

// storm: while the consumer calls at stormRate, one registration in
// stormShare leaves (spread over 2.5 s) and comes back (over the next
// 2.5 s).
func (f *fleet) storm(b *testing.B, bs bins, impl string) storm {
	c := f.startConsumer(bs, impl, 1)
	defer func() { _ = c.Stop(10 * time.Second) }()
	if _, err := c.settle(); err != nil {
		b.Fatal(err)
	}
	f.checkProviders(b, c)
	if _, err := c.load(fmt.Sprintf("concurrency=%d&duration=%s", concurrency, warmup)); err != nil {
		b.Fatal(err)
	}
	var st0, st1 stats
	if err := c.get("/stats", &st0); err != nil {
		b.Fatal(err)
	}
	var moved []int
	for i := range f.regs {
		if i%stormShare == 0 {
			moved = append(moved, i)
		}
	}
	s := storm{impl: impl, n: f.size(), moved: len(moved)}
	type answer struct {
		r   loadResult
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		r, err := c.load(fmt.Sprintf("concurrency=%d&rate=%d&duration=9s&check=1", concurrency, stormRate))
		ch <- answer{r, err}
	}()
	time.Sleep(1500 * time.Millisecond)
	began := time.Now()
	half := 2500 * time.Millisecond
	for phase, op := range []func(int) error{f.leave, f.back} {
		start := began.Add(time.Duration(phase) * half)
		for k, i := range moved {
			if d := time.Until(start.Add(half * time.Duration(k) / time.Duration(len(moved)))); d > 0 {
				time.Sleep(d)
			}
			if err := op(i); err != nil {
				b.Fatal(err)
			}
		}
	}
	s.tookS = time.Since(began).Seconds()
	a := <-ch
	if a.err != nil {
		b.Fatal(a.err)
	}
	if err := c.get("/stats", &st1); err != nil {
		b.Fatal(err)
	}
	s.calls, s.failed, s.wrong, s.mix, s.gens, s.errors = a.r.Calls, a.r.Failed, a.r.Wrong, a.r.Mixed, a.r.Gens, a.r.Errors
	s.rate = a.r.Rate
	if strings.HasPrefix(impl, "dubboroute") {
		s.rebuilds = st1.Rebuilds - st0.Rebuilds
		if dc := st1.Count - st0.Count; dc > 0 {
			s.rebuildMeanMs = (st1.SecondsSum - st0.SecondsSum) / float64(dc) * 1e3
			s.rebuildP99, s.rebuildP99Bucket = p99(st0.Buckets, st1.Buckets, dc)
		}
	}
	b.Logf("storm %s n=%d: %d registrations left and came back in %.1f s; %d calls, %d failed, %d wrong, %d mixed, %d snapshots seen, %d rebuilds (mean %.2f ms, p99 %s); errors %v",
		impl, s.n, s.moved, s.tookS, s.calls, s.failed, s.wrong, s.mix, s.gens, s.rebuilds, s.rebuildMeanMs, s.rebuildP99Bucket, s.errors)
	return s
}

// p99 is the 99th percentile of the rebuilds between two histogram reads:
// the upper bound of the bucket holding it (in ms) and that bound as text.
func p99(before, after []bucket, total uint64) (float64, string) {
	want := uint64(float64(total)*0.99 + 0.999999)
	for i, bk := range after {
		var prev uint64
		if i < len(before) {
			prev = before[i].Count
		}
		if bk.Count-prev >= want {
			ms := bk.Le * 1e3
			return ms, "≤ " + strconv.FormatFloat(ms, 'g', 3, 64) + " ms"
		}
	}
	return 0, "> " + strconv.FormatFloat(after[len(after)-1].Le*1e3, 'g', 3, 64) + " ms"
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

// ruleCell is the median and the samples, or the failure.
func ruleCell(ms []float64, note string) string {
	if note != "" {
		return "**not applied**: " + note + " (earlier samples: " + msList(ms) + ")"
	}
	return fmt.Sprintf("%.0f ms (%s)", median(ms), msList(ms))
}

func msList(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, strconv.FormatFloat(x, 'f', 0, 64))
	}
	return strings.Join(parts, ", ")
}

// render formats the results as markdown tables, with the targets.
func render(rows []row, storms []storm, refs []refsRow) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Scale, end to end (%d real providers, fleet of registrations in a private ZooKeeper, concurrency %d, %s measured after %s warm-up; %s):\n\n",
		numProviders, concurrency, loadFor(), warmup, api.Interface)
	sb.WriteString("| n | consumer | calls/s | CPU/call | p50 | p99 | RSS | start → first routed call | start → fleet taken in (idle) | rule write → routed (median; samples) | failed |\n")
	sb.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	cpu := map[int]map[string]float64{}
	var lbRows []row
	for _, r := range rows {
		if r.lb != "" && r.note == "" {
			lbRows = append(lbRows, r)
		}
		if r.note != "" {
			fmt.Fprintf(&sb, "| %d | %s | not measured: %s | | | | | %.0f ms | | | |\n", r.n, r.impl, r.note, r.firstMs)
			continue
		}
		fmt.Fprintf(&sb, "| %d | %s | %.0f | %.1f µs | %.0f µs | %.0f µs | %.0f MiB | %.0f ms | %.1f s | %s | %d of %d |\n",
			r.n, r.impl, r.rate, r.cpuUs, r.p50us, r.p99us, r.rss, r.firstMs, r.settledS, ruleCell(r.ruleMs, r.ruleNote), r.failed+r.wrong, r.calls)
		if cpu[r.n] == nil {
			cpu[r.n] = map[string]float64{}
		}
		cpu[r.n][r.impl] = r.cpuUs
	}
	var ns []int
	for n, c := range cpu {
		if c["dubbogo"] > 0 && c["dubboroute"] > 0 {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	if len(ns) > 0 {
		sb.WriteString("\nCPU per call, dubbo-go ÷ dubboroute: ")
		for i, n := range ns {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "n=%d %.2f×", n, cpu[n]["dubbogo"]/cpu[n]["dubboroute"])
			if g := cpu[n]["dubboroute+gray"]; g > 0 {
				fmt.Fprintf(&sb, " (with dubboroute's gray balancer %.2f×)", cpu[n]["dubbogo"]/g)
			}
		}
		sb.WriteString("\n")
	}
	renderBalancers(&sb, lbRows)
	if len(storms) > 0 {
		sb.WriteString("\nProvider storm (one registration in five leaves and re-registers within 5 s, consumer at a fixed rate):\n\n")
		fmt.Fprintf(&sb, "| consumer | n | moved | calls (rate; asked %d/s) | failed | wrong provider | served by neither snapshot | snapshots seen | rebuilds | rebuild mean | rebuild p99 |\n", stormRate)
		sb.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range storms {
			mix, gens, reb, mean, p := "n/a", "n/a", "n/a", "n/a", "n/a"
			if s.impl == "dubboroute" {
				mix, gens, reb = strconv.Itoa(s.mix), strconv.Itoa(s.gens), strconv.FormatUint(s.rebuilds, 10)
				mean, p = fmt.Sprintf("%.2f ms", s.rebuildMeanMs), s.rebuildP99Bucket
			}
			fmt.Fprintf(&sb, "| %s | %d | %d in %.1f s | %d (%.0f/s) | %d | %d | %s | %s | %s | %s | %s |\n",
				s.impl, s.n, s.moved, s.tookS, s.calls, s.rate, s.failed, s.wrong, mix, gens, reb, mean, p)
		}
	}
	if len(refs) > 0 {
		sb.WriteString("\nOne consumer with many references of the interface:\n\n")
		sb.WriteString("| consumer | references | n | start → first routed call | rule write → every reference served by the new provider (median; samples) | rule write → every reference's snapshot routing with it | RSS |\n")
		sb.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range refs {
			snap := "n/a (no snapshots)"
			if r.impl == "dubboroute" {
				snap = ruleCell(r.snapMs, r.snapNote)
			}
			fmt.Fprintf(&sb, "| %s | %d | %d | %.0f ms | %s | %s | %.0f MiB |\n",
				r.impl, r.refs, r.n, r.firstMs, ruleCell(r.ruleMs, r.ruleNote), snap, r.rss)
		}
	}
	return sb.String()
}

// renderBalancers writes the SCALE_LB rows by balancer: CPU per call of
// each consumer at each n, the part inside the balancer's Select and
// inside the cluster invoker (from the CPU profile), and the issue's
// targets: dubboroute's CPU per call at the largest n within 1.25× of the
// smallest, and at least 3× below dubbo-go's there.
func renderBalancers(sb *strings.Builder, rows []row) {
	if len(rows) == 0 {
		return
	}
	type key struct {
		lb  string
		n   int
		bin string
	}
	by := map[key]row{}
	var lbs []string
	nset := map[int]bool{}
	seen := map[string]bool{}
	for _, r := range rows {
		bin, _ := build(r.impl)
		if !seen[r.lb] {
			seen[r.lb] = true
			lbs = append(lbs, r.lb)
		}
		by[key{r.lb, r.n, bin}] = r
		nset[r.n] = true
	}
	var ns []int
	for n := range nset {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	us := func(v float64) string {
		if v < 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f µs", v)
	}
	sb.WriteString("\nLoad balancers (SCALE_LB): CPU per call; of it, inside the balancer's Select and inside the cluster invoker outside the provider call (routing, selection, strategy), from the consumer's CPU profile ($SCALE_PROFILE):\n\n")
	sb.WriteString("| balancer | n | dubboroute CPU/call | pick | cluster layer | dubbo-go CPU/call | pick | cluster layer | dubbo-go ÷ dubboroute |\n")
	sb.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, lb := range lbs {
		for _, n := range ns {
			d, ok := by[key{lb, n, "dubboroute"}]
			if !ok {
				continue
			}
			g, gok := by[key{lb, n, "dubbogo"}]
			gc, gp, gcl, ratio := "–", "–", "–", "–"
			if gok {
				gc, gp, gcl = us(g.cpuUs), us(g.pickUs), us(g.clusterUs)
				ratio = fmt.Sprintf("%.1f×", g.cpuUs/d.cpuUs)
			}
			fmt.Fprintf(sb, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", lb, n, us(d.cpuUs), us(d.pickUs), us(d.clusterUs), gc, gp, gcl, ratio)
		}
	}
	if len(ns) < 2 {
		return
	}
	lo, hi := ns[0], ns[len(ns)-1]
	sb.WriteString("\n")
	for _, lb := range lbs {
		d0, ok0 := by[key{lb, lo, "dubboroute"}]
		d1, ok1 := by[key{lb, hi, "dubboroute"}]
		if !ok0 || !ok1 {
			continue
		}
		flat := d1.cpuUs / d0.cpuUs
		fmt.Fprintf(sb, "- %-6s %s: CPU per call n=%d ÷ n=%d %.2f× (target ≤ 1.25×)", metMissed(flat <= 1.25), lb, hi, lo, flat)
		if d0.clusterUs > 0 && d1.clusterUs >= 0 {
			fmt.Fprintf(sb, "; cluster layer %.1f → %.1f µs, pick %.2f → %.2f µs", d0.clusterUs, d1.clusterUs, d0.pickUs, d1.pickUs)
		}
		if g, ok := by[key{lb, hi, "dubbogo"}]; ok {
			r := g.cpuUs / d1.cpuUs
			fmt.Fprintf(sb, "; dubbo-go ÷ dubboroute at n=%d %.1f× (%s ≥ 3×)", hi, r, metMissed(r >= 3))
		}
		sb.WriteString("\n")
	}
}

func metMissed(ok bool) string {
	if ok {
		return "MET"
	}
	return "MISSED"
}
