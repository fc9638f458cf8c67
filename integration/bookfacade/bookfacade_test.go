package bookfacade

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
	"github.com/dubboroute/dubboroute/samples/bookfacade/rules"
)

func TestMain(m *testing.M) { harness.Main(m) }

// Within is the bound for a rule change (or a provider change) to
// reach routing.
const within = 2 * time.Second

// churnWithin bounds provider joins and leaves: a join is a ZooKeeper child
// event plus a TCP connect; a leave is dubbo-go's graceful shutdown
// unregistering first.
const churnWithin = 10 * time.Second

// calls is how many real calls a routing assertion makes.
const calls = 8

// Rule keys (as Dubbo Admin names them).
var (
	svcKey      = api.ServiceRuleKey                    // com.muke.dubbocourse.common.api.BookFacade::.condition-router
	c1Key       = "demo-consumer1.condition-router"     // consumer-app rule of demo-consumer1
	c2Key       = "demo-consumer2.condition-router"     // consumer-app rule of demo-consumer2
	provAppKey  = api.ProviderApp + ".condition-router" // provider-app rule (Java 3.2+)
	tagKey      = api.ProviderApp + ".tag-router"       // tag rule
	grayKey     = api.ProviderApp + ".gray-router"      // gray rule (dubboroute)
	allRuleKeys = []string{svcKey, c1Key, c2Key, provAppKey, tagKey, grayKey}
)

// world is what every subtest shares: one private ZooKeeper, providers p1
// and p2 (untagged, application demo-provider), and two consumer processes.
type world struct {
	zk     *zk.Server
	reg    string
	rules  *harness.Rules
	bins   *harness.Binaries
	p1, p2 *harness.Provider
	c1, c2 *harness.Consumer
}

// TestBookFacade runs the seeds' scenarios against real processes; each
// subtest restores the rule-free state it started from. Subtests:
//
//   - Registration: providers and consumers are registered interface-level
//     under /dubbo/<interface>/{providers,consumers}, as 127.0.0.1:<port>.
//   - NoRule: without rules both providers serve both methods.
//   - PerMethod: seed 000's service rule routes queryAll only to p1 and
//     queryByName only to p2, for both consumers.
//   - PerConsumerApp: seed 000's application rule under each consumer's key
//     routes demo-consumer1 only to p1 and demo-consumer2 only to p2.
//   - PerConsumerAppAtProviderKey: the same rule as the seed writes it
//     (key: demo-provider) under demo-provider.condition-router does the
//     same through the provider-app router.
//   - Tag: static dubbo.tag and a dynamic tag rule with addresses, with and
//     without dubbo.force.tag (seed 001 and spec §6.3).
//   - GrayUsers: seed 002: users 1-10 go to the status=gray provider, user
//     3333 (and 11) never do; without the rule nobody does.
//   - HotReload: update within 2 s without restart, malformed update changes
//     nothing and is logged with key and line, delete reverts within 2 s.
//   - ProviderChurn: a third provider joining is listed, traced and served;
//     leaving, it is dropped from the list and the trace and never served.
func TestBookFacade(t *testing.T) {
	begin := time.Now()
	w := &world{zk: zk.Start(t)}
	w.reg = "zookeeper://" + w.zk.Addr()
	w.rules = harness.DialRules(t, w.zk.Addr())
	w.bins = harness.SampleBinaries(t)
	t.Logf("sample binaries built in %v (race=%v)", w.bins.BuildTime.Round(time.Millisecond), w.bins.Race)
	for _, k := range allRuleKeys {
		if err := w.rules.Delete(k); err != nil {
			t.Fatal(err)
		}
	}
	w.p1 = harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg})
	w.p2 = harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg})
	w.c1 = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{App: "demo-consumer1", Registry: w.reg})
	w.c2 = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{App: "demo-consumer2", Registry: w.reg})
	for _, c := range w.consumers() {
		if _, err := c.WaitExplain(harness.QueryAll, churnWithin, func(ex httpapi.Explain) bool {
			return harness.Same(ex.Providers, w.p1.Addr, w.p2.Addr)
		}); err != nil {
			t.Fatalf("consumers never saw both providers: %v", err)
		}
	}
	t.Logf("world up in %v: ZooKeeper %s, providers %s %s, consumers %s %s",
		time.Since(begin).Round(time.Millisecond), w.zk.Addr(), w.p1.Addr, w.p2.Addr, w.c1.BaseURL, w.c2.BaseURL)

	t.Run("Registration", w.testRegistration)
	t.Run("NoRule", w.testNoRule)
	t.Run("PerMethod", w.testPerMethod)
	t.Run("PerConsumerApp", w.testPerConsumerApp)
	t.Run("PerConsumerAppAtProviderKey", w.testPerConsumerAppAtProviderKey)
	t.Run("Tag", w.testTag)
	t.Run("GrayUsers", w.testGrayUsers)
	t.Run("HotReload", w.testHotReload)
	t.Run("ProviderChurn", w.testProviderChurn)
	for _, c := range w.consumers() {
		if c.Exited() {
			t.Errorf("%s exited during the run (%s)", c.Name(), c.ExitStatus())
		}
	}
}

