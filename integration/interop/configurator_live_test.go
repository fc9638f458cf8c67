package interop

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// TestConfiguratorLiveParity (issue 13): one mixed fleet on a real
// ZooKeeper (two Java providers, two Go providers), a Java consumer (Java
// Dubbo 3.3.6's own directory and balancers) and a Go consumer with
// dubboroute side by side, and Dubbo Admin's dynamic configuration written
// to <consumer-app>.configurators while they call:
//   - disable one provider: it serves 0 of the calls of either consumer;
//   - weight 0, 50, 200 on one provider: its share of 4,000 calls is the
//     same for both consumers within 3 percentage points (and close to
//     w/(w+300): every provider gets warmup=1 and weight 100 from the same
//     rule, which both balancers read from the configured URLs);
//   - loadbalance: roundrobin: both consumers spread calls exactly evenly;
//   - timeout 300 ms on a 700 ms call: both time out, and with retries 2 both
//     try three providers (Java: "Tried 3 times", dubbo-go's failover log:
//     retries=2);
//   - delete: every provider serves again and the slow call succeeds;
//   - provider side: Admin's side: provider weight and disable items make a
//     Go provider (extension) and a Java provider re-register; neither
//     consumer calls them; the delete restores the registrations;
//   - the registry's override:// URLs (/dubbo/<interface>/configurators):
//     disabled=true on one Go provider and weight=0 on a Java provider: both
//     consumers call only the other two; deleting the nodes restores them.
//
// One Java consumer JVM (BookConsumerSession) serves every step, and each
// batch waits until the Java directory's invokers and the Go consumer's
// explain show the rule just written, instead of fixed sleeps. Runtime:
// about 130 s on 2 shared cores (217 s with a JVM per batch, before).
func TestConfiguratorLiveParity(t *testing.T) {
	f := newFleet(t)
	srv, rules := f.srv, f.rules
	j1 := javaProvider(t, srv.Addr(), "demo-provider", "")
	j2 := javaProviderWithConfigCenter(t, srv.Addr())
	g1 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", ConfigCenter: f.reg})
	g2 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider"})
	checkRegistered(t, rules, j1, j2, g1.Port, g2.Port)
	all := []int{j1, j2, g1.Port, g2.Port}

	const app = "demo-consumer1"
	key := app + ".configurators"
	c := f.goConsumer(t, harness.ConsumerOptions{App: app})
	if _, err := c.WaitExplain(harness.QueryAll, 60*time.Second, func(ex httpapi.Explain) bool { return len(ex.Providers) == 4 }); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	put := func(items string) {
		t.Helper()
		rule := "configVersion: v3.0\nscope: application\nkey: " + app + "\nenabled: true\nconfigs:\n" + items
		if err := rules.Put(key, rule); err != nil {
			t.Fatal(err)
		}
		accepted++
		if _, err := c.WaitLog(30*time.Second, fmt.Sprintf("rule key=%s version=configurators#%d accepted", key, accepted)); err != nil {
			t.Fatal(err)
		}
		// The line is logged before the chain rebuilds; let it publish.
		time.Sleep(300 * time.Millisecond)
	}
	addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
	// Every provider gets warmup=1 and an explicit weight 100: Java's
	// RandomLoadBalance looks only at the first invoker to decide whether
	// weights matter at all (a Java provider registers no weight), so without
	// it a Java consumer ignores the weights whenever the registry lists such
	// a provider first (docs/divergences.md).
	noWarmup := "- side: consumer\n  parameters: {warmup: \"1\", weight: \"100\"}\n"
	// One Java consumer for the whole test (one JVM); before each batch it
	// is asked for its directory's invokers until the rule just written
	// shows there (config-center and registry events reach it
	// asynchronously).
	js := startJavaSession(t, srv.Addr(), app)
	port := strconv.Itoa
	js.await("the four providers", func(invs []javaInvoker) bool { return len(invs) == 4 })
	javaRun := func(calls int) []javaCall { return js.calls(calls, "queryAll", "") }
	javaSlow := func() []javaCall { return js.calls(1, "queryByName", "sleep-ms=700") }
	allHave := func(k, v string) func([]javaInvoker) bool {
		return func(invs []javaInvoker) bool {
			for _, i := range invs {
				if i.Params[k] != v {
					return false
				}
			}
			return len(invs) > 0
		}
	}
	javaCounts := func(calls []javaCall) (map[string]int, int) {
		got, failed := map[string]int{}, 0
		for _, jc := range calls {
			if jc.OK {
				got[jc.ServedBy]++
			} else {
				failed++
			}
		}
		return got, failed
	}
	goCounts := func(n int, call harness.Call) (map[string]int, int) {
		got, failed := map[string]int{}, 0
		res, _ := c.Ports(call, n)
		for p, k := range res {
			if p == 0 {
				failed += k
			} else {
				got[strconv.Itoa(p)] += k
			}
		}
		return got, failed
	}

	// 1. Disable j1 (Dubbo Admin's disable: a typed item with its own enabled).
	// warmup=1 everywhere: Java's interface-level consumers never warm up a
	// ZooKeeper provider (the registry strips its timestamp), dubboroute's
	// gray balancer does (see docs/divergences.md), and the
	// providers here are seconds old.
	put(noWarmup + fmt.Sprintf("- type: disabled\n  enabled: true\n  side: consumer\n  providerAddresses: [%q]\n  parameters: {disabled: \"true\"}\n", addr(j1)))
	js.await("j1 disabled", func(invs []javaInvoker) bool {
		_, ok := invokerPorts(invs)[port(j1)]
		return len(invs) == 3 && !ok && allHave("warmup", "1")(invs)
	})
	goGot, goFail := goCounts(200, harness.QueryAll)
	jGot, jFail := javaCounts(javaRun(200))
	t.Logf("disable %d: Go %v (%d failed), Java %v (%d failed)", j1, goGot, goFail, jGot, jFail)
	for _, got := range []map[string]int{goGot, jGot} {
		if got[strconv.Itoa(j1)] != 0 || len(got) != 3 {
			t.Errorf("disabled provider %d: served %v, want the three others only", j1, got)
		}
	}
	if goFail+jFail != 0 {
		t.Errorf("disable: %d Go and %d Java calls failed", goFail, jFail)
	}

	// 2. Weight 0 / 50 / 200 on j1 (the others keep 100).
	// 4,000 calls per consumer and step: the two shares then differ by more
	// than 3 points with probability well under 1% (σ of the difference 1.1
	// points at a share of 0.4); with 2,000 it would be about 5%.
	const calls = 4000
	for _, w := range []int{0, 50, 200} {
		put(noWarmup + fmt.Sprintf("- type: weight\n  enabled: true\n  side: consumer\n  providerAddresses: [%q]\n  parameters: {weight: \"%d\"}\n", addr(j1), w))
		js.await(fmt.Sprintf("weight %d on j1", w), func(invs []javaInvoker) bool {
			return len(invs) == 4 && invokerPorts(invs)[port(j1)]["weight"] == strconv.Itoa(w)
		})
		goGot, goFail := goCounts(calls, harness.QueryAll)
		want := float64(w) / float64(w+300)
		jGot, jFail := javaCounts(javaRun(calls))
		jShare := float64(jGot[strconv.Itoa(j1)]) / calls
		goShare := float64(goGot[strconv.Itoa(j1)]) / calls
		t.Logf("weight %d on %d: share Go %.3f, Java %.3f, expected %.3f (Go %v, Java %v)", w, j1, goShare, jShare, want, goGot, jGot)
		if math.Abs(goShare-jShare) > 0.03 {
			t.Errorf("weight %d: Go share %.3f and Java share %.3f differ by more than 3 points", w, goShare, jShare)
		}
		if math.Abs(goShare-want) > 0.04 || math.Abs(jShare-want) > 0.04 {
			t.Errorf("weight %d: shares Go %.3f / Java %.3f, expected about %.3f", w, goShare, jShare, want)
		}
		if goFail+jFail != 0 {
			t.Errorf("weight %d: %d Go and %d Java calls failed", w, goFail, jFail)
		}
	}

	// 3. loadbalance: roundrobin: exactly even spread.
	put(noWarmup + "- type: balancing\n  enabled: true\n  side: consumer\n  parameters: {loadbalance: roundrobin}\n")
	js.await("roundrobin", allHave("loadbalance", "roundrobin"))
	goGot, _ = goCounts(80, harness.QueryAll)
	jGot, _ = javaCounts(javaRun(80))
	t.Logf("roundrobin: Go %v, Java %v", goGot, jGot)
	for who, got := range map[string]map[string]int{"Go": goGot, "Java": jGot} {
		for _, p := range all {
			if n := got[strconv.Itoa(p)]; n < 19 || n > 21 {
				t.Errorf("roundrobin: %s consumer: provider %d served %d of 80 calls, want 20 (%v)", who, p, n, got)
			}
		}
	}

	// 4. timeout 300 ms on a 700 ms call; then retries 2.
	slow := harness.Call{Method: "queryByName", Name: "sleep-ms=700"}
	if _, err := c.Do(slow); err != nil {
		t.Fatalf("slow call without a configured timeout: %v", err)
	}
	put("- side: consumer\n  parameters: {timeout: \"300\"}\n")
	js.await("timeout 300", allHave("timeout", "300"))
	if _, err := c.Do(slow); err == nil || !strings.Contains(strings.ToLower(err.Error()), "timeout") {
		t.Errorf("Go consumer, timeout 300 on a 700 ms call: err = %v, want a timeout", err)
	}
	jc := javaSlow()
	if jc[0].OK || !strings.Contains(strings.ToLower(jc[0].Error), "timeout") || !strings.Contains(jc[0].Error, "Tried 1 times") {
		t.Errorf("Java consumer, timeout 300 on a 700 ms call: %+v, want a timeout after one try", jc[0])
	}
	put("- side: consumer\n  parameters: {timeout: \"300\", retries: \"2\"}\n")
	js.await("retries 2", allHave("retries", "2"))
	begin := time.Now()
	_, err := c.Do(slow)
	took := time.Since(begin)
	if err == nil {
		t.Errorf("Go consumer, retries 2: the slow call succeeded")
	}
	if _, werr := c.WaitLog(10*time.Second, "retries=2 providers=3/"); werr != nil {
		t.Errorf("Go consumer, retries 2: no failover log with three tries (took %v): %v", took, werr)
	}
	jc = javaSlow()
	if jc[0].OK || !strings.Contains(jc[0].Error, "Tried 3 times") {
		t.Errorf("Java consumer, retries 2: %+v, want three tries", jc[0])
	}

	// 5. Delete: everything as before.
	if err := rules.Delete(key); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitLog(30*time.Second, "rule key="+key+" deleted"); err != nil {
		t.Fatal(err)
	}
	js.await("the delete", func(invs []javaInvoker) bool {
		for _, i := range invs {
			if i.Params["timeout"] == "300" || i.Params["retries"] == "2" {
				return false
			}
		}
		return len(invs) == 4
	})
	if _, err := c.Do(slow); err != nil {
		t.Errorf("after delete, the slow call: %v", err)
	}
	goGot, goFail = goCounts(200, harness.QueryAll)
	jGot, jFail = javaCounts(javaRun(200))
	t.Logf("after delete: Go %v, Java %v", goGot, jGot)
	if len(goGot) != 4 || len(jGot) != 4 || goFail+jFail != 0 {
		t.Errorf("after delete: Go %v (%d failed), Java %v (%d failed), want all four providers", goGot, goFail, jGot, jFail)
	}

	// 6. Provider side, Dubbo Admin's shapes in <provider-app>.configurators
	// (side: provider, addresses ip:port): Java Admin's weight item (weight
	// 0) and a disable item, for one Go and one Java provider. Each
	// re-registers itself with the configured URL (the Go one through the
	// extension), so both consumers stop calling them (the disable decides
	// that deterministically; weight 0 alone would depend on Java's
	// first-invoker weight check); the delete restores the registrations.
	// The Java provider matches its own (bound) host, not the loopback
	// address the test registers it under: both are named.
	pkey := "demo-provider.configurators"
	targets := fmt.Sprintf("  - %s\n  - %s\n  - %s:%d\n", addr(g1.Port), addr(j2), common.GetLocalIp(), j2)
	prule := "configs:\n- addresses:\n" + targets + "  enabled: true\n  parameters:\n    weight: 0\n  side: provider\n  type: weight\n" +
		"- addresses:\n" + targets + "  enabled: true\n  parameters:\n    disabled: true\n  side: provider\n  type: disabled\n" +
		"enabled: false\nkey: demo-provider\nscope: application\n"
	registered := func(port int) (params []string) {
		regs, err := rules.Providers(BookIface)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range regs {
			if r.URL.Port() == strconv.Itoa(port) {
				params = append(params, "weight="+r.Param("weight")+",disabled="+r.Param("disabled"))
			}
		}
		return params
	}
	before := map[int]string{g1.Port: fmt.Sprint(registered(g1.Port)), j2: fmt.Sprint(registered(j2))}
	if err := rules.Put(pkey, prule); err != nil {
		t.Fatal(err)
	}
	if err := harness.Eventually(30*time.Second, func() error {
		if w := registered(g1.Port); fmt.Sprint(w) != "[weight=0,disabled=true]" {
			return fmt.Errorf("Go provider %d registered %v", g1.Port, w)
		}
		if w := registered(j2); fmt.Sprint(w) != "[weight=0,disabled=true]" {
			return fmt.Errorf("Java provider %d registered %v", j2, w)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitExplain(harness.QueryAll, 30*time.Second, func(ex httpapi.Explain) bool { return len(ex.Providers) == 2 }); err != nil {
		t.Fatalf("Go consumer: the re-registered (disabled) providers stay: %v", err)
	}
	js.await("the re-registered providers disabled", func(invs []javaInvoker) bool { return len(invs) == 2 })
	goGot, goFail = goCounts(200, harness.QueryAll)
	jGot, jFail = javaCounts(javaRun(200))
	t.Logf("provider-side weight 0 and disable on %d (Go) and %d (Java): Go consumer %v, Java consumer %v", g1.Port, j2, goGot, jGot)
	for who, got := range map[string]map[string]int{"Go": goGot, "Java": jGot} {
		if got[strconv.Itoa(g1.Port)] != 0 || got[strconv.Itoa(j2)] != 0 || len(got) != 2 {
			t.Errorf("provider side: %s consumer served %v, want only %d and %d", who, got, j1, g2.Port)
		}
	}
	if goFail+jFail != 0 {
		t.Errorf("provider side: %d Go and %d Java calls failed", goFail, jFail)
	}
	if err := rules.Delete(pkey); err != nil {
		t.Fatal(err)
	}
	if err := harness.Eventually(30*time.Second, func() error {
		for _, p := range []int{g1.Port, j2} {
			if w := fmt.Sprint(registered(p)); w != before[p] {
				return fmt.Errorf("provider %d registered %v after the delete, %v before the rule", p, w, before[p])
			}
		}
		return nil
	}); err != nil {
		t.Error(err)
	}

	// 7. The registry's override:// URLs (Dubbo 2.6 dynamic configuration,
	// nodes under /dubbo/<interface>/configurators, which Java consumers
	// apply before the config-center lists): weight 100 and warmup 1 for
	// every provider, disabled on g2, weight 0 on j2 (side=consumer: the
	// providers themselves, which also read these nodes, leave their
	// registrations alone). Both consumers then call only j1 and g1; the
	// delete restores all four.
	zc, err := dzk.Dial([]string{srv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer zc.Close()
	ctx := context.Background()
	base := "/dubbo/" + dzk.EncodeComponent(BookIface) + "/configurators/"
	var nodes []string
	for _, o := range []string{
		"override://0.0.0.0/" + BookIface + "?category=configurators&dynamic=false&side=consumer&warmup=1&weight=100",
		"override://" + addr(g2.Port) + "/" + BookIface + "?category=configurators&disabled=true&dynamic=false&side=consumer",
		"override://" + addr(j2) + "/" + BookIface + "?category=configurators&dynamic=false&side=consumer&weight=0",
	} {
		node := base + dzk.EncodeComponent(o)
		if err := zc.PutData(ctx, node, nil); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, node)
	}
	if _, err := c.WaitExplain(harness.QueryAll, 30*time.Second, func(ex httpapi.Explain) bool { return len(ex.Providers) == 3 }); err != nil {
		t.Fatalf("Go consumer: registry override disabled=true on %d not applied: %v", g2.Port, err)
	}
	js.await("the registry overrides", func(invs []javaInvoker) bool {
		ps := invokerPorts(invs)
		_, g2in := ps[port(g2.Port)]
		return len(invs) == 3 && !g2in && ps[port(j2)]["weight"] == "0"
	})
	onlyJ1G1 := func(got map[string]int) bool {
		return len(got) == 2 && got[port(j1)] > 0 && got[port(g1.Port)] > 0
	}
	if err := harness.Eventually(30*time.Second, func() error {
		if got, failed := goCounts(200, harness.QueryAll); !onlyJ1G1(got) || failed != 0 {
			return fmt.Errorf("Go consumer served %v (%d failed)", got, failed)
		}
		return nil
	}); err != nil {
		t.Errorf("registry overrides (g2 %d disabled, j2 %d weight 0): %v", g2.Port, j2, err)
	}
	jGot, jFail = javaCounts(javaRun(200))
	t.Logf("registry overrides (g2 %d disabled, j2 %d weight 0): Java consumer %v", g2.Port, j2, jGot)
	if !onlyJ1G1(jGot) || jFail != 0 {
		t.Errorf("registry overrides: Java consumer served %v (%d failed), want only %d and %d", jGot, jFail, j1, g1.Port)
	}
	for _, n := range nodes {
		if err := zc.DeleteData(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.WaitExplain(harness.QueryAll, 30*time.Second, func(ex httpapi.Explain) bool { return len(ex.Providers) == 4 }); err != nil {
		t.Fatalf("Go consumer after the registry overrides' delete: %v", err)
	}
	js.await("the registry overrides' delete", func(invs []javaInvoker) bool {
		return len(invs) == 4 && invokerPorts(invs)[port(j2)]["weight"] != "0"
	})
	goGot, goFail = goCounts(200, harness.QueryAll)
	jGot, jFail = javaCounts(javaRun(200))
	if len(goGot) != 4 || len(jGot) != 4 || goFail+jFail != 0 {
		t.Errorf("after the registry overrides' delete: Go %v (%d failed), Java %v (%d failed), want all four providers", goGot, goFail, jGot, jFail)
	}
}

// javaProviderWithConfigCenter is javaProvider with --config-center: it
// reads dynamic configuration from ZooKeeper, as a Java provider managed by
// Dubbo Admin does.
func javaProviderWithConfigCenter(t *testing.T, zkAddr string) int {
	t.Helper()
	jar, err := Jar()
	if err != nil {
		t.Fatal(err)
	}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string(nil), javaPeerOpts...), "-cp", jar, "io.github.dubboroute.it.BookProvider",
		"--zk", zkAddr, "--port", strconv.Itoa(port), "--app", "demo-provider", "--register-host", "127.0.0.1", "--config-center")
	p := harness.Start(t, harness.ProcOptions{Name: "java-provider:" + strconv.Itoa(port), Path: "java", Args: args})
	if _, err := p.WaitLine(regexp.MustCompile(`(?m)^READY \d+$`), 120*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(10 * time.Second) })
	return port
}
