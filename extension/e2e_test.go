package extension_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
	"github.com/dubboroute/dubboroute/samples/bookfacade/provider"
	"github.com/dubboroute/dubboroute/samples/bookfacade/rules"
)

// Three real dubbo-go providers for the whole test binary (the memory
// registry is process-wide): p0 and p1 plain, p2 with status=gray.
var p0, p1, p2 int

// foreignApp is the consumer application whose references get the test's
// own dubbo-go routers (foreignFactory); other references get none.
const foreignApp = "demo-consumer-foreign"

// keepPort is the provider port the keep router leaves (set in TestMain).
var keepPort atomic.Int64

// foreignFactory is an application's own PriorityRouterFactory, registered
// in dubbo-go as any application would: for foreignApp's references it
// builds a router that keeps one provider (priority 10) and one that
// panics on calls carrying the "boom" attachment (priority 5).
type foreignFactory struct{ kind string }

func (f foreignFactory) NewPriorityRouter(u *common.URL) (dgrouter.PriorityRouter, error) {
	app := u.GetParam(constant.ApplicationKey, "")
	if u.SubURL != nil {
		app = u.SubURL.GetParam(constant.ApplicationKey, "")
	}
	if app == callPathApp && f.kind == "keep" {
		return pathRouter{u}, nil
	}
	if app != foreignApp {
		return nil, nil
	}
	if f.kind == "panic" {
		return panicRouter{u}, nil
	}
	return keepRouter{u}, nil
}

var keepNotified atomic.Int64

type keepRouter struct{ u *common.URL }

func (k keepRouter) Route(ivks []base.Invoker, _ *common.URL, _ base.Invocation) []base.Invoker {
	var out []base.Invoker
	for _, i := range ivks {
		if i.GetURL().Port == strconv.Itoa(int(keepPort.Load())) {
			out = append(out, i)
		}
	}
	return out
}
func (k keepRouter) URL() *common.URL           { return k.u }
func (k keepRouter) Priority() int64            { return 10 }
func (k keepRouter) Notify(ivks []base.Invoker) { keepNotified.Store(int64(len(ivks))) }

type panicRouter struct{ u *common.URL }

func (p panicRouter) Route(ivks []base.Invoker, _ *common.URL, inv base.Invocation) []base.Invoker {
	if _, boom := inv.GetAttachment("boom"); boom {
		panic("a foreign router's bug")
	}
	return ivks
}
func (p panicRouter) URL() *common.URL      { return p.u }
func (p panicRouter) Priority() int64       { return 5 }
func (p panicRouter) Notify([]base.Invoker) {}

// countLB is a load balancer that counts its picks (issue #2864 check).
type countLB struct{ n *atomic.Int64 }

var countPicks atomic.Int64

