package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
)

const iface = "com.muke.dubbocourse.common.api.BookFacade"

func invoker(t testing.TB, hostport string, params string) base.Invoker {
	t.Helper()
	raw := "dubbo://" + hostport + "/" + iface + "?interface=" + iface + "&application=demo-provider&side=provider"
	if params != "" {
		raw += "&" + params
	}
	u, err := common.NewURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	return base.NewBaseInvoker(u)
}

func consumerURL(app string) *router.URL {
	return router.MustParseURL("consumer://10.0.0.9/" + iface + "?application=" + app + "&interface=" + iface + "&side=consumer")
}

func condRule(t testing.TB, key, yaml string) RuleRef {
	t.Helper()
	r, err := condition.ParseRule(yaml)
	if err != nil {
		t.Fatal(err)
	}
	return RuleRef{Key: key, Version: "3.0#1", Condition: r}
}

func tagRule(t testing.TB, yaml string) RuleRef {
	t.Helper()
	r, err := tag.ParseRule(yaml)
	if err != nil {
		t.Fatal(err)
	}
	return RuleRef{Key: "demo-provider.tag-router", Version: "1", Tag: r}
}

func ports(ivks []base.Invoker) string {
	var ps []string
	for _, i := range ivks {
		ps = append(ps, i.GetURL().Port)
	}
	return strings.Join(ps, ",")
}

func call(method string, att map[string]any) base.Invocation {
	return invocation.NewRPCInvocation(method, []any{}, att)
}

const serviceRule = `scope: service
force: true
runtime: true
enabled: true
key: com.muke.dubbocourse.common.api.BookFacade
conditions:
  - method=queryAll => address=*:20880
  - method=queryByName => address=*:20881
`

const appRule = `scope: application
force: true
enabled: true
key: demo-provider
conditions:
  - application=demo-consumer1 => address=*:20880
  - application=demo-consumer2 => address=*:20881
`

func TestSeedRulesRouteAsJava(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")})
	if got := ports(c.Route(call("queryAll", nil), nil)); got != "20880,20881" {
		t.Fatalf("no rule: %s", got)
	}
	c.SetRule(SlotService, condRule(t, iface+"::.condition-router", serviceRule))
	if got := ports(c.Route(call("queryAll", nil), nil)); got != "20880" {
		t.Errorf("queryAll: %s", got)
	}
	if got := ports(c.Route(call("queryByName", nil), nil)); got != "20881" {
		t.Errorf("queryByName: %s", got)
	}
	// Consumer-app rule (150) after the service rule (140): demo-consumer1 -> 20880,
	// so queryByName (service: 20881) ends empty, and the chain fails fast.
	c.SetRule(SlotConsumerApp, condRule(t, "demo-consumer1.condition-router", appRule))
	tr := &router.Trace{}
	if got := c.Route(call("queryByName", nil), tr); len(got) != 0 {
		t.Errorf("queryByName with both rules: %s, want none", ports(got))
	}
	if n := len(tr.Steps); n != 5 || tr.Steps[4].Router != RouterConsumerApp || tr.Steps[4].Out != 0 {
		t.Errorf("trace: %s", tr)
	}
	// Fail-fast: an empty tag result stops the chain before the condition routers.
	c.SetRule(SlotConsumerApp, RuleRef{})
	tr = &router.Trace{}
	got := c.Route(call("queryAll", map[string]any{"dubbo.tag": "gray", "dubbo.force.tag": "true"}), tr)
	if len(got) != 0 || len(tr.Steps) != 2 || tr.Steps[1].Router != RouterTag {
		t.Errorf("forced missing tag: %s, trace %s", ports(got), tr)
	}
}

func TestTagRuleThenCondition(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", ""), invoker(t, "127.0.0.1:20882", "dubbo.tag=gray")})
	if got := ports(c.Route(call("queryAll", map[string]any{"dubbo.tag": "gray"}), nil)); got != "20882" {
		t.Errorf("static tag: %s", got)
	}
	if got := ports(c.Route(call("queryAll", nil), nil)); got != "20880,20881" {
		t.Errorf("untagged request: %s", got)
	}
	c.SetRule(SlotTag, tagRule(t, "force: false\nenabled: true\nkey: demo-provider\ntags:\n  - name: gray\n    addresses: [\"127.0.0.1:20881\"]\n"))
	if got := ports(c.Route(call("queryAll", map[string]any{"dubbo.tag": "gray"}), nil)); got != "20881" {
		t.Errorf("dynamic tag: %s", got)
	}
}

func TestMockRouter(t *testing.T) {
	c := New(consumerURL("c"), Options{Name: iface})
	mu, _ := common.NewURL("mock://127.0.0.1:0/" + iface + "?interface=" + iface)
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), base.NewBaseInvoker(mu)})
	if got := ports(c.Route(call("queryAll", nil), nil)); got != "20880" {
		t.Errorf("no attachment: %s", got)
	}
	if got := c.Route(call("queryAll", map[string]any{MockAttachment: "TRUE"}), nil); len(got) != 1 || got[0].GetURL().Protocol != "mock" {
		t.Errorf("need mock: %v", got)
	}
	if got := c.Route(call("queryAll", map[string]any{MockAttachment: "no"}), nil); len(got) != 2 {
		t.Errorf("other value passes through: %d", len(got))
	}
}

