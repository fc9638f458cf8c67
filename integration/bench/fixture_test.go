package bench

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	dgrouter "dubbo.apache.org/dubbo-go/v3/cluster/router"
	"dubbo.apache.org/dubbo-go/v3/cluster/router/chain"
	dgcond "dubbo.apache.org/dubbo-go/v3/cluster/router/condition"
	dgtag "dubbo.apache.org/dubbo-go/v3/cluster/router/tag"
	"dubbo.apache.org/dubbo-go/v3/common"
	conf "dubbo.apache.org/dubbo-go/v3/common/config"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/remoting"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
)

// sizes are the provider counts every benchmark sweeps.
var sizes = []int{10, 100, 1000, 10000}

const (
	iface       = "com.muke.dubbocourse.common.api.BookFacade"
	providerApp = "demo-provider"
	consumerApp = "demo-consumer1"

	serviceKey = iface + "::.condition-router"
	appKey     = providerApp + ".condition-router"
	tagKey     = providerApp + ".tag-router"

	consumerText = "consumer://10.0.9.9/" + iface + "?application=" + consumerApp +
		"&interface=" + iface + "&side=consumer&methods=queryAll,queryByName&pid=4242&release=3.3.2"
)

// ourServiceRule is the seeds' service rule, exactly as Dubbo Admin stores it.
const ourServiceRule = `scope: service
force: true
runtime: true
enabled: true
key: com.muke.dubbocourse.common.api.BookFacade
conditions:
  - method=queryAll => address=*:20880
  - method=queryByName => address=*:20881
`

// dubbogoServiceRule selects the same providers in the form dubbo-go can
// match: port= instead of address= (no address key in its URL map), a
// configVersion (it rejects a rule without one), and enabled and force both
// true (3.3.2 reads them swapped).
const dubbogoServiceRule = `configVersion: v3.0
scope: service
force: true
runtime: true
enabled: true
key: com.muke.dubbocourse.common.api.BookFacade
conditions:
  - method=queryAll => port=20880
  - method=queryByName => port=20881
`

// appRule is the provider-application condition rule, the same text for
// both sides: demo-consumer1 is kept away from the shanghai providers.
const appRule = `configVersion: v3.0
scope: application
force: true
runtime: true
enabled: true
key: demo-provider
conditions:
  - application=demo-consumer1 => region=hangzhou,beijing
`

var regions = []string{"hangzhou", "beijing", "shanghai"}

// providerURL is provider i of a fleet: ports alternate 20880/20881,
// half of the providers carry the static tag gray (both ports), regions
// change every 10 providers.
func providerURL(i int) string {
	port := 20880 + i%2
	s := fmt.Sprintf("dubbo://10.%d.%d.%d:%d/%s?anyhost=true&application=%s&deprecated=false&dubbo=2.0.2&dynamic=true"+
		"&generic=false&interface=%s&methods=queryAll,queryByName&pid=%d&region=%s&release=3.3.0&service-name-mapping=true"+
		"&side=provider&timestamp=1700000000000",
		i>>16&255, i>>8&255, i&255, port, iface, providerApp, iface, 1000+i, regions[(i/10)%3])
	if (i/2)%2 == 1 {
		s += "&dubbo.tag=gray"
	}
	return s
}

// inGrayPool: provider i is one of the addresses of the tag rule's gray
// pool (20 % of the fleet, on both ports).
func inGrayPool(i int) bool { return i%10 == 0 || i%10 == 5 }

func address(i int) string {
	return fmt.Sprintf("10.%d.%d.%d:%d", i>>16&255, i>>8&255, i&255, 20880+i%2)
}

// tagRule is the dynamic tag rule (same text for both sides): the tag gray
// is the addresses of the gray pool among the first n providers (the
// benchmarks use the whole fleet, so the rule grows with it; the rebuild
// benchmark also uses a fixed-size rule).
func tagRule(n int) string {
	var b strings.Builder
	b.WriteString("force: false\nruntime: true\nenabled: true\npriority: 1\nkey: demo-provider\ntags:\n  - name: gray\n    addresses:\n")
	for i := 0; i < n; i++ {
		if inGrayPool(i) {
			fmt.Fprintf(&b, "      - \"%s\"\n", address(i))
		}
	}
	return b.String()
}

// fleet is one provider list with both sides' views.
type fleet struct {
	n        int
	invokers []base.Invoker
	consumer *common.URL // dubbo-go's consumer URL
	ours     *router.URL // the same URL for dubboroute
}

