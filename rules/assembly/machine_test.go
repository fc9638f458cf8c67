package assembly

import (
	"reflect"
	"sort"
	"testing"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/rules"
)

// meshToMissingSubset routes every call to a subset no provider has: Java
// cannot build a destination, the call finds no provider.
const meshToMissingSubset = `kind: DestinationRule
metadata: {name: b}
spec:
  subsets:
    - {name: none, labels: {zone: nowhere}}
---
kind: VirtualService
metadata: {name: b}
spec:
  dubbo:
    - routedetail:
        - route:
            - destination: {subset: none}
`

// disableAppB is a consumer configurator that disables every provider of
// application appB (its one provider, 10.0.0.3:20880).
const disableAppB = "configVersion: v3.0\nscope: application\nkey: c1\nconfigs:\n- side: consumer\n  providerAddresses: [10.0.0.3:20880]\n  parameters: {disabled: true}\n"

// driver performs a machine's effects against a map of key contents, as a
// rule source would: a subscription reads the key's content now.
type driver struct {
	t       *testing.T
	m       *Machine
	store   map[string]string
	sources map[string]*KeySource
	subs    []string // every subscription, in order
	unsubs  []string
	rules   cluster.Rules
}

func newDriver(t *testing.T, consumerURL string, store map[string]string) *driver {
	d := &driver{t: t, m: NewMachine(New(consumer(t, consumerURL)), Statics{}, true), store: store, sources: map[string]*KeySource{}}
	d.do(d.m.Start())
	return d
}

func (d *driver) do(e Effects) {
	d.unsubs = append(d.unsubs, e.Unsubscribe...)
	if e.Publish {
		d.rules = e.Rules
	}
	for _, s := range e.Subscribe {
		d.subs = append(d.subs, s.Key)
		src := d.sources[s.Key]
		if src == nil {
			src = &KeySource{Key: s.Key, Kind: s.Kind}
			d.sources[s.Key] = src
		}
		var c *string
		if v, ok := d.store[s.Key]; ok {
			c = &v
		}
		src.Read(c)
		d.do(d.m.Read(s.Key, src.Rule()))
	}
}

func (d *driver) set(key, content string) {
	d.store[key] = content
	if src := d.sources[key]; src != nil && d.m.Subscribed(key) && src.Event(&content) {
		d.do(d.m.Update(key, src.Rule()))
		if src.Kind == rules.KindConfigurators {
			d.do(d.m.Refresh())
		}
	}
}

func (d *driver) subscribed(key string) bool {
	for _, k := range d.subs {
		if k == key {
			return true
		}
	}
	return false
}

func providers(raw ...string) []*router.URL {
	out := make([]*router.URL, len(raw))
	for i, r := range raw {
		out[i] = router.MustParseURL(r)
	}
	return out
}