func TestGenericInvokeRoutesOnRealMethod(t *testing.T) {
	c := New(consumerURL("c"), Options{Name: iface})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")})
	c.SetRule(SlotService, condRule(t, "k", serviceRule))
	inv := invocation.NewRPCInvocation("$invoke", []any{"queryByName", []string{"java.lang.String"}, []any{"Go"}}, nil)
	if got := ports(c.Route(inv, nil)); got != "20881" {
		t.Errorf("generic queryByName: %s", got)
	}
}

// Java's condition router matches arguments[N] on the raw invocation
// arguments (spec §5.3): for a generic $invoke, arguments[0] is the method
// name, not the first real argument.
func TestGenericInvokeMatchesRawArguments(t *testing.T) {
	c := New(consumerURL("c"), Options{Name: iface})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")})
	rule := "force: true\nconditions:\n  - arguments[0] = queryByName => port = 20880\n  - arguments[0] = Go => port = 20881\n"
	c.SetRule(SlotService, condRule(t, "k", rule))
	inv := invocation.NewRPCInvocation("$invoke", []any{"queryByName", []string{"java.lang.String"}, []any{"Go"}}, nil)
	if got := ports(c.Route(inv, nil)); got != "20880" {
		t.Errorf("generic call routed on %s, want 20880 (arguments[0] is the method name)", got)
	}
	direct := invocation.NewRPCInvocation("queryByName", []any{"Go"}, nil)
	if got := ports(c.Route(direct, nil)); got != "20881" {
		t.Errorf("direct call routed on %s, want 20881", got)
	}
}

func TestListNoProviderCarriesTrace(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20882", "")})
	c.SetRule(SlotService, condRule(t, iface+"::.condition-router", serviceRule))
	if out, e := c.Routed(call("queryAll", nil)); e == nil || len(out) != 0 {
		t.Fatalf("Routed = %v, %v; want no invoker and the NoProviderError", out, e)
	}
	// dubbo-go's boundary: List answers with one invoker failing with it.
	got := c.List(call("queryAll", nil))
	if len(got) != 1 {
		t.Fatalf("List = %v, want the no-provider invoker", got)
	}
	res := got[0].Invoke(t.Context(), call("queryAll", nil))
	var e *NoProviderError
	if !errors.As(res.Error(), &e) {
		t.Fatalf("Invoke error = %v", res.Error())
	}
	msg := e.Error()
	for _, want := range []string{"queryAll", "service 1->0 force-empty", iface + "::.condition-router"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if got := c.List(call("queryAll", map[string]any{})); len(got) != 1 {
		t.Errorf("List length %d", len(got))
	}
}

func TestNoProviderNamesDroppedProviders(t *testing.T) {
	var dropped []Dropped
	for i := 0; i < 7; i++ {
		dropped = append(dropped, Dropped{Address: "127.0.0.1:2088" + strconv.Itoa(i), Reason: `protocol "dubbo", the reference wants "tri"`})
	}
	c := New(consumerURL("demo-consumer1"), Options{Name: iface, Dropped: func() []Dropped { return dropped }})
	_, e := c.Routed(call("queryAll", nil))
	if e == nil {
		t.Fatal("no providers: Routed must answer with a NoProviderError")
	}
	msg := e.Error()
	for _, want := range []string{
		"after routing 0 providers",
		`7 provider(s) dropped before routing: 127.0.0.1:20880 (protocol "dubbo", the reference wants "tri"), 127.0.0.1:20881`,
		"127.0.0.1:20884 (", "and 2 more",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "127.0.0.1:20885") {
		t.Errorf("error %q lists more than %d dropped providers", msg, maxDroppedShown)
	}
	dropped = nil
	_, e = c.Routed(call("queryAll", nil))
	if strings.Contains(e.Error(), "dropped") {
		t.Errorf("nothing dropped, but the error says %q", e.Error())
	}
	if want := "the registry delivered no provider of " + iface + ` with group "", version ""`; !strings.Contains(e.Error(), want) {
		t.Errorf("error %q lacks %q", e.Error(), want)
	}
}

func TestMaterializedSliceIsCached(t *testing.T) {
	c := New(consumerURL("c"), Options{Name: iface})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")})
	c.SetRule(SlotService, condRule(t, "k", serviceRule))
	a := c.Route(call("queryAll", nil), nil)
	b := c.Route(call("queryAll", nil), nil)
	if &a[0] != &b[0] {
		t.Error("same routed set materialised twice")
	}
	all := c.Route(call("other", nil), nil)
	if &all[0] != &c.Snapshot().Invokers[0] {
		t.Error("full set is not the snapshot's own slice")
	}
}

type countObs struct {
	routed   [len(RouterNames)][3]atomic.Int64
	rebuilds atomic.Int64
}

func (o *countObs) Routed(r int, out Outcome) { o.routed[r][out].Add(1) }
func (o *countObs) Rebuilt(int, float64)      { o.rebuilds.Add(1) }

func TestObserverCounts(t *testing.T) {
	o := &countObs{}
	c := New(consumerURL("c"), Options{Name: iface, Observer: o})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")})
	c.SetRule(SlotService, condRule(t, "k", serviceRule))
	c.Route(call("queryAll", nil), nil)
	c.Route(call("nothing", nil), nil)
	if got := o.routed[int(SlotService)+1][OutcomeFiltered].Load(); got != 1 {
		t.Errorf("service filtered = %d", got)
	}
	if got := o.routed[int(SlotService)+1][OutcomeKept].Load(); got != 1 {
		t.Errorf("service kept = %d", got)
	}
	if got := o.rebuilds.Load(); got != 3 {
		t.Errorf("rebuilds = %d, want 3", got)
	}
}

// TestOneSnapshotPerCall changes two rules together while calls route: in
// state A both send everything to 20880, in state B both to 20881, both with
// force. A call that mixed the rules of two snapshots would end empty.
func TestOneSnapshotPerCall(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	base3 := []base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")}
	extra := append(append([]base.Invoker{}, base3...), invoker(t, "127.0.0.1:20882", ""))
	state := func(port string) (RuleRef, RuleRef) {
		return condRule(t, "svc", "force: true\nenabled: true\nconditions:\n  - => port="+port+"\n"),
			condRule(t, "app", "force: true\nenabled: true\nconditions:\n  - => port="+port+"\n")
	}
	a1, a2 := state("20880")
	b1, b2 := state("20881")
	c.Update(func(in *Input) { in.Invokers = base3; in.Rules[SlotService] = a1; in.Rules[SlotConsumerApp] = a2 })
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Int64
	var calls atomic.Int64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inv := call("queryAll", nil)
			for !stop.Load() {
				got := c.Route(inv, nil)
				calls.Add(1)
				if len(got) != 1 {
					bad.Add(1)
				}
			}
		}()
	}
	for i := 0; i < 300; i++ {
		if i%2 == 0 {
			c.Update(func(in *Input) { in.Rules[SlotService] = b1; in.Rules[SlotConsumerApp] = b2; in.Invokers = extra })
		} else {
			c.Update(func(in *Input) { in.Rules[SlotService] = a1; in.Rules[SlotConsumerApp] = a2; in.Invokers = base3 })
		}
	}
	for calls.Load() < 1000 {
		c.Update(func(in *Input) {})
	}
	stop.Store(true)
	wg.Wait()
	if n := bad.Load(); n != 0 {
		t.Fatalf("%d of %d calls saw a mix of snapshots", n, calls.Load())
	}
}

