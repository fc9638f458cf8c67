package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/affinity"
	"github.com/dubboroute/dubboroute/router/mesh"
)

func cfgLists(t *testing.T, app, svc string) *configurator.Lists {
	t.Helper()
	var l configurator.Lists
	for i, text := range []string{app, svc} {
		if text == "" {
			continue
		}
		r, err := configurator.Parse(fmt.Sprintf("k%d.configurators", i), text)
		if err != nil {
			t.Fatal(err)
		}
		l[configurator.ListApp+i] = r.List
	}
	return &l
}

// countingInvoker counts GetURL calls (the chain parses a provider URL
// through it).
type countingInvoker struct {
	base.Invoker
	n *atomic.Int64
}

func (c countingInvoker) GetURL() *common.URL { c.n.Add(1); return c.Invoker.GetURL() }

// TestConfiguredChainMatchesFresh: with configurators changing between
// rebuilds (disabling providers, changing their dubbo.tag, weights), every
// snapshot of a chain equals one built from scratch
// (NewConfiguredSnapshot) over the same providers, rules and
// configurators: the same members, disabled providers and routing.
func TestConfiguredChainMatchesFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	var pool []base.Invoker
	for i := 0; i < 40; i++ {
		params := fmt.Sprintf("region=r%d", i%4)
		if i%3 == 1 {
			params += "&dubbo.tag=gray"
		}
		pool = append(pool, invoker(t, fmt.Sprintf("10.0.0.%d:%d", i, 20880+i%2), params))
	}
	cfgs := []*configurator.Lists{
		nil,
		cfgLists(t, "configVersion: v3.0\nscope: application\nkey: demo-consumer1\nconfigs:\n- side: consumer\n  providerAddresses: [10.0.0.3:20881, 10.0.0.4:20880]\n  parameters: {disabled: true}\n", ""),
		cfgLists(t, "", "configVersion: v3.0\nkey: "+iface+"\nconfigs:\n- side: consumer\n  match: {param: [{key: application, value: {exact: demo-consumer1}}]}\n  providerAddresses: [10.0.0.1:20881, 10.0.0.2:20880]\n  parameters: {dubbo.tag: blue, weight: 7}\n"),
		cfgLists(t, "configVersion: v2.7\nscope: application\nkey: demo-consumer1\nconfigs:\n- side: consumer\n  parameters: {dubbo.tag: gray}\n", ""),
	}
	tagRule := tagRule(t, "force: false\nenabled: true\nkey: demo-provider\ntags:\n  - name: blue\n    addresses: [\"10.0.0.7:20881\"]\n")
	calls := []router.Call{
		{Method: "queryAll"},
		{Method: "queryAll", Attachments: router.AttachmentMap{"dubbo.tag": "gray"}},
		{Method: "queryAll", Attachments: router.AttachmentMap{"dubbo.tag": "blue", "dubbo.force.tag": "true"}},
	}
	consumer := consumerURL("demo-consumer1")
	c := New(consumer, Options{Name: iface})
	cur := append([]base.Invoker(nil), pool[:20]...)
	var cfg *configurator.Lists
	for step := 0; step < 200; step++ {
		switch r.IntN(4) {
		case 0:
			cur = append(cur, pool[r.IntN(len(pool))])
		case 1:
			if len(cur) > 0 {
				i := r.IntN(len(cur))
				cur = append(cur[:i:i], cur[i+1:]...)
			}
		case 2:
			cfg = cfgs[r.IntN(len(cfgs))]
			c.Update(func(in *Input) { in.Configurators = cfg })
		case 3:
			if r.IntN(2) == 0 {
				c.SetRule(SlotTag, tagRule)
			} else {
				c.SetRule(SlotTag, RuleRef{})
			}
		}
		c.SetInvokers(cur)
		got := c.Snapshot()
		var all []*router.URL
		for _, ivk := range cur {
			all = append(all, c.urls.get(ivk).u())
		}
		want, _ := NewConfiguredSnapshot(consumer, all, got.Rules, cfg, Options{})
		same := len(got.URLs) == len(want.URLs)
		for i := 0; same && i < len(got.URLs); i++ {
			same = got.URLs[i] == want.URLs[i]
		}
		if !same || len(got.Disabled) != len(want.Disabled) {
			t.Fatalf("step %d: members %d (disabled %d), fresh %d (disabled %d)", step, len(got.URLs), len(got.Disabled), len(want.URLs), len(want.Disabled))
		}
		for _, call := range calls {
			var t1, t2 router.Trace
			g, w := got.RouteSet(&call, &t1, nil), want.RouteSet(&call, &t2, nil)
			if !reflect.DeepEqual(members(g), members(w)) || !reflect.DeepEqual(t1, t2) {
				t.Fatalf("step %d, %v: chain %v, fresh %v\n%s\n%s", step, call.Attachments, members(g), members(w), t1.String(), t2.String())
			}
		}
	}
}

