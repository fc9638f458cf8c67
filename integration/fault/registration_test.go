package fault

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// registrationRate is the load of TestProviderRegistrationKept.
const registrationRate = 200

// registrationBack bounds how long a guarded registration node may stay
// gone: dubboroute's hold-off (1 s) plus the watch round trips.
const registrationBack = 5 * time.Second

// TestProviderRegistrationKept deletes a live provider's registration nodes
// by hand, as the expiry of the ZooKeeper session that created them does
// (TestEnsembleFaults: dubbo-go's client has already moved to a new
// session and does not write them again), under 200 calls/s with no
// retries. dubboroute's guard in the provider (extension/provider, zkregister.go)
// re-creates them: the interface-level node with the same URL, and the
// application-level instance node (the provider registers both) with the
// same data. A provider-side configurator then re-registers the other
// provider: the guard follows its new node (deleted by hand, it comes
// back; the old one stays gone). The consumer keeps both providers and no
// call fails.
func TestProviderRegistrationKept(t *testing.T) {
	w := &world{zk: zk.Start(t)}
	w.reg = "zookeeper://" + w.zk.Addr()
	w.rules = harness.DialRules(t, w.zk.Addr())
	w.bins = harness.SampleBinaries(t)
	p1 := harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg, RegistryType: "all"})
	p2 := harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg, ConfigCenter: w.reg})
	w.ps = []*harness.Provider{p1, p2}
	w.c = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{App: consumerApp, Registry: w.reg})
	if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, p1.Addr, p2.Addr)
	}); err != nil {
		t.Fatalf("consumer never saw both providers: %v", err)
	}
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: registrationRate})
	defer l.stop(t)
	waitCalls(t, l, registrationRate)

	node := providerNode(t, w.rules, p1.Addr)
	instance := "/services/" + api.ProviderApp + "/" + p1.Addr
	data, stat, err := w.rules.Conn.Get(instance)
	if err != nil {
		t.Fatalf("application-level instance node %s: %v", instance, err)
	}
	dubboGo := stat.EphemeralOwner
	for _, p := range []string{node, instance} {
		if err := w.rules.Conn.Delete(p, -1); err != nil {
			t.Fatalf("delete %s: %v", p, err)
		}
	}
	deleted := time.Now()
	for _, p := range []string{node, instance} {
		got, stat := awaitNode(t, w.rules.Conn, p, registrationBack)
		t.Logf("%s back %v after it was deleted (owner 0x%x; dubbo-go's session 0x%x)", p, time.Since(deleted).Round(time.Millisecond), stat.EphemeralOwner, dubboGo)
		if p == instance && string(got) != string(data) {
			t.Errorf("instance node re-created with data %.200q; want the data it had, %.200q", got, data)
		}
		if stat.EphemeralOwner == 0 || stat.EphemeralOwner == dubboGo {
			t.Errorf("%s owned by 0x%x; want an ephemeral node of dubboroute's own session (not dubbo-go's 0x%x)", p, stat.EphemeralOwner, dubboGo)
		}
	}
	if n := len(guardLines(p1)); n != 2 {
		t.Errorf("%s logged %d re-created registrations; want 2 (the interface-level node and the instance)", p1.Addr, n)
	}
	if got := providerNode(t, w.rules, p1.Addr); got != node {
		t.Errorf("re-created provider node %q; want the URL dubbo-go registered, %q", got, node)
	}

	// A provider-side configurator re-registers p2 with weight 200
	// (extension/provider, provider.go): the guard moves to the new node, and brings
	// that one back when it is deleted; the old one stays gone.
	old := providerNode(t, w.rules, p2.Addr)
	w.put(t, api.ProviderApp+".configurators", fmt.Sprintf("configs:\n- addresses:\n  - %s\n  enabled: true\n  parameters:\n    weight: 200\n  side: provider\nenabled: true\nkey: %s\nscope: application\n", p2.Addr, api.ProviderApp))
	var moved string
	if err := harness.Eventually(settle, func() error {
		var err error
		if moved, err = onlyNode(w.rules, p2.Addr); err != nil {
			return err
		}
		if !strings.Contains(moved, "weight%3D200") {
			return fmt.Errorf("%s still registered as %s", p2.Addr, moved)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the consumer sees the re-registration
	if err := w.rules.Conn.Delete(moved, -1); err != nil {
		t.Fatalf("delete %s: %v", moved, err)
	}
	movedAt := time.Now()
	awaitNode(t, w.rules.Conn, moved, registrationBack)
	t.Logf("%s's configured registration back %v after it was deleted", p2.Addr, time.Since(movedAt).Round(time.Millisecond))
	if ok, _, err := w.rules.Conn.Exists(old); err != nil || ok {
		t.Errorf("%s's registration before the configurator: exists=%v (%v); want it gone", p2.Addr, ok, err)
	}
	if n := len(guardLines(p2)); n != 1 {
		t.Errorf("%s logged %d re-created registrations; want 1", p2.Addr, n)
	}

	// Past the consumer's delete grace (3 s): a provider dropped by a
	// deletion would have failed calls by now.
	time.Sleep(time.Until(movedAt.Add(4 * time.Second)))
	waitCalls(t, l, l.calls()+registrationRate)

	batches := l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	checkCalls(t, "queryAll", batches, servedBy(p1.Port, p2.Port))
	var after int
	checkCalls(t, "queryAll after the deletion", batches, func(b httpapi.Load, c httpapi.LoadCall) error {
		if time.Unix(0, b.Started).Add(time.Duration(c.At)*time.Microsecond).After(deleted) && c.Port == p1.Port {
			after++
		}
		return nil
	})
	if after == 0 {
		t.Errorf("no call reached %s after its registration was deleted", p1.Addr)
	}
}

// guardLines are the lines of a provider's log where dubboroute's guard
// re-created one of its registration nodes.
func guardLines(p *harness.Provider) []string {
	var out []string
	for _, line := range strings.Split(p.Log(), "\n") {
		if strings.Contains(line, "re-created it in dubboroute's ZooKeeper session") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// providerNode is the registration node (full path) of the provider at
// addr; there must be exactly one.
func providerNode(t *testing.T, r *harness.Rules, addr string) string {
	t.Helper()
	node, err := onlyNode(r, addr)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

// onlyNode is the registration node of the provider at addr, or an error
// if it has none or several.
func onlyNode(r *harness.Rules, addr string) (string, error) {
	ps, err := r.Providers(api.Interface)
	if err != nil {
		return "", err
	}
	var found []string
	for _, p := range ps {
		if p.Addr() == addr {
			found = append(found, p.Node)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d registrations of %s; want 1", len(found), addr)
	}
	return "/dubbo/" + strings.ReplaceAll(api.Interface, "/", "%2F") + "/providers/" + found[0], nil
}

// awaitNode waits until path exists, at most within.
func awaitNode(t *testing.T, conn *gozk.Conn, path string, within time.Duration) ([]byte, *gozk.Stat) {
	t.Helper()
	var last error
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		data, stat, err := conn.Get(path)
		if err == nil {
			return data, stat
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s not back within %v: %v", path, within, fmt.Errorf("last read: %w", last))
	return nil, nil
}
