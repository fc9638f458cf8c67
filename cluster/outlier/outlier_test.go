package outlier

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time      { return c.t }
func (c *fakeClock) Add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *fakeClock               { return &fakeClock{t: time.Unix(1_000_000, 0)} }
func addrs(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("10.0.0.%d:20880", i+1)
	}
	return out
}

// sim drives a detector the way a consumer does: route (every provider),
// filter, a random pick among providers not tried yet, failover with
// retries, one call every step of the clock.
type sim struct {
	d        *Detector
	f        Filter[string]
	clk      *fakeClock
	rng      *rand.Rand
	provs    []string
	behave   func(addr string) Result
	attempts map[string]int
	calls    int
	failed   int
	events   []Event
}

func newSim(t *testing.T, c Config, n int, behave func(string) Result) *sim {
	t.Helper()
	s := &sim{clk: newClock(), rng: rand.New(rand.NewPCG(1, 2)), provs: addrs(n), behave: behave, attempts: map[string]int{}}
	s.d = New(c)
	s.d.Now = s.clk.Now
	s.d.Rand = func(n int64) int64 { return s.rng.Int64N(n) }
	s.d.OnEvent = func(e Event) { s.events = append(s.events, e) }
	s.f.Addr = func(a string) string { return a }
	s.d.Sync(s.provs)
	return s
}

func (s *sim) call(retries int) {
	s.calls++
	var tried []string
	for a := 0; a <= retries; a++ {
		list, _ := s.f.Apply(s.d, s.provs)
		var cands []string
		for _, x := range list {
			if !contains(tried, x) {
				cands = append(cands, x)
			}
		}
		if len(cands) == 0 {
			cands = list
		}
		pick := cands[s.rng.IntN(len(cands))]
		r := s.behave(pick)
		s.attempts[pick]++
		s.d.Record(pick, r)
		if r == Success {
			return
		}
		tried = append(tried, pick)
	}
	s.failed++
}

func contains(l []string, x string) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}

// run makes calls every step until the clock has advanced by d.
func (s *sim) run(d, step time.Duration, retries int) {
	end := s.clk.t.Add(d)
	for s.clk.t.Before(end) {
		s.call(retries)
		s.clk.Add(step)
	}
}

func stateOf(d *Detector, addr string) HostState {
	for _, s := range d.State() {
		if s.Addr == addr {
			return s
		}
	}
	return HostState{}
}

func istioDefault() Config { return FromIstio(Istio{}) }

