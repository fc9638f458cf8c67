package fault

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// ensembleRate is the steady load of TestEnsembleFaults (the issue asks for
// at least 250 calls/s).
const ensembleRate = 250

// afterElection is the bound for a rule written once a new leader
// serves to reach routing.
const afterElection = 2 * time.Second

// quorumLoss is how long two of the three members stay down.
const quorumLoss = 8 * time.Second

// consumerSession is the consumer's ZooKeeper session timeout (dubbo-go's
// default registry and config-center timeout, 5 s) plus slack for the
// server's expiry check.
const consumerSession = 5*time.Second + 3*time.Second

// TestEnsembleFaults runs the consumer against a 3-member ZooKeeper ensemble
// on loopback, as production runs ZooKeeper, under a steady 250 calls/s
// with no retries (a routing hiccup is a failed call). The consumer reaches
// each member through a proxy of its own, so the test can move and expire
// its sessions; providers and the rule writer connect directly. In order:
//
//   - the leader is killed (SIGKILL): a new one is elected, a rule written
//     after that routes within 2 s, the old leader rejoins;
//   - the consumer's sessions are moved: the members it is connected to are
//     cut off from it, its client moves to another member, and a rule
//     written then routes within 2 s;
//   - the consumer is cut off from every member until its session expires,
//     and a rule is written meanwhile: once it reconnects (a new session) it
//     routes with that rule; the change is not lost;
//   - two of three members stop for 8 s: no quorum, reads stall, routing
//     keeps its last snapshot; when they come back a rule routes again;
//   - the load runs on until the sessions the providers had before the
//     quorum loss have expired and the consumer's delete grace has passed:
//     a provider's registration node that went with its old session is
//     re-created by dubboroute's guard, and both providers stay registered
//     and routed.
//
// Across all of it no call fails and every call is served as a snapshot
// routes it.
func TestEnsembleFaults(t *testing.T) {
	ens := zk.StartEnsemble(t, 3)
	var proxies []*zk.Proxy
	var via []string
	for _, s := range ens.Servers {
		p := zk.StartProxy(t, s.Addr())
		proxies = append(proxies, p)
		via = append(via, p.Addr())
	}
	w := &world{reg: "zookeeper://" + ens.Addrs()}
	w.rules = harness.DialRules(t, ens.Addrs())
	w.bins = harness.SampleBinaries(t)
	for i := 0; i < 2; i++ {
		w.ps = append(w.ps, harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg}))
	}
	w.c = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{App: consumerApp, Registry: "zookeeper://" + strings.Join(via, ",")})
	p1, p2 := w.ps[0], w.ps[1]
	if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, p1.Addr, p2.Addr)
	}); err != nil {
		t.Fatalf("consumer never saw both providers: %v", err)
	}
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: ensembleRate})
	defer l.stop(t)
	waitCalls(t, l, ensembleRate)

	rule := func(p *harness.Provider) string {
		return fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p.Port)
	}
	// apply writes the rule routing queryAll to p (retrying while the
	// writer's own session recovers) and waits until the consumer routes
	// with it; it returns how long that took from the write.
	apply := func(what string, p *harness.Provider, bound time.Duration) time.Duration {
		t.Helper()
		if err := harness.Eventually(settle, func() error { return w.rules.Put(svcKey, rule(p)) }); err != nil {
			t.Fatalf("%s: write the rule: %v", what, err)
		}
		written := time.Now()
		_, err := w.c.WaitExplain(harness.QueryAll, bound, func(ex httpapi.Explain) bool { return harness.Same(ex.Routed, p.Addr) })
		took := time.Since(written)
		if err != nil {
			t.Errorf("%s: rule not routing within %v of the write: %v", what, bound, err)
		}
		t.Logf("%s: rule routing %v after the write", what, took.Round(time.Millisecond))
		return took
	}
	apply("before any fault", p1, afterElection)

	// 1. The leader dies.
	leader := ens.Leader()
	if leader < 0 {
		t.Fatal("the ensemble has no leader")
	}
	killed := time.Now()
	if err := ens.Servers[leader].Kill(); err != nil {
		t.Fatalf("kill the leader: %v", err)
	}
	next, err := ens.WaitLeader(30*time.Second, leader)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("leader %s killed; %s leads %v later", ens.Servers[leader], ens.Servers[next], time.Since(killed).Round(time.Millisecond))
	apply("after the leader was killed", p2, afterElection)
	if err := ens.Start(leader); err != nil {
		t.Fatalf("restart the old leader: %v", err)
	}
	t.Logf("old leader rejoined as %s", ens.Servers[leader].Mode())

	// 2. The consumer's sessions move to another member.
	var cut []int
	for i, p := range proxies {
		if p.Active() > 0 {
			cut = append(cut, i)
		}
	}
	if len(cut) == 0 || len(cut) == len(proxies) {
		t.Fatalf("the consumer is connected through %d of %d proxies; want some but not all", len(cut), len(proxies))
	}
	for _, i := range cut {
		proxies[i].Cut()
	}
	if err := harness.Eventually(settle, func() error {
		for i, p := range proxies {
			if !contains(cut, i) && p.Active() > 0 {
				return nil
			}
		}
		return fmt.Errorf("the consumer has not reconnected through another member")
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("consumer cut off from members %v; its sessions moved", cut)
	apply("after the consumer's sessions moved", p1, afterElection)
	for _, i := range cut {
		proxies[i].Restore()
	}

	// 3. The consumer's sessions expire while a rule changes.
	for _, p := range proxies {
		p.Cut()
	}
	time.Sleep(consumerSession) // the scenario itself: until the session has expired on the ensemble
	if err := w.rules.Put(svcKey, rule(p2)); err != nil {
		t.Fatalf("write the rule while the consumer is cut off: %v", err)
	}
	time.Sleep(time.Second)
	for _, p := range proxies {
		p.Restore()
	}
	back := time.Now()
	if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool { return harness.Same(ex.Routed, p2.Addr) }); err != nil {
		t.Errorf("the rule written while the consumer's session expired was lost: %v", err)
	} else {
		t.Logf("after session expiry: the rule written meanwhile routes %v after the consumer could reconnect", time.Since(back).Round(time.Millisecond))
	}
	// 4. Two of three members stop: no quorum.
	down := []int{(leader + 1) % 3, (leader + 2) % 3}
	lost := time.Now()
	for _, i := range down {
		if err := ens.Servers[i].Stop(); err != nil {
			t.Fatalf("stop member %d: %v", i+1, err)
		}
	}
	time.Sleep(quorumLoss) // the scenario itself: no quorum this long
	ex, err := w.c.Explain(harness.QueryAll)
	if err != nil {
		t.Fatal(err)
	}
	if !harness.Same(ex.Providers, p1.Addr, p2.Addr) || !harness.Same(ex.Routed, p2.Addr) {
		t.Errorf("after %v without quorum the consumer knows %v and routes queryAll to %v, want both providers and the last rule's %s", quorumLoss, ex.Providers, ex.Routed, p2.Addr)
	}
	for _, i := range down {
		if err := ens.Launch(i); err != nil {
			t.Fatalf("start member %d: %v", i+1, err)
		}
	}
	if err := ens.WaitServing(time.Minute); err != nil {
		t.Fatal(err)
	}
	returned := time.Now()
	t.Logf("quorum lost for %v; back", returned.Sub(lost).Round(time.Millisecond))
	nodes := registrationWatch(t, w.rules, returned)
	apply("after the quorum returned", p1, settle)

	// 5. The sessions the providers' dubbo-go clients had before the quorum
	// loss expire now (they may have moved to new ones meanwhile), and take
	// their registration nodes with them; dubboroute's guard in each
	// provider re-creates its node. The load runs through the window: the
	// old sessions' expiry, the guard's hold-off, and the consumer's delete
	// grace after it.
	time.Sleep(time.Until(returned.Add(registrationWindow)))
	nodes.stop()
	for _, p := range w.ps {
		for _, line := range guardLines(p) {
			t.Logf("provider %s: %s", p.Addr, line)
		}
	}
	if ps, err := w.rules.Providers(api.Interface); err != nil {
		t.Errorf("list the registered providers: %v", err)
	} else {
		var reg []string
		for _, p := range ps {
			reg = append(reg, p.Addr())
		}
		if !harness.Same(reg, p1.Addr, p2.Addr) {
			t.Errorf("registered %v after the quorum returned: %v; want %s and %s", registrationWindow, reg, p1.Addr, p2.Addr)
		}
	}

	batches := l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	if st.Rate() < ensembleRate*0.8 {
		t.Errorf("load ran at %.0f calls/s, want about %d", st.Rate(), ensembleRate)
	}
	checkCalls(t, "queryAll", batches, onSnapshot)
	checkCalls(t, "queryAll", batches, servedBy(p1.Port, p2.Port))
}