func (w *world) consumers() []*harness.Consumer { return []*harness.Consumer{w.c1, w.c2} }

// ruleFile is a sample rule file with the seed ports 20880/20881 replaced by
// p1's and p2's.
func (w *world) ruleFile(t *testing.T, key string) string {
	t.Helper()
	s, err := rules.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	return w.ports(s)
}

func (w *world) ports(s string) string {
	return strings.NewReplacer("20880", strconv.Itoa(w.p1.Port), "20881", strconv.Itoa(w.p2.Port)).Replace(s)
}

// put writes a rule as Dubbo Admin does and, when the subtest ends, deletes
// it and waits until no consumer routes with it any more.
func (w *world) put(t *testing.T, key, content string) time.Time {
	t.Helper()
	at := time.Now()
	if err := w.rules.Put(key, content); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.remove(t, key) })
	return at
}

// remove deletes a rule and waits until both consumers dropped it.
func (w *world) remove(t *testing.T, key string) {
	t.Helper()
	if err := w.rules.Delete(key); err != nil {
		t.Error(err)
		return
	}
	for _, c := range w.consumers() {
		if key == grayKey {
			if _, err := c.WaitExplain(harness.TestUser("1"), churnWithin, func(ex httpapi.Explain) bool {
				return grayOf(ex).Rule == -1
			}); err != nil {
				t.Errorf("gray rule still in force after delete: %v", err)
			}
			continue
		}
		if _, err := c.WaitExplain(harness.QueryAll, churnWithin, func(ex httpapi.Explain) bool {
			_, in := ex.Rules[key]
			return !in
		}); err != nil {
			t.Errorf("rule %s still in force after delete: %v", key, err)
		}
	}
}

// routes waits (up to d) until c routes call to exactly want according to
// its explain trace, then checks that real calls are served only by want.
// It returns how long the routing took to show.
func routes(t *testing.T, c *harness.Consumer, call harness.Call, d time.Duration, since time.Time, want ...*harness.Provider) (httpapi.Explain, time.Duration) {
	t.Helper()
	addrs := make([]string, len(want))
	allowed := map[int]bool{}
	for i, p := range want {
		addrs[i] = p.Addr
		allowed[p.Port] = true
	}
	ex, err := c.WaitExplain(call, d, func(ex httpapi.Explain) bool { return harness.Same(ex.Routed, addrs...) })
	took := time.Since(since)
	if err != nil {
		t.Fatalf("%s on %s: want routed to %v: %v", call, c.App, addrs, err)
	}
	got, err := c.Ports(call, calls)
	if err != nil {
		t.Fatalf("%s on %s: %v (ports %v)", call, c.App, err, got)
	}
	for port, n := range got {
		if !allowed[port] {
			t.Errorf("%s on %s: %d of %d calls served by port %d, want only %v (trace: %s)", call, c.App, n, calls, port, addrs, ex.TraceText)
		}
	}
	return ex, took
}

// noProvider asserts that routing leaves nobody for call: the explain trace
// is empty and a real call fails with an RPC error.
func noProvider(t *testing.T, c *harness.Consumer, call harness.Call) httpapi.Explain {
	t.Helper()
	ex, err := c.WaitExplain(call, within, func(ex httpapi.Explain) bool { return len(ex.Routed) == 0 })
	if err != nil {
		t.Fatalf("%s on %s: want no provider: %v", call, c.App, err)
	}
	port, err := c.Do(call)
	var rpc *harness.RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("%s on %s: want an RPC failure (no provider), got port %d, err %v", call, c.App, port, err)
	}
	return ex
}