// TestConfiguratorChangeReadsNoProviderURL: a configurator change
// rebuilds the snapshot without reading any provider's dubbo-go URL again
// (only providers that join are read), and a provider it disables is gone
// before any router.
func TestConfiguratorChangeReadsNoProviderURL(t *testing.T) {
	var n atomic.Int64
	var ivks []base.Invoker
	for i := 0; i < 100; i++ {
		ivks = append(ivks, countingInvoker{invoker(t, fmt.Sprintf("10.0.1.%d:20880", i), ""), &n})
	}
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	c.SetInvokers(ivks)
	read := n.Load()
	if read == 0 {
		t.Fatal("the chain read no URL")
	}
	c.Update(func(in *Input) {
		in.Configurators = cfgLists(t, "configVersion: v3.0\nscope: application\nkey: demo-consumer1\nconfigs:\n- side: consumer\n  providerAddresses: [10.0.1.5:20880]\n  parameters: {disabled: true}\n", "")
	})
	if got := n.Load(); got != read {
		t.Errorf("a configurator change read %d provider URLs", got-read)
	}
	s := c.Snapshot()
	if len(s.Invokers) != 99 || len(s.Disabled) != 1 || s.Disabled[0].URL.Host != "10.0.1.5" {
		t.Errorf("snapshot: %d invokers, disabled %+v", len(s.Invokers), s.Disabled)
	}
	c.Update(func(in *Input) { in.Configurators = nil })
	if got := n.Load(); got != read {
		t.Errorf("removing the configurators read %d provider URLs", got-read)
	}
	if s := c.Snapshot(); len(s.Invokers) != 100 || len(s.Disabled) != 0 {
		t.Errorf("after delete: %d invokers, %d disabled", len(s.Invokers), len(s.Disabled))
	}
}

// TestConfiguredRouteDoesNotAllocate: with configurators in force (a
// disabled provider, a configured dubbo.tag and weight), routing a call
// still allocates nothing: all of it happened when the snapshot was built.
func TestConfiguredRouteDoesNotAllocate(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface, Observer: &countObs{}})
	c.SetInvokers(manyInvokers(t, 100))
	c.Update(func(in *Input) {
		in.Rules[SlotTag] = tagRule(t, "force: false\nenabled: true\ntags:\n  - name: gray\n    addresses: [\"10.0.0.3:20880\"]\n")
		in.Configurators = cfgLists(t, "configVersion: v3.0\nscope: application\nkey: demo-consumer1\nconfigs:\n- side: consumer\n  providerAddresses: [10.0.0.4:20880]\n  parameters: {disabled: true}\n- side: consumer\n  providerAddresses: [10.0.0.8:20880]\n  parameters: {dubbo.tag: blue, weight: 7}\n", "")
	})
	if s := c.Snapshot(); len(s.Disabled) != 1 {
		t.Fatalf("disabled: %+v", s.Disabled)
	}
	for _, inv := range []base.Invocation{
		call("queryAll", nil),
		call("queryByName", map[string]any{"dubbo.tag": "blue"}),
	} {
		c.Route(inv, nil)
		if n := testing.AllocsPerRun(200, func() { c.Route(inv, nil) }); n != 0 {
			t.Errorf("%s: %v allocs per Route", inv.MethodName(), n)
		}
	}
	var tr router.Trace
	got := c.Snapshot().RouteSet(&router.Call{Method: "queryAll", Attachments: router.AttachmentMap{"dubbo.tag": "blue"}}, &tr, nil)
	if got.Len() != 1 {
		t.Errorf("dubbo.tag blue (configured on one provider): %d providers\n%s", got.Len(), tr.String())
	}
}

