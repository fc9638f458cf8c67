package fault

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// Churn parameters (the issue's: 20 rule updates per second for 30 s under
// at least 500 calls/s).
const (
	churnFor      = 30 * time.Second
	churnUpdates  = 20 // per second
	churnMinRate  = 500
	goroutineLeak = 15 // goroutines the consumer may have gained after the churn (besides pooled connections)
)

// churnRules returns rule A (which = 1) or B (which = 2) for one key: the
// tag rule gives tag t to p<which>, the service rule (force: false) sends
// queryAll to p<which>.
func churnRules(key string, which, port int) string {
	if key == tagKey {
		return fmt.Sprintf("force: false\nruntime: true\nenabled: true\nkey: %s\ntags:\n  - name: t\n    addresses: [\"%s:%d\"]\n# rule %c\n",
			api.ProviderApp, harness.Host, port, 'A'+which-1)
	}
	return fmt.Sprintf("scope: service\nforce: false\nruntime: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n# rule %c\n",
		api.Interface, port, 'A'+which-1)
}

// TestRuleChurn switches between rule A (tag rule and service rule both
// sending tag-t calls to p1) and rule B (both to p2) with 20 single-key
// updates per second for 30 s (tag key, service key, tag key, ...), while
// queryAll and queryByName with tag t run at 550 calls/s in all. A third
// provider p3 is allowed by neither rule. Every intermediate state is
// consistent: the service rule is not forced, so with the tag rule of B and
// the service rule of A the call stays on p2, and so on. Asserted:
//
//   - no call fails and none reaches p3;
//   - every snapshot a call saw routes it to exactly p1 or exactly p2 (a
//     state of A or B, never a mix, never empty), and the provider that
//     served it is the one routed by the snapshot in force when it began or
//     when it ended;
//   - the consumer (a -race build) reports no data race in dubboroute code
//     (the harness fails the test on one), does not panic or exit, and has
//     no more than 15 goroutines more once the load and the churn stopped
//     (not counting the readers of dubbo-go's pooled provider connections,
//     whose number follows the peak of calls in flight; 600 updates leaking
//     one goroutine each would show).
func TestRuleChurn(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}, {}}, harness.ConsumerOptions{})
	p1, p2 := w.ps[0], w.ps[1]
	port := map[int]int{1: p1.Port, 2: p2.Port}
	w.put(t, tagKey, churnRules(tagKey, 1, p1.Port))
	w.put(t, svcKey, churnRules(svcKey, 1, p1.Port))
	qa, qn := harness.QueryAll.WithTag("t", false), harness.QueryByName.WithTag("t", false)
	w.waitRouted(t, qa, p1)
	w.waitRouted(t, qn, p1)

	// Warm up: the same load against rule A and rule B (so dubbo-go opens
	// its pooled connections to both providers), then count goroutines at
	// rest.
	for _, which := range []int{2, 1} {
		w.put(t, tagKey, churnRules(tagKey, which, port[which]))
		w.waitRouted(t, qn, w.ps[which-1])
		if _, err := runLoad(w.c, loadSpec{Call: qn, Rate: 550, Concurrency: 48, Batch: time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	before := restingGoroutines(t, w.c)

	loads := []*loader{
		startLoad(w.c, loadSpec{Call: qa, Rate: 400, Concurrency: 32}),
		startLoad(w.c, loadSpec{Call: qn, Rate: 150, Concurrency: 16}),
	}
	defer func() {
		for _, l := range loads {
			l.stop(t)
		}
	}()
	for _, l := range loads {
		waitCalls(t, l, int(l.spec.Rate)/2)
	}
	accepted0 := countLog(w.c.Proc, "rule key=", "accepted (change event)")

	// 20 single-key updates per second: tag B, service B, tag A, service A, ...
	var (
		writes   int
		writeErr error
		wg       sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Update i is due at begin + i/20 s: a slow write is caught up.
		begin := time.Now()
		for i := 0; i < churnUpdates*int(churnFor/time.Second); i++ {
			if d := time.Until(begin.Add(time.Duration(i) * time.Second / churnUpdates)); d > 0 {
				time.Sleep(d)
			}
			key := tagKey
			if i%2 == 1 {
				key = svcKey
			}
			which := 2 - (i/2)%2 // B for updates 0,1; A for 2,3; ...
			if err := w.rules.Put(key, churnRules(key, which, port[which])); err != nil {
				writeErr = err
				return
			}
			writes++
		}
	}()
	churnBegin := time.Now()
	wg.Wait()
	churnTook := time.Since(churnBegin)
	if writeErr != nil {
		t.Fatalf("rule write %d: %v", writes+1, writeErr)
	}
	// Settle on rule A (the last pair written is A's or B's; write A's).
	w.put(t, tagKey, churnRules(tagKey, 1, p1.Port))
	w.put(t, svcKey, churnRules(svcKey, 1, p1.Port))
	w.waitRouted(t, qa, p1)
	for _, l := range loads {
		waitCalls(t, l, l.calls()+int(l.spec.Rate)/2)
	}
	accepted := countLog(w.c.Proc, "rule key=", "accepted (change event)") - accepted0

	total, failed, calls := 0, 0, 0
	var rate float64
	gens := map[uint64]bool{}
	for _, l := range loads {
		batches := l.stop(t)
		st := l.stats()
		t.Logf("%s: %s", l.spec.Call, st)
		total += st.Calls
		failed += st.Failed
		rate += st.Rate()
		checkCalls(t, l.spec.Call.String(), batches, servedBy(p1.Port, p2.Port))
		checkCalls(t, l.spec.Call.String()+" never a mix", batches, func(b httpapi.Load, c httpapi.LoadCall) error {
			for _, g := range []uint64{c.Gen0, c.Gen1} {
				gens[g] = true
				if r := b.Routed[g]; len(r) != 1 || (r[0] != p1.Port && r[0] != p2.Port) {
					return fmt.Errorf("snapshot %d routes to %v, want exactly p1 (%d) or exactly p2 (%d)", g, r, p1.Port, p2.Port)
				}
			}
			return onSnapshot(b, c)
		})
		for _, b := range batches {
			calls += len(b.Results)
		}
	}
	t.Logf("churn: %d rule updates in %v (%.1f/s), %d accepted by the consumer (ZooKeeper coalesces watches), %d routing snapshots seen by calls; load: %d calls (%d checked), %d failed, %.0f calls/s",
		writes, churnTook.Round(time.Millisecond), float64(writes)/churnTook.Seconds(), accepted, len(gens), total, calls, failed, rate)
	if failed > 0 {
		t.Errorf("%d of %d calls failed", failed, total)
	}
	if rate < churnMinRate {
		t.Errorf("load was %.0f calls/s, want at least %d", rate, churnMinRate)
	}
	if float64(writes) < 0.9*churnUpdates*churnFor.Seconds() {
		t.Errorf("only %d rule updates in %v, want %d per second", writes, churnTook, churnUpdates)
	}
	if accepted < writes/4 {
		t.Errorf("the consumer accepted %d of %d updates: the churn did not reach it", accepted, writes)
	}

	var after census
	if err := harness.Eventually(settle, func() error {
		after = restingGoroutines(t, w.c)
		if after.others() > before.others()+goroutineLeak {
			return fmt.Errorf("%d goroutines besides dubbo-go's pooled connections, %d before the churn", after.others(), before.others())
		}
		return nil
	}); err != nil {
		t.Errorf("goroutine leak: %v; stacks:\n%s", err, goroutineStacks(w.c))
	}
	t.Logf("consumer goroutines at rest: %s before the churn, %s after", before, after)
	if w.c.Exited() {
		t.Errorf("consumer exited: %s", w.c.ExitStatus())
	}
	if n := countLog(w.c.Proc, "panic"); n > 0 {
		t.Errorf("consumer log mentions panic %d times: %s", n, lastLog(w.c.Proc, "panic"))
	}
}

// census counts a consumer's goroutines, and among them those serving
// dubbo-go's pooled provider connections (getty sessions): the pool grows
// with the peak number of calls in flight, up to dubbo-go's pool size, and
// keeps idle sessions for minutes, so they are not a leak.
type census struct{ total, pool int }

func (c census) others() int { return c.total - c.pool }

func (c census) String() string {
	return fmt.Sprintf("%d (%d besides %d pooled connection readers)", c.total, c.others(), c.pool)
}

// poolFrame marks a goroutine that reads one pooled getty session.
const poolFrame = "github.com/apache/dubbo-getty.(*session).handlePackage"

// restingGoroutines takes the consumer's goroutine census with no HTTP
// connection of ours kept alive (the count from /debug/goroutines, the
// pooled connections from its stacks).
func restingGoroutines(t *testing.T, c *harness.Consumer) census {
	t.Helper()
	loadClient.CloseIdleConnections()
	defer loadClient.CloseIdleConnections()
	n, err := goroutines(c)
	if err != nil {
		t.Fatal(err)
	}
	cs := census{total: n}
	// pprof's debug=1 text: "<count> @ <pcs>" then "#\t<pc>\t<func>+..." lines.
	group := 0
	for _, line := range strings.Split(goroutineStacks(c), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[1] == "@" {
			group, _ = strconv.Atoi(f[0])
			continue
		}
		if group > 0 && strings.Contains(line, poolFrame) {
			cs.pool += group
			group = 0
		}
	}
	return cs
}