func findStep(ex httpapi.Explain, router string) (s struct {
	Key, Branch string
	In, Out     int
}, ok bool) {
	if ex.Trace == nil {
		return s, false
	}
	for _, st := range ex.Trace.Steps {
		if st.Router == router {
			s.Key, s.Branch, s.In, s.Out = st.Key, string(st.Branch), st.In, st.Out
			return s, true
		}
	}
	return s, false
}

// wantStep asserts one step of the explain trace.
func wantStep(t *testing.T, ex httpapi.Explain, router, key, branch string, in, out int) {
	t.Helper()
	s, ok := findStep(ex, router)
	if !ok {
		t.Errorf("trace has no %s step: %s", router, ex.TraceText)
		return
	}
	if s.Key != key || s.Branch != branch || s.In != in || s.Out != out {
		t.Errorf("%s step = key %q branch %s %d->%d, want key %q branch %s %d->%d (trace: %s)",
			router, s.Key, s.Branch, s.In, s.Out, key, branch, in, out, ex.TraceText)
	}
}

type grayDecision struct {
	Rule     int    `json:"rule"`
	Gray     bool   `json:"gray"`
	Branch   string `json:"branch"`
	Reason   string `json:"reason"`
	Provider string `json:"provider"`
}

func grayOf(ex httpapi.Explain) grayDecision {
	d := grayDecision{Rule: -2}
	_ = json.Unmarshal(ex.Gray, &d)
	return d
}

func (w *world) testRegistration(t *testing.T) {
	ps, err := w.rules.Providers(api.Interface)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, p := range ps {
		addrs = append(addrs, p.Addr())
		if p.URL.Scheme != "dubbo" || p.URL.Path != "/"+api.Interface || p.Param("interface") != api.Interface ||
			p.Param("application") != api.ProviderApp || p.Param("side") != "provider" {
			t.Errorf("provider node %s: want dubbo://<addr>/%s?application=%s&interface=...&side=provider", p.URL, api.Interface, api.ProviderApp)
		}
		if p.Param("dubbo.tag") != "" {
			t.Errorf("provider %s is tagged %q, want untagged", p.Addr(), p.Param("dubbo.tag"))
		}
		// Java's default weight: with dubbo-go's weight=0, Java consumers
		// would never pick these providers.
		if p.Param("weight") != "100" {
			t.Errorf("provider %s publishes weight=%q, want Java's default 100", p.Addr(), p.Param("weight"))
		}
	}
	if !harness.Same(addrs, w.p1.Addr, w.p2.Addr) {
		t.Errorf("/dubbo/%s/providers holds %v, want %s and %s", api.Interface, addrs, w.p1.Addr, w.p2.Addr)
	}
	cs, err := w.rules.Consumers(api.Interface)
	if err != nil {
		t.Fatal(err)
	}
	apps := map[string]bool{}
	for _, c := range cs {
		apps[c.Param("application")] = true
		if c.URL.Scheme != "consumer" {
			t.Errorf("consumer node %s: want scheme consumer", c.URL)
		}
	}
	if !apps["demo-consumer1"] || !apps["demo-consumer2"] {
		t.Errorf("/dubbo/%s/consumers has applications %v, want demo-consumer1 and demo-consumer2", api.Interface, apps)
	}
}

func (w *world) testNoRule(t *testing.T) {
	now := time.Now()
	for _, c := range w.consumers() {
		for _, call := range []harness.Call{harness.QueryAll, harness.QueryByName} {
			ex, _ := routes(t, c, call, within, now, w.p1, w.p2)
			wantStep(t, ex, "service", "", "no-rule", 2, 2)
			wantStep(t, ex, "app", "", "no-rule", 2, 2)
		}
	}
}

func (w *world) testPerMethod(t *testing.T) {
	content := w.ruleFile(t, svcKey)
	if strings.Contains(content, "configVersion") {
		t.Fatalf("the v3.0 rule must be stored without configVersion, as Dubbo Admin writes it:\n%s", content)
	}
	at := w.put(t, svcKey, content)
	for _, c := range w.consumers() {
		ex, took := routes(t, c, harness.QueryAll, within, at, w.p1)
		wantStep(t, ex, "service", svcKey, "matched", 2, 1)
		t.Logf("%s: queryAll -> %s only, %v after the write", c.App, w.p1.Addr, took.Round(time.Millisecond))
		ex, _ = routes(t, c, harness.QueryByName, within, at, w.p2)
		wantStep(t, ex, "service", svcKey, "matched", 2, 1)
	}
}