// TestMeshAndAffinitySeeConfiguredURLs: every router works on the providers
// the configurators left, and reads what Java's reads on a configured
// DubboServiceAddressURL: a mesh subset label sees a value a configurator
// wrote (override URL first) and, with any configurator list, a label
// application: <provider-app> no longer matches (the override URL carries
// the consumer's application); affinity matches the providers' own
// parameters and takes its value from the original consumer URL.
func TestMeshAndAffinitySeeConfiguredURLs(t *testing.T) {
	var ivks []base.Invoker
	for i := 1; i <= 4; i++ {
		ivks = append(ivks, invoker(t, fmt.Sprintf("10.0.0.%d:20880", i), fmt.Sprintf("ver=v1&region=r%d", i%2)))
	}
	meshRule, err := mesh.ParseRule(`kind: DestinationRule
metadata: {name: r}
spec:
  subsets:
    - {name: v2, labels: {ver: v2}}
    - {name: app, labels: {application: demo-provider}}
---
kind: VirtualService
metadata: {name: r}
spec:
  dubbo:
    - routedetail:
        - match: [{method: {name_match: {exact: queryAll}}}]
          route: [{destination: {subset: v2}}]
        - route: [{destination: {subset: app}}]
`)
	if err != nil {
		t.Fatal(err)
	}
	aff, err := affinity.ParseRule("configVersion: v3.1\nscope: service\nkey: x\naffinityAware: {key: region, ratio: 0}\n")
	if err != nil {
		t.Fatal(err)
	}
	consumer := router.MustParseURL("consumer://10.0.0.9/" + iface + "?application=demo-consumer1&interface=" + iface + "&side=consumer&region=r1")
	c := New(consumer, Options{Name: iface})
	c.SetInvokers(ivks)
	c.Update(func(in *Input) {
		in.Rules[SlotMesh] = RuleRef{Mesh: []mesh.AppRule{{App: "demo-provider", Key: "demo-provider.MESHAPPRULE", Version: "1", Rule: meshRule}}}
	})
	hosts := func(inv base.Invocation) string {
		var hs []string
		for _, i := range c.Route(inv, nil) {
			hs = append(hs, i.GetURL().Ip)
		}
		return fmt.Sprint(hs)
	}
	// No configurator: no provider has ver v2 (mesh's empty protection keeps
	// all four); the application subset holds them all.
	if got := hosts(call("queryAll", nil)); got != "[10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4]" {
		t.Fatalf("without configurators: %s", got)
	}
	// A configurator writes ver v2 on 10.0.0.3, disables 10.0.0.4 and
	// rewrites the consumer's region (affinity still reads r1).
	c.Update(func(in *Input) {
		in.Configurators = cfgLists(t, "configVersion: v3.0\nscope: application\nkey: demo-consumer1\nconfigs:\n"+
			"- side: consumer\n  providerAddresses: [10.0.0.3:20880]\n  parameters: {ver: v2, region: r0}\n"+
			"- side: consumer\n  providerAddresses: [10.0.0.4:20880]\n  parameters: {disabled: true}\n"+
			"- side: consumer\n  parameters: {region: r0}\n", "")
	})
	if s := c.Snapshot(); len(s.Disabled) != 1 || s.Consumer.Params.Value("region") != "r0" {
		t.Fatalf("disabled %d, configured consumer region %q", len(s.Disabled), s.Consumer.Params.Value("region"))
	}
	if got := hosts(call("queryAll", nil)); got != "[10.0.0.3]" {
		t.Errorf("mesh subset ver v2 (configured on 10.0.0.3): %s", got)
	}
	// application: demo-provider now reads the override URL's application
	// (the consumer's): the subset is empty and mesh keeps its input.
	if got := hosts(call("queryByName", nil)); got != "[10.0.0.1 10.0.0.2 10.0.0.3]" {
		t.Errorf("mesh subset application (override URL: the consumer's): %s", got)
	}
	c.Update(func(in *Input) {
		in.Rules[SlotMesh] = RuleRef{}
		in.Rules[SlotAffinity] = RuleRef{Key: iface + "::.affinity-router", Version: "1", Affinity: aff}
	})
	// Affinity on region: the original consumer's r1 against the providers'
	// own region (10.0.0.3's configured r0 does not count; 10.0.0.1 and
	// 10.0.0.3 registered r1).
	if got := hosts(call("queryAll", nil)); got != "[10.0.0.1 10.0.0.3]" {
		t.Errorf("affinity: %s", got)
	}
}