func newFleet(tb testing.TB, n int) *fleet {
	tb.Helper()
	f := &fleet{n: n, invokers: make([]base.Invoker, n)}
	for i := range f.invokers {
		u, err := common.NewURL(providerURL(i))
		if err != nil {
			tb.Fatal(err)
		}
		f.invokers[i] = base.NewBaseInvoker(u)
	}
	cu, err := common.NewURL(consumerText)
	if err != nil {
		tb.Fatal(err)
	}
	f.consumer = cu
	f.ours = router.MustParseURL(consumerText)
	return f
}

// withJoined returns the fleet's invokers plus one more provider.
func (f *fleet) withJoined(tb testing.TB) []base.Invoker {
	u, err := common.NewURL(providerURL(f.n))
	if err != nil {
		tb.Fatal(err)
	}
	return append(append(make([]base.Invoker, 0, f.n+1), f.invokers...), base.NewBaseInvoker(u))
}

// calls are the benchmark invocations, used in turn: queryAll and
// queryByName, each without and with dubbo.tag=gray.
type callSpec struct {
	name   string
	method string
	args   []any
	gray   bool
}

var callSpecs = []callSpec{
	{"queryAll", "queryAll", []any{}, false},
	{"queryByName", "queryByName", []any{"Go"}, false},
	{"queryAll+gray", "queryAll", []any{}, true},
	{"queryByName+gray", "queryByName", []any{"Go"}, true},
}

// newCalls makes one invocation per call spec (the benchmarks reuse them).
func newCalls() []*invocation.RPCInvocation {
	out := make([]*invocation.RPCInvocation, len(callSpecs))
	for i, c := range callSpecs {
		var att map[string]any
		if c.gray {
			att = map[string]any{constant.Tagkey: "gray"}
		}
		out[i] = invocation.NewRPCInvocation(c.method, c.args, att)
	}
	return out
}

// fresh prepares a reused invocation for its next call the way a new one
// would start: without the RouterCacheDisable attribute that dubbo-go's
// RouterChain.Route leaves behind (it would switch its tag router's bitmap
// cache off for every later call of this invocation).
func fresh(inv *invocation.RPCInvocation) *invocation.RPCInvocation {
	delete(inv.Attributes(), constant.RouterCacheDisable)
	return inv
}

// --- dubboroute ---

func parseCond(tb testing.TB, key, text string) cluster.RuleRef {
	tb.Helper()
	r, err := condition.ParseRule(text)
	if err != nil {
		tb.Fatalf("%s: %v", key, err)
	}
	return cluster.RuleRef{Key: key, Version: "3.0#1", Condition: r}
}

func parseTag(tb testing.TB, text string) cluster.RuleRef {
	tb.Helper()
	r, err := tag.ParseRuleWith(text, nil)
	if err != nil {
		tb.Fatalf("%s: %v", tagKey, err)
	}
	return cluster.RuleRef{Key: tagKey, Version: "1", Tag: r}
}

// ourChain is dubboroute's chain over the fleet with the given tag and
// service rules and the application rule.
func ourChain(tb testing.TB, f *fleet, tagText, service string) *cluster.Chain {
	tb.Helper()
	c := cluster.New(f.ours, cluster.Options{Name: iface})
	c.SetInvokers(f.invokers)
	tr, sr, ar := parseTag(tb, tagText), parseCond(tb, serviceKey, service), parseCond(tb, appKey, appRule)
	c.Update(func(in *cluster.Input) {
		in.Rules[cluster.SlotTag] = tr
		in.Rules[cluster.SlotService] = sr
		in.Rules[cluster.SlotProviderApp] = ar
	})
	return c
}

// --- dubbo-go ---

var (
	dgOnce   sync.Once
	dgConfig = memory.NewConfigStore()
)

// dubbogoConfig installs, once per process, an in-memory config center as
// dubbo-go's dynamic configuration, the object its ZooKeeper config center
// would install; dubbo-go's routers read their rules from it on
// SetInvokers (Notify -> AddListener, GetRule -> Process).
func dubbogoConfig() *memory.ConfigStore {
	dgOnce.Do(func() {
		conf.GetEnvInstance().SetDynamicConfiguration(memory.NewDynamicConfiguration(dgConfig, memory.DefaultGroup))
	})
	return dgConfig
}