// TestOutlierEjection covers the spec's vectors A1–A10 over the pure
// detector with a fake clock.
func TestOutlierEjection(t *testing.T) {
	t.Run("A1_connect_refused", func(t *testing.T) { testConsecutive(t, ConnectFailed) })
	t.Run("A2_timeouts", func(t *testing.T) { testConsecutive(t, Timeout) })
	t.Run("A3_slow_never_ejected", func(t *testing.T) {
		// A slow provider that answers is a success: never ejected.
		s := newSim(t, istioDefault(), 10, func(string) Result { return Success })
		s.run(10*time.Minute, 100*time.Millisecond, 2)
		if s.d.Ejections() != 0 || s.failed != 0 {
			t.Fatalf("ejections %d failed %d, want 0 0", s.d.Ejections(), s.failed)
		}
	})
	t.Run("A4_alternating_never_ejected", func(t *testing.T) {
		n := 0
		s := newSim(t, istioDefault(), 10, func(a string) Result {
			if a != "10.0.0.1:20880" {
				return Success
			}
			n++
			if n%2 == 0 {
				return ConnectFailed
			}
			return Success
		})
		s.run(10*time.Minute, 100*time.Millisecond, 2)
		t.Logf("A4: P1 attempts %d, ejections %d, calls %d failed %d", s.attempts["10.0.0.1:20880"], s.d.Ejections(), s.calls, s.failed)
		if s.d.Ejections() != 0 {
			t.Fatalf("P1 failing every other attempt was ejected %d times, want 0", s.d.Ejections())
		}
		if s.attempts["10.0.0.1:20880"] < 100 {
			t.Fatalf("P1 got %d attempts: the scenario did not exercise it", s.attempts["10.0.0.1:20880"])
		}
	})
	t.Run("A5_half_random", func(t *testing.T) {
		// Attempts on P1 until its first ejection, over many runs: a run
		// of 5 failures at p=0.5 takes (1−0.5⁵)/(0.5·0.5⁵) = 62 attempts
		// on average.
		rng := rand.New(rand.NewPCG(7, 7))
		const runs = 4000
		total := 0
		for i := 0; i < runs; i++ {
			d := New(Config{Consecutive5xx: 5, AlwaysEjectOne: true})
			d.Now = newClock().Now
			d.Sync([]string{"p1"})
			for n := 1; ; n++ {
				r := Success
				if rng.IntN(2) == 0 {
					r = ServerError
				}
				d.Record("p1", r)
				if d.Ejected("p1") {
					total += n
					break
				}
			}
		}
		mean := float64(total) / runs
		t.Logf("A5: mean attempts on P1 before ejection %.1f over %d runs (expected 62)", mean, runs)
		if mean < 58 || mean > 66 {
			t.Fatalf("mean %.1f attempts, want 62±4", mean)
		}
	})
	t.Run("A6_success_rate", func(t *testing.T) {
		c := Config{SuccessRate: true}
		d := New(c)
		clk := newClock()
		d.Now = clk.Now
		provs := addrs(10)
		d.Sync(provs)
		for i, a := range provs {
			for k := 0; k < 200; k++ {
				r := Success
				if i == 0 && k%2 == 0 {
					r = ServerError
				}
				d.Record(a, r)
			}
		}
		clk.Add(10 * time.Second)
		d.Tick()
		st := stateOf(d, provs[0])
		if !st.Ejected || st.Reason != "success-rate" {
			t.Fatalf("P1 state %+v, want ejected for success-rate (mean 95, stdev 15, threshold 66.5 > 50)", st)
		}
		if d.ActiveEjections() != 1 {
			t.Fatalf("%d ejected, want 1", d.ActiveEjections())
		}
		// Envoy's own example: {50,100,100,100,100} → threshold 52.
		d2 := New(Config{SuccessRate: true, MaxEjectionPercent: 100})
		d2.Now = clk.Now
		p5 := addrs(5)
		d2.Sync(p5)
		for i, a := range p5 {
			for k := 0; k < 100; k++ {
				r := Success
				if i == 0 && k%2 == 0 {
					r = ServerError
				}
				d2.Record(a, r)
			}
		}
		d2.Sweep(clk.Now())
		if !d2.Ejected(p5[0]) || d2.ActiveEjections() != 1 {
			t.Fatalf("Envoy's example: P1 ejected %v, %d ejected; want true, 1", d2.Ejected(p5[0]), d2.ActiveEjections())
		}
		// Below the request volume nothing is judged.
		d3 := New(Config{SuccessRate: true})
		d3.Now = clk.Now
		d3.Sync(provs)
		for i, a := range provs {
			for k := 0; k < 99; k++ {
				r := Success
				if i == 0 {
					r = ServerError
				}
				d3.Record(a, r)
			}
		}
		d3.Sweep(clk.Now())
		if d3.ActiveEjections() != 0 {
			t.Fatalf("below the request volume: %d ejected, want 0", d3.ActiveEjections())
		}
	})
	t.Run("A7_backoff_decay", func(t *testing.T) {
		c := istioDefault()
		c.AlwaysEjectOne = true
		d := New(c)
		clk := newClock()
		d.Now = clk.Now
		d.Sync(addrs(10))
		p1 := "10.0.0.1:20880"
		fail5 := func() {
			for i := 0; i < 5; i++ {
				d.Record(p1, ConnectFailed)
			}
		}
		for k := 1; k <= 3; k++ {
			fail5()
			if !d.Ejected(p1) {
				t.Fatalf("ejection %d did not happen", k)
			}
			for d.Ejected(p1) {
				clk.Add(time.Second)
				d.Tick()
			}
		}
		if b := stateOf(d, p1).Backoff; b != 3 {
			t.Fatalf("backoff %d after 3 ejections, want 3", b)
		}
		// Healthy: one step down per interval, starting an interval after
		// the uneject.
		for want := 2; want >= 0; want-- {
			clk.Add(10 * time.Second)
			d.Tick()
			if b := stateOf(d, p1).Backoff; b != want {
				t.Fatalf("backoff %d, want %d", b, want)
			}
		}
		fail5()
		if st := stateOf(d, p1); st.Until.Sub(st.Since) != 30*time.Second {
			t.Fatalf("after decay the ejection lasts %v, want 30s", st.Until.Sub(st.Since))
		}
	})
	t.Run("A8_cap", func(t *testing.T) {
		c := istioDefault()
		c.MaxEjectionPercent = 20
		d := New(c)
		d.Now = newClock().Now
		p := addrs(10)
		d.Sync(p)
		for _, a := range p[:3] {
			for i := 0; i < 5; i++ {
				d.Record(a, ServerError)
			}
		}
		if !d.Ejected(p[0]) || !d.Ejected(p[1]) || d.Ejected(p[2]) || d.Overflows() != 1 {
			t.Fatalf("P1 %v P2 %v P3 %v overflow %d; want true true false 1", d.Ejected(p[0]), d.Ejected(p[1]), d.Ejected(p[2]), d.Overflows())
		}
		if st := stateOf(d, p[2]); st.Consecutive != 0 {
			t.Fatalf("P3's counter after the overflow is %d, want 0 (reset)", st.Consecutive)
		}
	})
	t.Run("A9_small_fleet", func(t *testing.T) {
		for _, always := range []bool{false, true} {
			c := istioDefault()
			c.AlwaysEjectOne = always
			d := New(c)
			d.Now = newClock().Now
			p := addrs(4)
			d.Sync(p)
			for i := 0; i < 5; i++ {
				d.Record(p[0], ConnectFailed)
			}
			if d.Ejected(p[0]) != always {
				t.Fatalf("4 providers, cap 10%%, always-eject-one=%v: ejected %v", always, d.Ejected(p[0]))
			}
		}
	})
	t.Run("A10_panic_floor", func(t *testing.T) {
		c := istioDefault()
		c.MaxEjectionPercent = 20
		d := New(c)
		d.Now = newClock().Now
		p := addrs(10)
		d.Sync(p)
		for _, a := range p[2:4] {
			for i := 0; i < 5; i++ {
				d.Record(a, ConnectFailed)
			}
		}
		var f Filter[string]
		f.Addr = func(a string) string { return a }
		v2 := p[2:4]
		got, panicked := f.Apply(d, v2)
		if !panicked || len(got) != 2 || got[0] != p[2] || got[1] != p[3] {
			t.Fatalf("subset v2 all ejected: %v panicked=%v, want the routed %v and panic", got, panicked, v2)
		}
		all, panicked := f.Apply(d, p)
		if panicked || len(all) != 8 || contains(all, p[2]) || contains(all, p[3]) {
			t.Fatalf("all providers: %v panicked=%v, want the 8 in service", all, panicked)
		}
		if d.Panics() != 1 {
			t.Fatalf("panics %d, want 1", d.Panics())
		}
		// MinHealthPercent 50: 1 of 3 left (33%) is below the floor.
		c.MinHealthPercent = 50
		c.MaxEjectionPercent = 100
		d2 := New(c)
		d2.Now = newClock().Now
		d2.Sync(p[:3])
		for _, a := range p[:2] {
			for i := 0; i < 5; i++ {
				d2.Record(a, ConnectFailed)
			}
		}
		var f2 Filter[string]
		f2.Addr = f.Addr
		if got, panicked := f2.Apply(d2, p[:3]); !panicked || len(got) != 3 {
			t.Fatalf("min-health 50%% with 1 of 3 left: %v panicked=%v, want the 3 routed", got, panicked)
		}
	})
	t.Run("sync_drops_and_keeps", func(t *testing.T) {
		c := istioDefault()
		c.AlwaysEjectOne = true
		d := New(c)
		d.Now = newClock().Now
		p := addrs(3)
		d.Sync(p)
		for i := 0; i < 5; i++ {
			d.Record(p[0], ConnectFailed)
		}
		d.Sync(append([]string{"10.0.0.9:20880"}, p...))
		if !d.Ejected(p[0]) || d.ActiveEjections() != 1 {
			t.Fatal("a rebuild with the ejected provider still there lost its ejection")
		}
		d.Sync(p[1:])
		if d.Lookup(p[0]) != nil || d.ActiveEjections() != 0 {
			t.Fatal("a provider that left is still known, or still counts as ejected")
		}
	})
	t.Run("off", func(t *testing.T) {
		d := New(Config{})
		d.Sync(addrs(3))
		for i := 0; i < 50; i++ {
			d.Record("10.0.0.1:20880", ConnectFailed)
		}
		var f Filter[string]
		f.Addr = func(a string) string { return a }
		p := addrs(3)
		if got, _ := f.Apply(d, p); len(got) != 3 || d.Ejections() != 0 {
			t.Fatalf("a disabled detector filtered to %v with %d ejections", got, d.Ejections())
		}
	})
}