// TestRuleMachine: the one wiring of a reference's rules, event by event.
func TestRuleMachine(t *testing.T) {
	const cons = "consumer://10.0.0.1/com.foo.Bar?application=c1&interface=com.foo.Bar&side=consumer"
	pA := "dubbo://10.0.0.2:20880/com.foo.Bar?application=appA"
	pB := "dubbo://10.0.0.3:20880/com.foo.Bar?application=appB"

	t.Run("mesh keys of enabled providers only", func(t *testing.T) {
		// The case: a configurator disables every provider of appB,
		// appB.MESHAPPRULE routes to a subset that does not exist. Java's
		// mesh router follows the enabled providers' applications: appB's
		// key is never read, the call goes to appA's provider.
		d := newDriver(t, cons, map[string]string{"c1.configurators": disableAppB, "appB.MESHAPPRULE": meshToMissingSubset})
		urls := providers(pB, pA)
		d.do(d.m.Providers(urls))
		if d.subscribed("appB.MESHAPPRULE") {
			t.Fatalf("appB's mesh key subscribed although every appB provider is disabled: %v", d.subs)
		}
		if !d.subscribed("appA.MESHAPPRULE") || d.m.ProviderApp() != "appA" {
			t.Fatalf("follows %q, subscribed %v; want appA and its mesh key", d.m.ProviderApp(), d.subs)
		}
		if n := len(d.rules[cluster.SlotMesh].Mesh); n != 0 {
			t.Fatalf("mesh slot holds %d rules, want none", n)
		}
		cfg := d.m.ConfiguratorLists()
		if cfg == nil {
			t.Fatal("no configurators published")
		}
		snap, index := cluster.NewConfiguredSnapshot(d.m.ref.Consumer, urls, d.rules, cfg, cluster.Options{})
		got := cluster.NewEvaluator(snap, nil, cluster.Options{}).RouteSet(&router.Call{Method: "m"}, nil)
		if got.Len() != 1 {
			t.Fatalf("routed to %d providers, want appA's one", got.Len())
		}
		got.ForEach(func(i int) {
			if urls[index[i]].Application() != "appA" {
				t.Errorf("routed to %s, want appA's provider", urls[index[i]].Host)
			}
		})
		// Deleting the configurator enables appB: its key is read then.
		d.store["c1.configurators"] = ""
		if d.sources["c1.configurators"].Event(nil) {
			d.do(d.m.Update("c1.configurators", d.sources["c1.configurators"].Rule()))
			d.do(d.m.Refresh())
		}
		if !d.subscribed("appB.MESHAPPRULE") || len(d.rules[cluster.SlotMesh].Mesh) != 1 {
			t.Fatalf("after the configurator's delete: subscribed %v, mesh rules %d; want appB's key read and its rule in force", d.subs, len(d.rules[cluster.SlotMesh].Mesh))
		}
	})

	t.Run("a mesh application that left keeps its last rule, unsubscribed", func(t *testing.T) {
		d := newDriver(t, cons, map[string]string{"appB.MESHAPPRULE": meshToMissingSubset})
		d.do(d.m.Providers(providers(pA, pB)))
		d.do(d.m.Providers(providers(pA)))
		if !reflect.DeepEqual(d.unsubs, []string{"appB.MESHAPPRULE"}) {
			t.Fatalf("unsubscribed %v, want appB's mesh key", d.unsubs)
		}
		if len(d.rules[cluster.SlotMesh].Mesh) != 1 {
			t.Fatalf("mesh rules %d: Java's mesh router keeps the group of an application whose providers left", len(d.rules[cluster.SlotMesh].Mesh))
		}
		d.set("appB.MESHAPPRULE", "")
		if len(d.rules[cluster.SlotMesh].Mesh) != 1 {
			t.Fatal("an event of a dropped key changed the rules")
		}
	})

	t.Run("provider application: first enabled, switch drops the old keys", func(t *testing.T) {
		d := newDriver(t, cons, map[string]string{
			"appA.tag-router":       "force: false\ntags:\n  - name: gray\n    addresses: [10.0.0.2:20880]\n",
			"appA.condition-router": "conditions:\n  - => host = 10.0.0.2\n",
		})
		d.do(d.m.Providers(providers(pA, pB)))
		if d.rules[cluster.SlotTag].Key != "appA.tag-router" || d.rules[cluster.SlotProviderApp].Key != "appA.condition-router" {
			t.Fatalf("rules after the first notification: tag %q provider-app %q", d.rules[cluster.SlotTag].Key, d.rules[cluster.SlotProviderApp].Key)
		}
		d.do(d.m.Providers(providers(pB, pA)))
		sort.Strings(d.unsubs)
		want := []string{"appA.condition-router", "appA.gray-router", "appA.script-router", "appA.tag-router"}
		if !reflect.DeepEqual(d.unsubs, want) {
			t.Fatalf("unsubscribed %v, want %v", d.unsubs, want)
		}
		if d.m.ProviderApp() != "appB" || d.m.EarlierApp() != "appA" {
			t.Fatalf("follows %q after %q", d.m.ProviderApp(), d.m.EarlierApp())
		}
		if !d.rules[cluster.SlotTag].Empty() {
			t.Errorf("tag slot keeps %q; appB has no tag rule", d.rules[cluster.SlotTag].Key)
		}
		// ProviderAppStateRouter applies the new key only when it holds a
		// rule: appA's stays.
		if d.rules[cluster.SlotProviderApp].Key != "appA.condition-router" {
			t.Errorf("provider-app slot %q, want appA's rule kept", d.rules[cluster.SlotProviderApp].Key)
		}
		before := d.rules[cluster.SlotProviderApp]
		d.set("appA.condition-router", "conditions:\n  - => host = 10.0.0.9\n")
		if d.rules[cluster.SlotProviderApp].Condition != before.Condition {
			t.Errorf("an event of a dropped key changed the slot to version %q", d.rules[cluster.SlotProviderApp].Version)
		}
		// An empty notification keeps the application followed.
		d.do(d.m.Providers(nil))
		if d.m.ProviderApp() != "appB" {
			t.Errorf("an empty list changed the application to %q", d.m.ProviderApp())
		}
	})

	t.Run("consumer-app key feeds both slots; last changed wins", func(t *testing.T) {
		d := newDriver(t, cons, map[string]string{"c1.condition-router": "conditions:\n  - => host = 10.0.0.2\n"})
		if d.rules[cluster.SlotConsumerApp].Key != "c1.condition-router" || d.rules[cluster.SlotProviderApp].Key != "c1.condition-router" {
			t.Fatalf("consumer-app rule in %q and %q", d.rules[cluster.SlotConsumerApp].Key, d.rules[cluster.SlotProviderApp].Key)
		}
		d.store["appA.condition-router"] = "conditions:\n  - => host = 10.0.0.3\n"
		d.do(d.m.Providers(providers(pA)))
		if d.rules[cluster.SlotProviderApp].Key != "appA.condition-router" {
			t.Fatalf("provider-app slot %q after the notification", d.rules[cluster.SlotProviderApp].Key)
		}
		d.set("c1.condition-router", "conditions:\n  - => host = 10.0.0.4\n")
		if d.rules[cluster.SlotProviderApp].Key != "c1.condition-router" {
			t.Errorf("provider-app slot %q; the consumer-app key changed last", d.rules[cluster.SlotProviderApp].Key)
		}
	})

	t.Run("a rejected change keeps the rule; statics until a config-center rule", func(t *testing.T) {
		static := cluster.RuleRef{Key: "static:com.foo.Bar", Version: "static", Condition: d0(t)}
		m := NewMachine(New(consumer(t, cons)), Statics{Slots: cluster.Rules{cluster.SlotService: static}}, true)
		e := m.Start()
		if !e.Publish || e.Rules[cluster.SlotService].Key != static.Key {
			t.Fatalf("start publishes %+v", e.Rules[cluster.SlotService])
		}
		src := &KeySource{Key: "com.foo.Bar::.condition-router", Kind: rules.KindCondition}
		good, bad := "conditions:\n  - => host = 10.0.0.2\n", "conditions: ["
		src.Read(&good)
		if e := m.Read(src.Key, src.Rule()); e.Rules[cluster.SlotService].Key != src.Key {
			t.Fatalf("dynamic rule does not win over the static one: %q", e.Rules[cluster.SlotService].Key)
		}
		if src.Event(&bad) {
			t.Fatal("a rule that does not parse changed the key's rule")
		}
		if src.Last.Outcome != OutcomeRejected {
			t.Errorf("outcome %v", src.Last.Outcome)
		}
		// A delete of the config-center rule leaves no rule: dubbo-go's
		// router held the static rule only until a config-center rule
		// replaced it.
		src.Event(nil)
		if e := m.Update(src.Key, src.Rule()); !e.Rules[cluster.SlotService].Empty() {
			t.Errorf("after the delete the slot holds %q, want none (dubbo-go's precedence)", e.Rules[cluster.SlotService].Key)
		}
	})
}

func d0(t *testing.T) *condition.Rule {
	t.Helper()
	p, err := rules.Parse(rules.KindCondition, "conditions:\n  - => host = 10.0.0.2\n")
	if err != nil {
		t.Fatal(err)
	}
	return p.Condition
}
