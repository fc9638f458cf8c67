package memory

import (
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"
)

type recListener struct {
	events []config_center.ConfigChangeEvent
}

func (r *recListener) Process(e *config_center.ConfigChangeEvent) { r.events = append(r.events, *e) }

func TestConfigEventsLikeZooKeeper(t *testing.T) {
	s := NewConfigStore()
	dc := NewDynamicConfiguration(s, "")
	l := &recListener{}
	dc.AddListener("app.tag-router", l)
	dc.AddListener("app.tag-router", l) // same listener twice: one subscription
	if n := s.Listeners(DefaultGroup, "app.tag-router"); n != 1 {
		t.Fatalf("listeners = %d, want 1", n)
	}
	s.Put(DefaultGroup, "app.tag-router", "a")
	s.Put(DefaultGroup, "app.tag-router", "b")
	s.Put(DefaultGroup, "app.tag-router", "")
	s.Delete(DefaultGroup, "app.tag-router") // already gone: no event
	s.Put(DefaultGroup, "app.tag-router", "c")
	s.Delete(DefaultGroup, "app.tag-router")
	s.Put(DefaultGroup, "other", "x") // other key: not delivered
	want := []struct {
		v string
		t remoting.EventType
	}{{"a", remoting.EventTypeAdd}, {"b", remoting.EventTypeAdd}, {"", remoting.EventTypeDel}, {"c", remoting.EventTypeAdd}, {"", remoting.EventTypeDel}}
	if len(l.events) != len(want) {
		t.Fatalf("events = %+v", l.events)
	}
	for i, w := range want {
		e := l.events[i]
		if e.Key != "app.tag-router" || e.Value != w.v || e.ConfigType != w.t {
			t.Errorf("event %d = %+v, want %q %v", i, e, w.v, w.t)
		}
	}
	if v, _ := dc.GetRule("other"); v != "x" {
		t.Errorf("GetRule(other) = %q", v)
	}
	if v, err := dc.GetRule("missing"); v != "" || err != nil {
		t.Errorf("GetRule(missing) = %q, %v", v, err)
	}
	if v, _ := dc.GetProperties("other", config_center.WithGroup("elsewhere")); v != "" {
		t.Errorf("group option ignored: %q", v)
	}
	dc.RemoveListener("app.tag-router", l)
	s.Put(DefaultGroup, "app.tag-router", "d")
	if len(l.events) != len(want) {
		t.Errorf("removed listener still called")
	}
}

func TestConfigCenterExtensionRegistered(t *testing.T) {
	f, err := extension.GetConfigCenterFactory(Name)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := common.NewURL("memory://127.0.0.1:0")
	dc, err := f.GetDynamicConfiguration(u)
	if err != nil {
		t.Fatal(err)
	}
	PutRule("k.condition-router", "v")
	defer DeleteRule("k.condition-router")
	if v, _ := dc.GetRule("k.condition-router"); v != "v" {
		t.Errorf("GetRule = %q", v)
	}
}

type recNotify struct{ lists [][]string }

func (r *recNotify) Notify(*registry.ServiceEvent) {}
func (r *recNotify) NotifyAll(es []*registry.ServiceEvent, done func()) {
	var l []string
	for _, e := range es {
		l = append(l, e.Service.Location)
	}
	r.lists = append(r.lists, l)
	done()
}

func providerURL(t *testing.T, port string) *common.URL {
	t.Helper()
	u := common.NewURLWithOptions(common.WithProtocol("dubbo"), common.WithPort(port),
		common.WithPath("com.foo.Bar"), common.WithMethods([]string{"a", "b"}),
		common.WithParamsValue(constant.InterfaceKey, "com.foo.Bar"),
		common.WithParamsValue(constant.ApplicationKey, "p"),
		common.WithParamsValue(constant.RegistryRoleKey, "3"))
	return u
}

func TestRegistryInterfaceLevel(t *testing.T) {
	Registry.Reset()
	defer Registry.Reset()
	ru, _ := common.NewURL("memory://127.0.0.1:0")
	r1, err := extension.GetRegistry(Name, ru)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := extension.GetRegistry(Name, ru)
	if err := r1.Register(providerURL(t, "20880")); err != nil {
		t.Fatal(err)
	}
	consumer, _ := common.NewURL("dubbo://:0/com.foo.Bar?interface=com.foo.Bar")
	l := &recNotify{}
	if err := r2.Subscribe(consumer, l); err != nil {
		t.Fatal(err)
	}
	if err := r2.Register(providerURL(t, "20881")); err != nil {
		t.Fatal(err)
	}
	r1.Destroy() // drops 20880 like a closed ZooKeeper session
	got := []string{}
	for _, l := range l.lists {
		got = append(got, strings.Join(l, ","))
	}
	want := []string{"127.0.0.1:20880", "127.0.0.1:20880,127.0.0.1:20881", "127.0.0.1:20881"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("lists = %q, want %q", got, want)
	}
	ps := Registry.Providers("com.foo.Bar")
	if len(ps) != 1 || !strings.Contains(ps[0], "anyhost=true") || !strings.Contains(ps[0], "methods=a,b") {
		t.Errorf("providers = %q", ps)
	}
	other, _ := common.NewURL("dubbo://:0/com.foo.Bar?interface=com.foo.Bar&group=g1")
	lg := &recNotify{}
	_ = r2.LoadSubscribeInstances(other, lg)
	if len(lg.lists) != 1 || len(lg.lists[0]) != 0 {
		t.Errorf("group g1 saw %v, want an empty list", lg.lists)
	}
}