// testConsecutive is A1/A2: P1 of 10 fails every attempt (refused, or
// timed out); consecutive 5xx 5, interval 10 s, base 30 s, max 300 s,
// failover retries 2, one call per 100 ms.
func testConsecutive(t *testing.T, fail Result) {
	p1 := "10.0.0.1:20880"
	c := istioDefault()
	s := newSim(t, c, 10, func(a string) Result {
		if a == p1 {
			return fail
		}
		return Success
	})
	start := s.clk.t
	for !s.d.Ejected(p1) {
		s.call(2)
		s.clk.Add(100 * time.Millisecond)
		if s.clk.t.Sub(start) > time.Minute {
			t.Fatal("P1 not ejected within a minute")
		}
	}
	if s.attempts[p1] != 5 || s.failed != 0 {
		t.Fatalf("P1 ejected after %d attempts with %d failed calls, want 5 and 0", s.attempts[p1], s.failed)
	}
	t.Logf("%v: P1 ejected at +%v after %d attempts; calls %d failed %d", fail, s.clk.t.Sub(start), s.attempts[p1], s.calls, s.failed)
	// While ejected, P1 gets no attempt.
	before := s.attempts[p1]
	s.run(25*time.Second, 100*time.Millisecond, 2)
	if s.attempts[p1] != before {
		t.Fatalf("P1 got %d attempts while ejected", s.attempts[p1]-before)
	}
	s.run(40*time.Minute, 100*time.Millisecond, 2)
	if s.failed != 0 {
		t.Fatalf("%d calls failed, want 0 (each failure of P1 is retried elsewhere)", s.failed)
	}
	// Every ejection lasts min(30 s × backoff, 300 s); P1 returns at the
	// first sweep at or after that, at most one interval later.
	var ejAt time.Time
	var ejDur time.Duration
	maxBackoff, ejections := 0, 0
	for _, e := range s.events {
		if e.Ejected {
			ejections++
			ejAt, ejDur = e.At, e.Until.Sub(e.At)
			want := min(time.Duration(e.Backoff)*30*time.Second, 300*time.Second)
			if ejDur != want {
				t.Fatalf("ejection with backoff %d lasts %v, want %v", e.Backoff, ejDur, want)
			}
			maxBackoff = max(maxBackoff, e.Backoff)
			if ejections <= 4 {
				t.Logf("ejection %d at +%v for %v (backoff %d)", ejections, e.At.Sub(start), ejDur, e.Backoff)
			}
			continue
		}
		if e.Overflow {
			t.Fatalf("unexpected overflow %+v", e)
		}
		back := e.At.Sub(ejAt)
		if back < ejDur || back > ejDur+10*time.Second {
			t.Fatalf("P1 returned %v after its ejection for %v, want within one interval after", back, ejDur)
		}
	}
	if maxBackoff != 11 {
		t.Fatalf("the backoff reached %d, want 11 (30 s × 11 ≥ 300 s + 30 s stops it)", maxBackoff)
	}
	t.Logf("%v: %d ejections in 40 min, backoff up to %d, P1 attempts %d of %d calls, failed %d", fail, ejections, maxBackoff, s.attempts[p1], s.calls, s.failed)
}

