package fault

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/integration/harness"
	inacos "github.com/dubboroute/dubboroute/integration/nacos"
	"github.com/dubboroute/dubboroute/integration/zk"
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
// provider is available: no call begun after the provider died fails (a
// call already sent to it when it died is lost, as in Java, and counted).
// A Java consumer of the same fleet calls beside it; its count is
// printed, not asserted.
func TestProviderCrashReselect(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}, {}}, harness.ConsumerOptions{LoadBalance: "random"})
	dead := w.ps[2]
	alive := w.ps[:2]
	java := startJavaConsumer(t, w.zk.Addr())
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: availRate})
	defer l.stop(t)
	waitCalls(t, l, availRate)

	before := l.calls()
	killed := time.Now()
	if err := dead.Kill(); err != nil {
		t.Fatal(err)
	}
	reaped := time.Now() // no call begun from here on can have been sent to it alive
	if _, err := w.c.WaitExplain(harness.QueryAll, settle+15*time.Second, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, addrsOf(alive)...)
	}); err != nil {
		t.Fatalf("killed provider never left the registry: %v", err)
	}
	gone := time.Now()
	during := l.calls() - before
	waitCalls(t, l, l.calls()+availRate/2)
	batches := l.stop(t)
	jcalls, jfailed, jkinds := java.counts(t)
	st := l.stats()
	t.Logf("load: %s", st)
	t.Logf("Go consumer (random, retries 0): %d of %d calls failed; Java 3.3.6 consumer of the same fleet (retries 0), same period: %d of %d failed %v",
		st.Failed, st.Calls, jfailed, jcalls, jkinds)
	// A call already sent to the provider when it died is lost (with
	// retries 0 it is not sent again: it may have run; Java loses it too).
	// Every call begun after the process was gone must succeed.
	var inFlight int
	checkCalls(t, "a call begun after the provider died", batches, func(b httpapi.Load, c httpapi.LoadCall) error {
		if !c.Failed {
			return nil
		}
		if time.Unix(0, b.Started).Add(time.Duration(c.At) * time.Microsecond).Before(reaped) {
			inFlight++
			return nil
		}
		return fmt.Errorf("failed: %s", c.Error)
	})
	t.Logf("Go calls lost in flight when the provider died: %d (begun before it was reaped, %v after the SIGKILL)", inFlight, reaped.Sub(killed).Round(time.Millisecond))
	t.Logf("%s killed; registered for %v more (its ZooKeeper session); %d calls in that window; the consumer found its connection down %d time(s)",
		dead.Addr, gone.Sub(killed).Round(time.Millisecond), during, countLog(w.c.Proc, "[dubboroute] provider "+dead.Addr+": connection down"))
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
// again. No call of the Go consumer fails. Interface level (ZooKeeper
// provider nodes), application level (providers registering both levels,
// a consumer discovering instances only), Java Dubbo 3.3.6 providers (their
// own shutdown hook, dubbo.service.shutdown.wait), and Nacos as the
// registry. In the interface and java-providers subtests a Java 3.3.6
// consumer (retries 0) calls the same fleet beside the Go consumer; its
// count is printed, not asserted (one JVM less per subtest elsewhere keeps
// make test in its budget; the application and Nacos fleets were run with
// it by hand, docs/availability.md).
func TestRollingRestartNoFailedCalls(t *testing.T) {
	t.Run("interface", func(t *testing.T) {
		rollingRestart(t, "", harness.ConsumerOptions{LoadBalance: "random"}, true)
	})
	t.Run("application", func(t *testing.T) {
		rollingRestart(t, "all", harness.ConsumerOptions{LoadBalance: "random", RegistryType: "service",
			Env: []string{"DUBBO_APPLICATION_SERVICE_DISCOVERY_MIGRATION=FORCE_APPLICATION"}}, false)
	})
	t.Run("java-providers", func(t *testing.T) {
		rollingRestartJava(t)
	})
	t.Run("nacos", func(t *testing.T) {
		rollingRestartNacos(t)
	})
}

// restartPlan is what restartUnderLoad needs to know of a fleet.
type restartPlan struct {
	// wait is the providers' shutdown wait.
	wait time.Duration
	// nodes, if set, names a provider's ZooKeeper registrations, which must
	// be gone while it still runs; without it the consumer must have
	// dropped the provider while it still runs.
	nodes func(*harness.Provider) []string
	// start starts a provider again on port.
	start func(port int) *harness.Provider
	// graceful says why a stopped provider's shutdown was not graceful
	// (nil if it was).
	graceful func(*harness.Provider) error
	// java is the Java consumer calling beside the Go one.
	java *javaSideConsumer
	// exitsInGrace: a provider may exit before the Go consumer's delete
	// grace (3 s) has passed since it unregistered, so the consumer may
	// still list it (not picking it) when it has exited; it must drop it
	// within the grace.
	exitsInGrace bool
	// servesWait: a provider keeps serving for at least wait after SIGTERM
	// (the sample's -shutdown-wait). Java's shutdown hook counts its wait
	// from its own start, and exits up to ~0.5 s sooner.
	servesWait bool
}