func TestRouteDoesNotAllocate(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface, Observer: &countObs{}})
	c.SetInvokers(manyInvokers(t, 100))
	c.Update(func(in *Input) {
		in.Rules[SlotService] = condRule(t, "svc", serviceRule)
		in.Rules[SlotConsumerApp] = condRule(t, "app", appRule)
		in.Rules[SlotTag] = tagRule(t, "force: false\nenabled: true\ntags:\n  - name: gray\n    addresses: [\"10.0.0.3:20880\"]\n")
	})
	for _, inv := range []base.Invocation{
		call("queryAll", nil),
		call("queryByName", map[string]any{"dubbo.tag": "gray", "userId": "7"}),
		invocation.NewRPCInvocation("$invoke", []any{"queryAll", []string{}, []any{}}, nil),
	} {
		c.Route(inv, nil) // warm the memoised sets
		if n := testing.AllocsPerRun(200, func() { c.Route(inv, nil) }); n != 0 {
			t.Errorf("%s: %v allocs per Route", inv.MethodName(), n)
		}
	}
}

func manyInvokers(t testing.TB, n int) []base.Invoker {
	out := make([]base.Invoker, n)
	for i := range out {
		p := "20880"
		if i%2 == 1 {
			p = "20881"
		}
		extra := ""
		if i%4 == 2 {
			extra = "dubbo.tag=gray"
		}
		out[i] = invoker(t, fmt.Sprintf("10.%d.%d.%d:%s", i>>16&255, i>>8&255, i&255, p), extra)
	}
	return out
}

func BenchmarkChainRoute(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c := New(consumerURL("demo-consumer1"), Options{Name: iface})
			c.SetInvokers(manyInvokers(b, n))
			c.Update(func(in *Input) {
				in.Rules[SlotService] = condRule(b, "svc", serviceRule)
				in.Rules[SlotConsumerApp] = condRule(b, "app", appRule)
			})
			inv := call("queryAll", map[string]any{"dubbo.tag": "gray"})
			want := len(c.Route(inv, nil))
			if want == 0 {
				b.Fatal("benchmark routes to nobody")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(c.Route(inv, nil)) != want {
					b.Fatal("unstable route")
				}
			}
		})
	}
}