func (c countLB) Select(ivks []base.Invoker, _ base.Invocation) base.Invoker {
	c.n.Add(1)
	return ivks[int(c.n.Load())%len(ivks)]
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestMain(m *testing.M) {
	dgext.SetRouterFactory("test-keep", func() dgrouter.PriorityRouterFactory { return foreignFactory{"keep"} })
	dgext.SetRouterFactory("test-panic", func() dgrouter.PriorityRouterFactory { return foreignFactory{"panic"} })
	dgext.SetLoadbalance("test-count", func() loadbalance.LoadBalance { return countLB{&countPicks} })
	var t testing.T
	p0, p1, p2 = freePort(&t), freePort(&t), freePort(&t)
	keepPort.Store(int64(p1))
	for _, o := range []provider.Options{
		{Port: p0, Registry: "memory://", ConfigCenter: "memory://"},
		{Port: p1, Registry: "memory://"},
		{Port: p2, Registry: "memory://", Params: map[string]string{"status": "gray"}},
	} {
		o.Registered = memory.Registry.Registered(api.Interface)
		if _, err := provider.Start(o); err != nil {
			fmt.Fprintln(os.Stderr, "start provider:", err)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// rule reads a rule file of the sample with the demo ports replaced by the
// test's ports.
func rule(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "samples", "bookfacade", "rules", rules.FileName(name)))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "20880", strconv.Itoa(p0))
	return strings.ReplaceAll(s, "20881", strconv.Itoa(p1))
}

func newConsumer(t *testing.T, o consumer.Options) *consumer.Consumer {
	t.Helper()
	if o.Registry == "" && o.URL == "" {
		o.Registry = "memory://"
	}
	if o.ConfigCenter == "" {
		o.ConfigCenter = "memory://"
	}
	c, err := consumer.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ports makes n calls and returns the set of serving ports ("err" for failures).
func ports(t *testing.T, n int, call func() (int, error)) map[string]int {
	t.Helper()
	out := map[string]int{}
	for i := 0; i < n; i++ {
		p, err := call()
		if err != nil {
			out["err"]++
			continue
		}
		out[strconv.Itoa(p)]++
	}
	return out
}

func queryAll(c *consumer.Consumer, at consumer.Attachments) func() (int, error) {
	return func() (int, error) {
		bs, err := c.QueryAll(context.Background(), at)
		if err != nil {
			return 0, err
		}
		return api.PortOf(bs[0]), nil
	}
}

func queryByName(c *consumer.Consumer, at consumer.Attachments) func() (int, error) {
	return func() (int, error) {
		b, err := c.QueryByName(context.Background(), "Go", at)
		if err != nil {
			return 0, err
		}
		return api.PortOf(b), nil
	}
}

func only(t *testing.T, what string, got map[string]int, port int) {
	t.Helper()
	if len(got) != 1 || got[strconv.Itoa(port)] == 0 {
		t.Errorf("%s: served by %v, want only %d", what, got, port)
	}
}

func keys(got map[string]int) string {
	var ks []string
	for k := range got {
		ks = append(ks, k)
	}
	return strings.Join(sortStrings(ks), ",")
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func cleanup(t *testing.T, ks ...string) {
	t.Cleanup(func() {
		for _, k := range ks {
			memory.DeleteRule(k)
		}
	})
}

// TestSeedConditionRulesOverRPC routes real calls with the seeds' service
// and application rules, updates and deletes them without restart, and
// checks that a malformed update changes nothing.
func TestSeedConditionRulesOverRPC(t *testing.T) {
	svcKey, appKey := api.ServiceRuleKey, "demo-consumer1.condition-router"
	cleanup(t, svcKey, appKey)
	c := newConsumer(t, consumer.Options{App: "demo-consumer1"})

	// No rule: both normal providers (p2 is gray: the gray balancer keeps
	// normal users away from it).
	if got := ports(t, 40, queryAll(c, nil)); keys(got) != keys(map[string]int{strconv.Itoa(p0): 1, strconv.Itoa(p1): 1}) {
		t.Fatalf("no rule: %v", got)
	}

	memory.PutRule(svcKey, rule(t, svcKey))
	only(t, "service rule, queryAll", ports(t, 20, queryAll(c, nil)), p0)
	only(t, "service rule, queryByName", ports(t, 20, queryByName(c, nil)), p1)

	// A malformed update is rejected; the last good rule keeps routing.
	memory.PutRule(svcKey, "conditions:\n  - method=queryAll => address=*:1\n  bad: [unclosed\n")
	only(t, "after malformed update, queryAll", ports(t, 10, queryAll(c, nil)), p0)
	only(t, "after malformed update, queryByName", ports(t, 10, queryByName(c, nil)), p1)

	// Update: swap the destinations.
	swapped := strings.NewReplacer("queryAll", "queryByName", "queryByName", "queryAll").Replace(rule(t, svcKey))
	memory.PutRule(svcKey, swapped)
	only(t, "updated rule, queryAll", ports(t, 10, queryAll(c, nil)), p1)
	memory.PutRule(svcKey, rule(t, svcKey))

	// The application rule (150) after the service rule (140): queryByName
	// goes to p1 by service rule, then demo-consumer1 => p0 leaves nothing.
	memory.PutRule(appKey, rule(t, appKey))
	only(t, "service+app rule, queryAll", ports(t, 10, queryAll(c, nil)), p0)
	_, err := c.QueryByName(context.Background(), "Go", nil)
	var npe *cluster.NoProviderError
	if !errors.As(err, &npe) {
		t.Fatalf("service+app rule, queryByName: err = %v, want a NoProviderError", err)
	}
	for _, want := range []string{"service 3->1", appKey, "1->0 force-empty"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no-provider error %q lacks %q", err, want)
		}
	}

	// Delete the service rule: only the application rule is left.
	memory.DeleteRule(svcKey)
	only(t, "app rule only, queryByName", ports(t, 10, queryByName(c, nil)), p0)
	// Empty content is a delete too (ZooKeeper semantics).
	memory.PutRule(appKey, "")
	if got := ports(t, 40, queryByName(c, nil)); len(got) != 2 || got["err"] != 0 {
		t.Errorf("all rules deleted: %v", got)
	}
	if !extension.Listening(svcKey) || !extension.Listening(appKey) {
		t.Error("rule keys are not subscribed")
	}
	if n := memory.Configs.Listeners(memory.DefaultGroup, svcKey); n != 1 {
		t.Errorf("%s has %d listeners, want 1 (one subscription per key)", svcKey, n)
	}
}

// TestBuiltinChainNotOnCallPath: dubbo-go's own condition, tag and script
// routers are replaced: the seed rule with address= (which dubbo-go's own
// condition router can never match) routes as Java does.
func TestBuiltinChainNotOnCallPath(t *testing.T) {
	svcKey := api.ServiceRuleKey
	cleanup(t, svcKey)
	memory.PutRule(svcKey, rule(t, svcKey))
	c := newConsumer(t, consumer.Options{App: "demo-consumer3"})
	only(t, "queryAll", ports(t, 10, queryAll(c, nil)), p0)
	only(t, "queryByName", ports(t, 10, queryByName(c, nil)), p1)
	if fr := extension.BindingFor(api.Interface, "demo-consumer3").ForeignRouters(); len(fr) != 0 {
		t.Errorf("foreign routers %v in a reference no user router applies to", fr)
	}
}

// TestForeignRouters: an application's own dubbo-go router factories
// (registered in TestMain) build routers for foreignApp's reference; they
// run after dubboroute's chain in priority order (panic 5, keep 10), get
// the provider list through Notify, show in explain as steps, and the one
// that panics is contained: the call goes on with its input.
func TestForeignRouters(t *testing.T) {
	c := newConsumer(t, consumer.Options{App: foreignApp})
	only(t, "the keep router", ports(t, 20, queryAll(c, nil)), p1)
	b := extension.BindingFor(api.Interface, foreignApp)
	if b == nil {
		t.Fatal("no binding")
	}
	want := []string{"foreign:extension_test.panicRouter", "foreign:extension_test.keepRouter"}
	if got := b.ForeignRouters(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("foreign routers %v, want %v (priority order)", got, want)
	}
	if n := keepNotified.Load(); n != 3 {
		t.Errorf("the keep router was notified of %d providers, want 3", n)
	}
	routed, tr := b.Explain("queryAll", nil, nil)
	steps := tr.Steps
	if len(routed) != 1 || len(steps) < 2 {
		t.Fatalf("explain: %d routed, trace %s", len(routed), tr)
	}
	last := steps[len(steps)-1]
	if last.Router != want[1] || last.In != 3 || last.Out != 1 || steps[len(steps)-2].Router != want[0] {
		t.Errorf("explain's last steps: %+v, %+v", steps[len(steps)-2], last)
	}
	only(t, "a panicking foreign router", ports(t, 5, queryAll(c, consumer.Attachments{"boom": "1"})), p1)
}

// TestTagRuleOverRPC: a dynamic tag rule sends gray-tagged requests to p1;
// untagged requests avoid the tag's addresses.
func TestTagRuleOverRPC(t *testing.T) {
	key := api.ProviderApp + ".tag-router"
	cleanup(t, key)
	c := newConsumer(t, consumer.Options{App: "demo-consumer4"})
	memory.PutRule(key, rule(t, key))
	gray := consumer.Attachments{"dubbo.tag": "gray"}
	only(t, "dubbo.tag=gray", ports(t, 10, queryAll(c, gray)), p1)
	only(t, "no tag", ports(t, 20, queryAll(c, nil)), p0)
	// Unknown tag without force: falls back to the untagged, unclaimed providers.
	only(t, "dubbo.tag=blue", ports(t, 10, queryAll(c, consumer.Attachments{"dubbo.tag": "blue"})), p0)
	// With force: no provider, and the error says the tag router did it.
	_, err := c.QueryAll(context.Background(), consumer.Attachments{"dubbo.tag": "blue", "dubbo.force.tag": "true"})
	if err == nil || !strings.Contains(err.Error(), "tag 3->0") {
		t.Errorf("forced unknown tag: err = %v", err)
	}
}

// TestGrayRuleOverRPC: users 1-10 reach the status=gray provider, others
// never do; deleting the rule returns to the defaults.
func TestGrayRuleOverRPC(t *testing.T) {
	key := api.ProviderApp + ".gray-router"
	cleanup(t, key)
	c := newConsumer(t, consumer.Options{App: "demo-consumer5", LoadBalance: "gray"})
	memory.PutRule(key, rule(t, key))
	for _, u := range []string{"1", "7", "10"} {
		only(t, "gray user "+u, ports(t, 5, queryByName(c, consumer.Attachments{"userId": u})), p2)
	}
	for _, u := range []string{"11", "42"} {
		if got := ports(t, 20, queryByName(c, consumer.Attachments{"userId": u})); got[strconv.Itoa(p2)] != 0 || got["err"] != 0 {
			t.Errorf("normal user %s: %v", u, got)
		}
	}
	memory.DeleteRule(key)
	if got := ports(t, 20, queryByName(c, consumer.Attachments{"userId": "1"})); got[strconv.Itoa(p2)] != 0 {
		t.Errorf("rule deleted, user 1 still gray: %v", got)
	}
}

// TestConsumerLoadBalanceWins: dubbo-go providers publish
// loadbalance=random; the consumer's balancer must still be the one used
// in registry mode (dubbo-go issue #2864).
func TestConsumerLoadBalanceWins(t *testing.T) {
	for _, u := range memory.Registry.Providers(api.Interface) {
		if !strings.Contains(u, "loadbalance=random") {
			t.Fatalf("provider URL without loadbalance=random, the check proves nothing: %s", u)
		}
	}
	c := newConsumer(t, consumer.Options{App: "demo-consumer6", LoadBalance: "test-count"})
	before := countPicks.Load()
	if got := ports(t, 10, queryAll(c, nil)); got["err"] != 0 {
		t.Fatalf("calls failed: %v", got)
	}
	if n := countPicks.Load() - before; n != 10 {
		t.Errorf("consumer balancer picked %d of 10 calls", n)
	}
}

// TestDirectURLAndEveryCluster: the static (direct-URL) directory routes
// through dubboroute too, for every cluster strategy.
func TestDirectURLAndEveryCluster(t *testing.T) {
	svcKey := api.ServiceRuleKey
	cleanup(t, svcKey)
	memory.PutRule(svcKey, rule(t, svcKey))
	url := fmt.Sprintf("dubbo://127.0.0.1:%d;dubbo://127.0.0.1:%d", p0, p1)
	for i, cl := range extension.ClusterNames {
		if cl == constant.ClusterKeyAdaptiveService {
			continue // needs the adaptive-service filter on both sides
		}
		t.Run(cl, func(t *testing.T) {
			c := newConsumer(t, consumer.Options{App: "direct-" + strconv.Itoa(i), URL: url, Cluster: cl, LoadBalance: "random"})
			only(t, cl+" queryAll", ports(t, 6, queryAll(c, nil)), p0)
			only(t, cl+" queryByName", ports(t, 6, queryByName(c, nil)), p1)
		})
	}
}

// TestConsumerHTTPEndpoints: the sample's HTTP endpoints answer with the
// serving port, routed by the service rule.
func TestConsumerHTTPEndpoints(t *testing.T) {
	svcKey := api.ServiceRuleKey
	cleanup(t, svcKey)
	memory.PutRule(svcKey, rule(t, svcKey))
	c := newConsumer(t, consumer.Options{App: "demo-consumer7"})
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	for path, want := range map[string]int{"/books": p0, "/books?name=Go": p1, "/testUser?userId=3": p1} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var r consumer.Response
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || r.Port != want {
			t.Errorf("GET %s: status %d, %+v, %v; want port %d", path, resp.StatusCode, r, err, want)
		}
	}
	resp, err := http.Get(srv.URL + "/testUser?userId=x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad userId: status %d", resp.StatusCode)
	}
}