// putDubbogoRules replaces the dubbo-go side's config center content with
// the given tag and service rules and the application rule. It drops the
// listeners of routers built before, so a later rule change reaches only the
// routers built after this call.
func putDubbogoRules(tagText, service string) {
	s := dubbogoConfig()
	s.Reset()
	s.Put(memory.DefaultGroup, tagKey, tagText)
	s.Put(memory.DefaultGroup, serviceKey, service)
	s.Put(memory.DefaultGroup, appKey, appRule)
}

// checkDubbogoFactories fails unless every registered router factory is
// dubbo-go's own (so nothing of dubboroute replaced them in this process).
func checkDubbogoFactories(tb testing.TB) {
	tb.Helper()
	fs := dgext.GetRouterFactories()
	for name, f := range fs {
		switch f().(type) {
		case *dgtag.RouteFactory, *dgcond.ServiceRouteFactory, *dgcond.AppConditionRouterFactory:
		default:
			tb.Fatalf("router factory %q is %T, not dubbo-go's: the dubbo-go side would not be dubbo-go", name, f())
		}
	}
	for _, want := range []string{constant.TagRouterFactoryKey, constant.ConditionServiceRouterFactoryKey, constant.ConditionAppRouterFactoryKey} {
		if fs[want] == nil {
			tb.Fatalf("dubbo-go router factory %q is not registered", want)
		}
	}
}

// dubbogoChain is dubbo-go's RouterChain (its tag, service-condition and
// provider-condition routers) over the fleet, with the given tag and service
// rules and the application rule read from its config center. It is built per fleet; the routers keep
// listening to the config center, so later rule puts reach them too.
func dubbogoChain(tb testing.TB, f *fleet, tagText, service string) *chain.RouterChain {
	tb.Helper()
	checkDubbogoFactories(tb)
	putDubbogoRules(tagText, service)
	c, err := chain.NewRouterChain(f.consumer.Clone())
	if err != nil {
		tb.Fatal(err)
	}
	c.SetInvokers(f.invokers)
	return c
}

// dubbogoServiceRouter is dubbo-go's service condition router alone, fed the
// rule by its own Process as the config-center listener would.
func dubbogoServiceRouter(text string) *dgcond.ServiceRouter {
	r := dgcond.NewServiceRouter()
	r.Process(&config_center.ConfigChangeEvent{Key: serviceKey, Value: text, ConfigType: remoting.EventTypeAdd})
	return r
}

// dubbogoTagRouter is dubbo-go's tag router with its rule and with the bitmap
// cache a RouterChain gives its first router: it is added to a RouterChain
// that then receives the invokers. It returns the router and the cache
// generation a call must carry to use that cache.
func dubbogoTagRouter(tb testing.TB, f *fleet) (*dgtag.PriorityRouter, uint64) {
	tb.Helper()
	checkDubbogoFactories(tb)
	putDubbogoRules(tagRule(f.n), dubbogoServiceRule)
	r, err := dgtag.NewTagPriorityRouter()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := chain.NewRouterChain(f.consumer.Clone())
	if err != nil {
		tb.Fatal(err)
	}
	c.AddRouters([]dgrouter.PriorityRouter{r})
	c.SetInvokers(f.invokers) // Notify: the rule from the config center; cache rebuilt
	probe := invocation.NewRPCInvocation("probe", nil, nil)
	c.Route(f.consumer, probe)
	gen, _ := probe.GetAttribute(constant.RouterChainCacheGeneration)
	g, ok := gen.(uint64)
	if !ok || g == 0 {
		tb.Fatalf("no chain cache generation: %v", gen)
	}
	return r, g
}

// withGeneration marks an invocation as routed on a chain snapshot, so a
// Poolable router may use that snapshot's cache.
func withGeneration(inv *invocation.RPCInvocation, gen uint64) *invocation.RPCInvocation {
	inv.SetAttribute(constant.RouterChainCacheGeneration, gen)
	return inv
}

func TestMain(m *testing.M) {
	// dubbo-go logs every rule it parses (the whole rule) at info level.
	logger.SetLoggerLevel("error")
	os.Exit(m.Run())
}

// addresses lists host:port of invokers, in order.
func addresses(ivks []base.Invoker) []string {
	out := make([]string, len(ivks))
	for i, iv := range ivks {
		out[i] = iv.GetURL().Location
	}
	return out
}