func (w *world) testPerConsumerApp(t *testing.T) {
	at := w.put(t, c1Key, w.ruleFile(t, c1Key))
	w.put(t, c2Key, w.ruleFile(t, c2Key))
	for _, call := range []harness.Call{harness.QueryAll, harness.QueryByName} {
		// Java 3.2+'s provider-app router (145) applies the consumer-app
		// rule too until a provider-app rule exists (spec §5.7), so the
		// filtering shows at 145 and the app router (150) keeps the one.
		ex, _ := routes(t, w.c1, call, within, at, w.p1)
		wantStep(t, ex, "provider-app", c1Key, "matched", 2, 1)
		wantStep(t, ex, "app", c1Key, "matched", 1, 1)
		ex, _ = routes(t, w.c2, call, within, at, w.p2)
		wantStep(t, ex, "provider-app", c2Key, "matched", 2, 1)
		wantStep(t, ex, "app", c2Key, "matched", 1, 1)
	}
}

func (w *world) testPerConsumerAppAtProviderKey(t *testing.T) {
	content := w.ruleFile(t, provAppKey)
	if !strings.Contains(content, "key: demo-provider") {
		t.Fatalf("want seed 000's application rule (key: demo-provider):\n%s", content)
	}
	at := w.put(t, provAppKey, content)
	for _, call := range []harness.Call{harness.QueryAll, harness.QueryByName} {
		ex, _ := routes(t, w.c1, call, within, at, w.p1)
		wantStep(t, ex, "provider-app", provAppKey, "matched", 2, 1)
		ex, _ = routes(t, w.c2, call, within, at, w.p2)
		wantStep(t, ex, "provider-app", provAppKey, "matched", 2, 1)
	}
}

func (w *world) testTag(t *testing.T) {
	pt := harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg, Tag: "gray"})
	t.Cleanup(func() { w.leave(t, pt) })
	c := w.c1
	at := time.Now()
	if _, err := c.WaitExplain(harness.QueryAll, churnWithin, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, w.p1.Addr, w.p2.Addr, pt.Addr)
	}); err != nil {
		t.Fatalf("tagged provider never joined: %v", err)
	}
	ps, err := w.rules.Providers(api.Interface)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Addr() == pt.Addr && p.Param("dubbo.tag") != "gray" {
			t.Errorf("tagged provider registered %s, want dubbo.tag=gray", p.URL)
		}
	}
	gray, blue := harness.QueryAll.WithTag("gray", false), harness.QueryAll.WithTag("blue", false)
	grayF, blueF := harness.QueryAll.WithTag("gray", true), harness.QueryAll.WithTag("blue", true)

	// Static tags only (no tag rule).
	ex, _ := routes(t, c, gray, within, at, pt)
	wantStep(t, ex, "tag", "", "static", 3, 1)
	routes(t, c, grayF, within, at, pt)
	ex, _ = routes(t, c, harness.QueryAll, within, at, w.p1, w.p2)
	wantStep(t, ex, "tag", "", "tagless", 3, 2)
	ex, _ = routes(t, c, blue, within, at, w.p1, w.p2)
	wantStep(t, ex, "tag", "", "static-fallback", 3, 2)
	ex = noProvider(t, c, blueF)
	wantStep(t, ex, "tag", "", "static-forced-empty", 3, 0)

	// Dynamic rule (seed-style file): gray => 0.0.0.0:<p2>, force false.
	at = w.put(t, tagKey, w.ruleFile(t, tagKey))
	ex, took := routes(t, c, gray, within, at, w.p2)
	wantStep(t, ex, "tag", tagKey, "dynamic-hit", 3, 1)
	t.Logf("tag rule in force %v after the write", took.Round(time.Millisecond))
	routes(t, c, grayF, within, at, w.p2)
	ex, _ = routes(t, c, harness.QueryAll, within, at, w.p1)
	wantStep(t, ex, "tag", tagKey, "tagless", 3, 1)
	ex, _ = routes(t, c, blue, within, at, w.p1)
	wantStep(t, ex, "tag", tagKey, "fallback-untagged", 3, 1)
	ex = noProvider(t, c, blueF)
	wantStep(t, ex, "tag", tagKey, "forced-empty", 3, 0)

	// Dynamic rule whose address (127.0.0.1, a port nobody serves) is absent.
	free, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	at = w.put(t, tagKey, fmt.Sprintf("force: false\nenabled: true\nruntime: true\nkey: %s\ntags:\n  - name: gray\n    addresses:\n      - %s:%d\n", api.ProviderApp, harness.Host, free))
	ex, _ = routes(t, c, gray, within, at, w.p1, w.p2)
	wantStep(t, ex, "tag", tagKey, "fallback-untagged", 3, 2)
	ex = noProvider(t, c, grayF)
	wantStep(t, ex, "tag", tagKey, "forced-empty", 3, 0)
}