// TestProviderChurn: a provider leaving the registry is dropped from the
// snapshot (and the explain trace), and picked up again when it returns.
func TestProviderChurn(t *testing.T) {
	key := api.ProviderApp + ".gray-router"
	cleanup(t, key)
	memory.PutRule(key, rule(t, key))
	c := newConsumer(t, consumer.Options{App: "demo-consumer8"})
	gray := consumer.Attachments{"userId": "1"}
	only(t, "gray user, p2 present", ports(t, 5, queryByName(c, gray)), p2)
	var raw string
	for _, u := range memory.Registry.Providers(api.Interface) {
		if strings.Contains(u, ":"+strconv.Itoa(p2)+"/") {
			raw = u
		}
	}
	if !memory.Registry.Leave(api.Interface, p2) {
		t.Fatal("p2 was not registered")
	}
	back := false
	t.Cleanup(func() {
		if !back {
			_ = memory.Registry.Register(raw)
		}
	})
	got := ports(t, 20, queryByName(c, gray))
	if got[strconv.Itoa(p2)] != 0 || got["err"] != 0 {
		t.Errorf("p2 left, gray user (fallback normal): %v", got)
	}
	b := extension.BindingFor(api.Interface, "demo-consumer8")
	if _, tr := b.Explain("queryByName", []any{"Go"}, nil); tr.Steps[0].In != 2 {
		t.Errorf("trace after leave: %s", tr)
	}
	if err := memory.Registry.Register(raw); err != nil {
		t.Fatal(err)
	}
	back = true
	only(t, "gray user, p2 back", ports(t, 5, queryByName(c, gray)), p2)
	if _, tr := b.Explain("queryByName", []any{"Go"}, nil); tr.Steps[0].In != 3 {
		t.Errorf("trace after return: %s", tr)
	}
}