func TestFromParams(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, ok, err := FromParams(get(map[string]string{ParamConsecutiveErrors: "7", ParamInterval: "5s", ParamBaseEjectionTime: "15000", ParamSplit: "true"}))
	if err != nil || !ok || c.Consecutive5xx != 7 || c.Interval != 5*time.Second || c.BaseEjectionTime != 15*time.Second || !c.SplitExternalLocalOrigin {
		t.Fatalf("FromParams = %+v %v %v", c, ok, err)
	}
	if _, ok, _ := FromParams(get(nil)); ok {
		t.Fatal("no parameter set reported ok")
	}
	if _, _, err := FromParams(get(map[string]string{ParamConsecutiveErrors: "x"})); err == nil {
		t.Fatal("a bad value was accepted")
	}
	five, zero := 5, 0
	iv := time.Minute
	m := FromIstio(Istio{ConsecutiveGatewayErrors: &five, MaxEjectionPercent: &zero, Interval: &iv})
	if m.Consecutive5xx != 5 || m.ConsecutiveGateway != 5 || m.MaxEjectionPercent != 0 || m.Interval != time.Minute || m.SuccessRate {
		t.Fatalf("FromIstio = %+v", m)
	}
	if d := New(m); d.Config().MaxEjectionPercent != 10 || d.Config().MaxEjectionTime != 300*time.Second {
		t.Fatalf("defaults %+v", d.Config())
	}
}

