package fault

import (
	"fmt"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// availRate is the load of the availability tests: enough calls that every
// provider is picked many times a second, little enough for a loaded
// 2-core machine running -race binaries.
const availRate = 100

// TestProviderCrashReselect: three providers, a consumer with
// loadbalance random and retries 0 (one attempt per call), one provider
// SIGKILLed under load. Its registration stays until its ZooKeeper session
// expires, so for that while the registry still lists it; its connection
// is gone at once. As Java's cluster.availablecheck does, the consumer
// never picks a provider whose connection is down while another routed
// provider is available: no call fails.
func TestProviderCrashReselect(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}, {}}, harness.ConsumerOptions{LoadBalance: "random"})
	dead := w.ps[2]
	alive := w.ps[:2]
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: availRate})
	defer l.stop(t)
	waitCalls(t, l, availRate)

	before := l.calls()
	killed := time.Now()
	if err := dead.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.c.WaitExplain(harness.QueryAll, settle+15*time.Second, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, addrsOf(alive)...)
	}); err != nil {
		t.Fatalf("killed provider never left the registry: %v", err)
	}
	gone := time.Now()
	during := l.calls() - before
	waitCalls(t, l, l.calls()+availRate/2)
	l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	t.Logf("%s killed; registered for %v more (its ZooKeeper session); %d calls in that window; the consumer found its connection down %d time(s)",
		dead.Addr, gone.Sub(killed).Round(time.Millisecond), during, countLog(w.c.Proc, "[dubboroute] provider "+dead.Addr+": connection down"))
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	for _, p := range w.ps {
		if st.Ports[p.Port] == 0 {
			t.Errorf("provider %s served no call: %v", p.Addr, st.Ports)
		}
	}
}

// restartWait is the providers' shutdown wait in the rolling restart:
// long enough for the consumer to drop a provider from ZooKeeper's
// notification on a loaded machine, short enough for the test's budget.
const restartWait = 2 * time.Second

// TestRollingRestartNoFailedCalls: three providers, a consumer with
// loadbalance random and retries 0, each provider in turn SIGTERMed and
// started again on its port under load. A provider unregisters first,
// keeps serving for its shutdown wait while the consumer drops it, then
// finishes its calls and exits; the consumer routes around it and takes it
// back when it registers again. No call fails.
func TestRollingRestartNoFailedCalls(t *testing.T) {
	opts := []harness.ProviderOptions{{ShutdownWait: restartWait}, {ShutdownWait: restartWait}, {ShutdownWait: restartWait}}
	w := newWorld(t, opts, harness.ConsumerOptions{LoadBalance: "random"})
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: availRate})
	defer l.stop(t)
	waitCalls(t, l, availRate)

	phase := func(name string, from int, failedBefore int) {
		st := l.stats()
		t.Logf("phase %-28s %4d calls, %d failed", name+":", l.calls()-from, st.Failed-failedBefore)
	}
	for i := range w.ps {
		p := w.ps[i]
		others := append(append([]*harness.Provider{}, w.ps[:i]...), w.ps[i+1:]...)
		from, failed := l.calls(), l.stats().Failed
		stopped := time.Now()
		if err := p.Stop(restartWait + 20*time.Second); err != nil {
			t.Fatal(err)
		}
		took := time.Since(stopped)
		if !p.LogContains("STOPPED after") {
			t.Errorf("%s did not finish its graceful shutdown (exit %s); log:\n%s", p.Addr, p.ExitStatus(), p.LogTail(20))
		}
		if took < restartWait {
			t.Errorf("%s exited %v after SIGTERM, before its shutdown wait %v", p.Addr, took, restartWait)
		}
		// It left the registry before it stopped serving.
		if ex, err := w.c.Explain(harness.QueryAll); err != nil || !harness.Same(ex.Providers, addrsOf(others)...) {
			t.Errorf("after %s stopped the consumer lists %v (err %v), want %v", p.Addr, ex.Providers, err, addrsOf(others))
		}
		phase(fmt.Sprintf("stop %d (%v)", p.Port, took.Round(time.Millisecond)), from, failed)

		from, failed = l.calls(), l.stats().Failed
		o := opts[i]
		o.Registry, o.Port = w.reg, p.Port
		np := harness.StartProvider(t, w.bins, o)
		w.ps[i] = np
		if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
			return harness.Same(ex.Providers, w.addrs()...)
		}); err != nil {
			t.Fatalf("restarted %s never came back: %v", np.Addr, err)
		}
		waitCalls(t, l, l.calls()+availRate/2)
		phase(fmt.Sprintf("restart %d", np.Port), from, failed)
	}
	l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	// With the providers leaving the registry first, the consumer should
	// not have met a closed connection at all (a call it could not send
	// would have gone to another provider, and is counted here).
	t.Logf("connections the consumer found down: %d", countLog(w.c.Proc, "[dubboroute] provider", "connection down"))
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	for _, p := range w.ps {
		if st.Ports[p.Port] == 0 {
			t.Errorf("provider %s served no call: %v", p.Addr, st.Ports)
		}
	}
}
