package fault

import (
	"fmt"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
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
// started again on its port under load. A provider unregisters first (its
// registrations are gone while it still runs), keeps serving for its
// shutdown wait while the consumer drops it, then finishes its calls and
// exits; the consumer routes around it and takes it back when it registers
// again. No call fails. Interface level (ZooKeeper provider nodes) and
// application level (providers registering both levels, a consumer
// discovering instances only).
func TestRollingRestartNoFailedCalls(t *testing.T) {
	t.Run("interface", func(t *testing.T) {
		rollingRestart(t, "", harness.ConsumerOptions{LoadBalance: "random"})
	})
	t.Run("application", func(t *testing.T) {
		rollingRestart(t, "all", harness.ConsumerOptions{LoadBalance: "random", RegistryType: "service",
			Env: []string{"DUBBO_APPLICATION_SERVICE_DISCOVERY_MIGRATION=FORCE_APPLICATION"}})
	})
}

func rollingRestart(t *testing.T, registryType string, copts harness.ConsumerOptions) {
	po := harness.ProviderOptions{ShutdownWait: restartWait, RegistryType: registryType}
	w := newWorld(t, []harness.ProviderOptions{po, po, po}, copts)
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
		nodes := registrationNodes(t, w, p, registryType)
		from, failed := l.calls(), l.stats().Failed
		stopped := time.Now()
		stopErr := make(chan error, 1)
		go func() { stopErr <- p.Stop(restartWait + 20*time.Second) }()
		// Every registration goes while the provider still runs.
		if err := harness.Eventually(restartWait+10*time.Second, func() error {
			for _, n := range nodes {
				if ok, _, err := w.rules.Conn.Exists(n); err != nil || ok {
					return fmt.Errorf("%s still registered (err %v)", n, err)
				}
			}
			return nil
		}); err != nil {
			t.Errorf("%s did not unregister: %v", p.Addr, err)
		}
		left := time.Since(stopped)
		if p.Exited() {
			t.Errorf("%s exited before its registrations were gone (%v after SIGTERM)", p.Addr, left)
		}
		if err := <-stopErr; err != nil {
			t.Fatal(err)
		}
		took := time.Since(stopped)
		if !p.LogContains("STOPPED after") {
			t.Errorf("%s did not finish its graceful shutdown (exit %s); log:\n%s", p.Addr, p.ExitStatus(), p.LogTail(20))
		}
		if took < restartWait {
			t.Errorf("%s exited %v after SIGTERM, before its shutdown wait %v", p.Addr, took, restartWait)
		}
		if ex, err := w.c.Explain(harness.QueryAll); err != nil || !harness.Same(ex.Providers, addrsOf(others)...) {
			t.Errorf("after %s stopped the consumer lists %v (err %v), want %v", p.Addr, ex.Providers, err, addrsOf(others))
		}
		phase(fmt.Sprintf("stop %d (left %v, exit %v)", p.Port, left.Round(time.Millisecond), took.Round(time.Millisecond)), from, failed)

		from, failed = l.calls(), l.stats().Failed
		o := po
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

// registrationNodes are p's ZooKeeper registrations: its provider node
// (interface level) and, with registry type all, its instance node
// (application level).
func registrationNodes(t *testing.T, w *world, p *harness.Provider, registryType string) []string {
	t.Helper()
	nodes := []string{providerNode(t, w.rules, p.Addr)}
	if registryType == "all" || registryType == "service" {
		inst := "/services/" + api.ProviderApp + "/" + p.Addr
		if ok, _, err := w.rules.Conn.Exists(inst); err != nil || !ok {
			t.Fatalf("instance node %s: exists %v, err %v", inst, ok, err)
		}
		nodes = append(nodes, inst)
	}
	return nodes
}