// registrationWindow is how long the load runs after the quorum returned:
// the providers' old sessions expire (dubbo-go's default session timeout,
// 5 s, counted from the new leader), dubboroute's guard waits its 1 s
// hold-off, and a provider gone that long would leave the consumer's route
// after the delete grace (3 s); plus 2 s of slack.
const registrationWindow = 5*time.Second + time.Second + 3*time.Second + 2*time.Second

// nodeLog logs each change of the registered providers' nodes (which went,
// which came back and which session owns them) until stop.
type nodeLog struct {
	stopc, done chan struct{}
}

func (n *nodeLog) stop() {
	close(n.stopc)
	<-n.done
}

func registrationWatch(t *testing.T, r *harness.Rules, since time.Time) *nodeLog {
	n := &nodeLog{stopc: make(chan struct{}), done: make(chan struct{})}
	dir := "/dubbo/" + api.Interface + "/providers"
	go func() {
		defer close(n.done)
		last := ""
		for {
			var state []string
			ps, err := r.Providers(api.Interface)
			if err == nil {
				for _, p := range ps {
					owner := "?"
					if ok, st, err := r.Conn.Exists(dir + "/" + p.Node); err == nil && !ok {
						continue // gone since the listing
					} else if err == nil {
						owner = fmt.Sprintf("0x%x", st.EphemeralOwner)
					}
					state = append(state, p.Addr()+" (session "+owner+")")
				}
			}
			if s := strings.Join(state, ", "); err == nil && s != last {
				last = s
				t.Logf("%v after the quorum returned, registered: [%s]", time.Since(since).Round(100*time.Millisecond), s)
			}
			select {
			case <-n.stopc:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return n
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