// leave stops a provider gracefully and waits until both consumers dropped
// it.
func (w *world) leave(t *testing.T, p *harness.Provider) {
	t.Helper()
	if err := p.Stop(10 * time.Second); err != nil {
		t.Error(err)
	}
	for _, c := range w.consumers() {
		if _, err := c.WaitExplain(harness.QueryAll, churnWithin, func(ex httpapi.Explain) bool {
			for _, a := range ex.Providers {
				if a == p.Addr {
					return false
				}
			}
			return true
		}); err != nil {
			t.Errorf("%s never dropped %s: %v", c.App, p.Addr, err)
		}
	}
}

func (w *world) testGrayUsers(t *testing.T) {
	pg := harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg, Params: map[string]string{"status": "gray"}})
	t.Cleanup(func() { w.leave(t, pg) })
	c := w.c1
	if _, err := c.WaitExplain(harness.QueryAll, churnWithin, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, w.p1.Addr, w.p2.Addr, pg.Addr)
	}); err != nil {
		t.Fatalf("gray provider never joined: %v", err)
	}
	never := func(user string) {
		t.Helper()
		got, err := c.Ports(harness.TestUser(user), calls)
		if err != nil {
			t.Fatalf("testUser(%s): %v", user, err)
		}
		if got[pg.Port] > 0 {
			t.Errorf("user %s reached the gray provider %d of %d times, want never (ports %v)", user, got[pg.Port], calls, got)
		}
	}
	// No rule: seed 002's defaults (gray users from the consumer's
	// grayUserids, none configured): nobody is gray.
	never("1")
	never("3333")

	at := w.put(t, grayKey, w.ruleFile(t, grayKey))
	if err := harness.Eventually(within, func() error {
		p, err := c.Do(harness.TestUser("1"))
		if err == nil && p != pg.Port {
			err = fmt.Errorf("user 1 served by %d, want the gray provider %d", p, pg.Port)
		}
		return err
	}); err != nil {
		t.Fatalf("gray rule not in force: %v", err)
	}
	t.Logf("gray rule in force %v after the write", time.Since(at).Round(time.Millisecond))
	for u := 1; u <= 10; u++ {
		user := strconv.Itoa(u)
		got, err := c.Ports(harness.TestUser(user), 3)
		if err != nil || got[pg.Port] != 3 {
			t.Errorf("gray user %s: ports %v (%v), want all 3 calls on the gray provider %d", user, got, err, pg.Port)
		}
	}
	ex, err := c.Explain(harness.TestUser("7"))
	if err != nil {
		t.Fatal(err)
	}
	if d := grayOf(ex); !d.Gray || d.Provider != pg.Addr || d.Rule != 0 {
		t.Errorf("explain user 7: gray decision %+v, want gray, rule 0, provider %s", d, pg.Addr)
	}
	never("3333")
	never("11")
	never("0")
	ex, err = c.Explain(harness.TestUser("3333"))
	if err != nil {
		t.Fatal(err)
	}
	if d := grayOf(ex); d.Gray || d.Provider == pg.Addr {
		t.Errorf("explain user 3333: gray decision %+v, want normal", d)
	}
}