// goPlan is the restart plan of a fleet of the sample's Go providers
// started with po.
func goPlan(t *testing.T, w *world, po harness.ProviderOptions, java *javaSideConsumer, nodes func(*harness.Provider) []string) restartPlan {
	return restartPlan{
		wait:  po.ShutdownWait,
		nodes: nodes,
		start: func(port int) *harness.Provider {
			o := po
			o.Registry, o.Port = w.reg, port
			return harness.StartProvider(t, w.bins, o)
		},
		graceful: func(p *harness.Provider) error {
			if !p.LogContains("STOPPED after") {
				return fmt.Errorf("no STOPPED line (exit %s); log:\n%s", p.ExitStatus(), p.LogTail(20))
			}
			return nil
		},
		java:       java,
		servesWait: true,
	}
}

// rollingRestart restarts three Go providers on ZooKeeper registering at
// registryType's level, with a Java consumer beside if withJava.
func rollingRestart(t *testing.T, registryType string, copts harness.ConsumerOptions, withJava bool) {
	po := harness.ProviderOptions{ShutdownWait: restartWait, RegistryType: registryType}
	w := newWorld(t, []harness.ProviderOptions{po, po, po}, copts)
	var java *javaSideConsumer
	if withJava {
		java = startJavaConsumer(t, w.zk.Addr())
	}
	restartUnderLoad(t, w, goPlan(t, w, po, java, func(p *harness.Provider) []string { return registrationNodes(t, w, p, registryType) }))
}

// rollingRestartJava is the rolling restart of three Java Dubbo 3.3.6
// providers (interface level, on ZooKeeper), each stopped by its own
// shutdown hook: it unregisters, waits dubbo.service.shutdown.wait (2 s
// here, less than the Go consumer's delete grace), then closes its server
// whatever its consumers do. A Java provider announces nothing a dubbo-go
// consumer reads (its READONLY event is not handled by dubbo-go), so the
// Go consumer must stop picking it from its unregistration on.
func rollingRestartJava(t *testing.T) {
	w := &world{zk: zk.Start(t), bins: harness.SampleBinaries(t)}
	w.reg = "zookeeper://" + w.zk.Addr()
	w.rules = harness.DialRules(t, w.zk.Addr())
	start := func(port int) *harness.Provider {
		if port == 0 {
			var err error
			if port, err = harness.FreePort(); err != nil {
				t.Fatal(err)
			}
		}
		return startJavaProvider(t, w.zk.Addr(), port, restartWait)
	}
	for i := 0; i < 3; i++ {
		w.ps = append(w.ps, start(0))
	}
	w.c = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{App: consumerApp, Registry: w.reg, LoadBalance: "random"})
	if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, w.addrs()...)
	}); err != nil {
		t.Fatalf("consumer never saw every provider: %v", err)
	}
	restartUnderLoad(t, w, restartPlan{
		wait:  restartWait,
		nodes: func(p *harness.Provider) []string { return []string{providerNode(t, w.rules, p.Addr)} },
		start: start,
		graceful: func(p *harness.Provider) error {
			// The JVM exits 143 after its shutdown hooks ran on SIGTERM;
			// "signal: killed" means the stop's grace ran out.
			if st := p.ExitStatus(); strings.Contains(st, "killed") {
				return fmt.Errorf("killed, not stopped: %s; log:\n%s", st, p.LogTail(20))
			}
			return nil
		},
		java:         startJavaConsumer(t, w.zk.Addr()),
		exitsInGrace: true,
	})
}

// nacosRestartWait outlasts the consumer's delete grace (3 s), so that the
// consumer drops the stopping provider, as the test checks, before it exits.
const nacosRestartWait = 4 * time.Second