// TestEveryBalancerNameOverRPC: Java's balancer names, dubbo-go's and a
// name nobody registered all serve calls (dubbo-go v3.3.2 panics on
// consistenthash, shortestresponse, adaptive and any unknown name), and
// consistenthash keeps one key on one provider, also when Admin's
// configurator sets it on the consumer application.
func TestEveryBalancerNameOverRPC(t *testing.T) {
	for i, name := range []string{"consistenthash", "shortestresponse", "adaptive", "roundrobin", "leastactive",
		"consistenthashing", "p2c", "iwrr", "aliasmethod", "no-such-balancer"} {
		c := newConsumer(t, consumer.Options{App: "demo-consumer-lb" + strconv.Itoa(i), LoadBalance: name})
		got := ports(t, 12, queryByName(c, nil))
		if got["err"] != 0 {
			t.Errorf("%s: calls failed: %v", name, got)
		}
		if strings.HasPrefix(name, "consistenthash") && len(got) != 1 {
			t.Errorf("%s: one key reached %v", name, got)
		}
		if name == "roundrobin" && len(got) < 2 {
			t.Fatalf("roundrobin reached only %v: one provider eligible, the consistenthash checks prove nothing", got)
		}
	}
	app := "demo-consumer-lbcfg"
	key := app + ".configurators"
	cleanup(t, key)
	c := newConsumer(t, consumer.Options{App: app})
	memory.PutRule(key, "configVersion: v3.0\nscope: application\nkey: "+app+"\nenabled: true\nconfigs:\n  - side: consumer\n    parameters:\n      loadbalance: consistenthash\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := ports(t, 12, queryByName(c, nil))
		if got["err"] != 0 {
			t.Fatalf("configurator loadbalance: consistenthash: calls failed: %v", got)
		}
		if len(got) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("configurator loadbalance: consistenthash: one key still spread over %v", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