func (w *world) testHotReload(t *testing.T) {
	c := w.c1
	pid := c.Pid()
	v1 := w.ruleFile(t, svcKey) // queryAll => p1, queryByName => p2
	at := w.put(t, svcKey, v1)
	_, took := routes(t, c, harness.QueryAll, within, at, w.p1)
	t.Logf("add: %v", took.Round(time.Millisecond))

	// Update: the ports swapped.
	v2 := fmt.Sprintf("scope: service\nforce: true\nruntime: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n  - method=queryByName => address=*:%d\n",
		api.Interface, w.p2.Port, w.p1.Port)
	at = w.put(t, svcKey, v2)
	ex, took := routes(t, c, harness.QueryAll, within, at, w.p2)
	if took > within {
		t.Errorf("update took %v, want within %v", took, within)
	}
	t.Logf("update: %v", took.Round(time.Millisecond))
	routes(t, c, harness.QueryByName, within, at, w.p1)
	good := ex.Rules[svcKey]
	if good == "" {
		t.Fatalf("explain lists no version of %s: %v", svcKey, ex.Rules)
	}

	// Malformed update: line 8 holds an illegal condition ("==").
	bad := fmt.Sprintf("scope: service\nforce: true\nruntime: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n  - method == queryByName => address=*:%d\n",
		api.Interface, w.p1.Port, w.p2.Port)
	if err := w.rules.Put(svcKey, bad); err != nil {
		t.Fatal(err)
	}
	line, err := c.WaitLog(churnWithin, "rule key="+svcKey, "rejected", "line 8")
	if err != nil {
		t.Fatalf("malformed rule not reported with key and line: %v", err)
	}
	t.Logf("consumer log: %s", line)
	ex, _ = routes(t, c, harness.QueryAll, within, time.Now(), w.p2)
	if ex.Rules[svcKey] != good {
		t.Errorf("after the malformed update the rule version is %q, want the last good %q", ex.Rules[svcKey], good)
	}
	routes(t, c, harness.QueryByName, within, time.Now(), w.p1)

	// Delete: back to both providers.
	at = time.Now()
	if err := w.rules.Delete(svcKey); err != nil {
		t.Fatal(err)
	}
	ex, took = routes(t, c, harness.QueryAll, within, at, w.p1, w.p2)
	wantStep(t, ex, "service", "", "no-rule", 2, 2)
	t.Logf("delete: %v", took.Round(time.Millisecond))
	if c.Pid() != pid || c.Exited() {
		t.Errorf("consumer restarted or exited (pid %d -> %d, %s)", pid, c.Pid(), c.ExitStatus())
	}
}

func (w *world) testProviderChurn(t *testing.T) {
	c := w.c1
	at := time.Now()
	p3 := harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg})
	ex, err := c.WaitExplain(harness.QueryAll, churnWithin, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, w.p1.Addr, w.p2.Addr, p3.Addr) && harness.Same(ex.Routed, w.p1.Addr, w.p2.Addr, p3.Addr)
	})
	if err != nil {
		t.Fatalf("third provider never joined: %v", err)
	}
	t.Logf("join seen %v after the start: %s", time.Since(at).Round(time.Millisecond), ex.TraceText)
	wantStep(t, ex, "mock", "", "no-mock", 3, 3)
	wantStep(t, ex, "service", "", "no-rule", 3, 3)
	if err := harness.Eventually(churnWithin, func() error {
		p, err := c.Do(harness.QueryAll)
		if err == nil && p != p3.Port {
			err = fmt.Errorf("served by %d", p)
		}
		return err
	}); err != nil {
		t.Fatalf("the third provider never served a call: %v", err)
	}
	// A rule naming only the newcomer routes there.
	at = w.put(t, svcKey, fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p3.Port))
	ex, _ = routes(t, c, harness.QueryAll, within, at, p3)
	wantStep(t, ex, "service", svcKey, "matched", 3, 1)

	// Leaving: dropped from the provider list and the trace; with the rule
	// (force) nothing is left for queryAll, queryByName still has p1, p2.
	at = time.Now()
	w.leave(t, p3)
	t.Logf("leave seen %v after the stop", time.Since(at).Round(time.Millisecond))
	ex = noProvider(t, c, harness.QueryAll)
	wantStep(t, ex, "service", svcKey, "force-empty", 2, 0)
	if !harness.Same(ex.Providers, w.p1.Addr, w.p2.Addr) {
		t.Errorf("providers after the leave: %v", ex.Providers)
	}
	routes(t, c, harness.QueryByName, within, time.Now(), w.p1, w.p2)
	ps, err := w.rules.Providers(api.Interface)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Addr() == p3.Addr {
			t.Errorf("%s still registered in ZooKeeper after a graceful stop", p3.Addr)
		}
	}
}