// rollingRestartNacos is the rolling restart with Nacos (rnacos) as the
// registry and config center: the consumer drops each provider before its
// process exits.
func rollingRestartNacos(t *testing.T) {
	srv := inacos.Start(t)
	w := &world{bins: harness.SampleBinaries(t)}
	w.reg = "nacos://" + srv.Addr()
	po := harness.ProviderOptions{ShutdownWait: nacosRestartWait, Registry: w.reg}
	for i := 0; i < 3; i++ {
		w.ps = append(w.ps, harness.StartProvider(t, w.bins, po))
	}
	w.c = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{App: consumerApp, Registry: w.reg, LoadBalance: "random"})
	if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, w.addrs()...)
	}); err != nil {
		t.Fatalf("consumer never saw every provider: %v", err)
	}
	restartUnderLoad(t, w, goPlan(t, w, po, nil, nil))
}

// restartUnderLoad stops each provider of w in turn (SIGTERM) and starts it
// again on its port, under load, and checks that no call of the Go
// consumer failed.
func restartUnderLoad(t *testing.T, w *world, plan restartPlan) {
	wait := plan.wait
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
		var registered []string
		if plan.nodes != nil {
			registered = plan.nodes(p)
		}
		from, failed := l.calls(), l.stats().Failed
		stopped := time.Now()
		stopErr := make(chan error, 1)
		go func() { stopErr <- p.Stop(wait + 20*time.Second) }()
		// Every registration goes while the provider still runs (or, on a
		// registry the test does not read, the consumer drops it).
		if err := harness.Eventually(wait+10*time.Second, func() error {
			if plan.nodes == nil {
				ex, err := w.c.Explain(harness.QueryAll)
				if err != nil || !harness.Same(ex.Providers, addrsOf(others)...) {
					return fmt.Errorf("the consumer lists %v (err %v)", ex.Providers, err)
				}
				return nil
			}
			for _, n := range registered {
				if ok, _, err := w.rules.Conn.Exists(n); err != nil || ok {
					return fmt.Errorf("%s still registered (err %v)", n, err)
				}
			}
			return nil
		}); err != nil {
			t.Errorf("%s did not leave: %v", p.Addr, err)
		}
		left := time.Since(stopped)
		if p.Exited() {
			t.Errorf("%s exited before its registrations were gone (%v after SIGTERM)", p.Addr, left)
		}
		if err := <-stopErr; err != nil {
			t.Fatal(err)
		}
		took := time.Since(stopped)
		if err := plan.graceful(p); err != nil {
			t.Errorf("%s did not finish its graceful shutdown: %v", p.Addr, err)
		}
		if plan.servesWait && took < wait {
			t.Errorf("%s exited %v after SIGTERM, before its shutdown wait %v", p.Addr, took, wait)
		}
		if plan.exitsInGrace {
			if _, err := w.c.WaitExplain(harness.QueryAll, extension.DefaultDeleteGrace+2*time.Second, func(ex httpapi.Explain) bool {
				return harness.Same(ex.Providers, addrsOf(others)...)
			}); err != nil {
				t.Errorf("the consumer did not drop %s: %v", p.Addr, err)
			}
		} else if ex, err := w.c.Explain(harness.QueryAll); err != nil || !harness.Same(ex.Providers, addrsOf(others)...) {
			t.Errorf("after %s stopped the consumer lists %v (err %v), want %v", p.Addr, ex.Providers, err, addrsOf(others))
		}
		phase(fmt.Sprintf("stop %d (left %v, exit %v)", p.Port, left.Round(time.Millisecond), took.Round(time.Millisecond)), from, failed)

		from, failed = l.calls(), l.stats().Failed
		np := plan.start(p.Port)
		w.ps[i] = np
		if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
			return harness.Same(ex.Providers, w.addrs()...)
		}); err != nil {
			t.Fatalf("restarted %s never came back: %v", np.Addr, err)
		}
		waitCalls(t, l, l.calls()+availRate/2)
		phase(fmt.Sprintf("restart %d", np.Port), from, failed)
	}
	batches := l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	checkCalls(t, "a call during the rolling restart", batches, func(_ httpapi.Load, c httpapi.LoadCall) error {
		if c.Failed {
			return fmt.Errorf("failed: %s", c.Error)
		}
		return nil
	})
	if plan.java != nil {
		jcalls, jfailed, jkinds := plan.java.counts(t)
		t.Logf("Go consumer (random, retries 0): %d of %d calls failed; Java 3.3.6 consumer of the same fleet (retries 0), same period: %d of %d failed %v",
			st.Failed, st.Calls, jfailed, jcalls, jkinds)
	}
	// With the providers leaving the registry first, the consumer should
	// not have met a closed connection at all (a call it could not send
	// would have gone to another provider, and is counted here).
	t.Logf("connections the consumer found down: %d", countLog(w.c.Proc, "[dubboroute] provider", "connection down"))
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