func TestHotPathAllocs(t *testing.T) {
	c := istioDefault()
	c.MaxEjectionPercent = 50
	d := New(c)
	d.Now = newClock().Now
	p := addrs(100)
	d.Sync(p)
	for i := 0; i < 5; i++ {
		d.Record(p[3], ConnectFailed)
	}
	var f Filter[string]
	f.Addr = func(a string) string { return a }
	f.Apply(d, p)
	if n := testing.AllocsPerRun(1000, func() {
		d.Record(p[8], ServerError)
		d.Record(p[8], Success)
		_ = d.Ejected(p[3])
		out, _ := f.Apply(d, p)
		if len(out) != 99 {
			panic("filter")
		}
	}); n != 0 {
		t.Fatalf("%v allocations per call, want 0", n)
	}
}

func BenchmarkRecord(b *testing.B) {
	d := New(istioDefault())
	p := addrs(1000)
	d.Sync(p)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d.Record(p[i%1000], Success)
	}
}

func BenchmarkFilter(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c := istioDefault()
			c.MaxEjectionPercent = 50
			d := New(c)
			p := addrs(n)
			d.Sync(p)
			for i := 0; i < 5; i++ {
				d.Record(p[1], ConnectFailed)
			}
			var f Filter[string]
			f.Addr = func(a string) string { return a }
			b.ReportAllocs()
			for b.Loop() {
				f.Apply(d, p)
			}
		})
	}
}

// Concurrent recording, filtering, sweeping and syncing keep the counts
// consistent (run with -race): the active ejections never exceed the cap
// and match the providers marked ejected.
func TestConcurrentUse(t *testing.T) {
	c := Config{Consecutive5xx: 3, MaxEjectionPercent: 30, Interval: time.Millisecond, BaseEjectionTime: 2 * time.Millisecond}
	d := New(c)
	p := addrs(10)
	d.Sync(p)
	var f Filter[string]
	f.Addr = func(a string) string { return a }
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func(g int) {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 5000; i++ {
				a := p[(i+g)%10]
				r := Success
				if (i+g)%10 < 4 {
					r = ServerError
				}
				d.Record(a, r)
				if out, _ := f.Apply(d, p); len(out) < 7 {
					panic(fmt.Sprintf("filtered to %d of 10 with a 30%% cap", len(out)))
				}
				if i%1000 == 0 && g == 0 {
					d.Sync(p)
				}
			}
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	n := 0
	for _, s := range d.State() {
		if s.Ejected {
			n++
		}
	}
	if n != d.ActiveEjections() || n > 3 || d.Ejections() == 0 {
		t.Fatalf("%d marked ejected, %d active, %d ejections in all; want equal, at most 3, some", n, d.ActiveEjections(), d.Ejections())
	}
}
