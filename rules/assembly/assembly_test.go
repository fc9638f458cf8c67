package assembly

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/rules"
)

func consumer(t *testing.T, raw string) *router.URL {
	t.Helper()
	u, err := router.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestKeysOfAReference: the keys a reference subscribes and the slots
// they feed, as Java's routers subscribe them.
func TestKeysOfAReference(t *testing.T) {
	r := New(consumer(t, "consumer://10.0.0.1/com.foo.Bar?application=c1&version=0.0.0&group=g&dubboroute.affinity=true"))
	var got []string
	for _, s := range r.ConsumerSubs() {
		got = append(got, s.Key+" "+slots(s.Slots))
	}
	want := []string{"com.foo.Bar::g.condition-router service", "c1.condition-router app,provider-app", "com.foo.Bar::g.affinity-router affinity"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ConsumerSubs = %q, want %q", got, want)
	}
	got = nil
	for _, s := range r.ProviderAppSubs("p1") {
		got = append(got, s.Key+" "+slots(s.Slots))
	}
	want = []string{"p1.tag-router tag", "p1.gray-router ", "p1.script-router script", "p1.affinity-router affinity-provider-app", "p1.condition-router provider-app"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ProviderAppSubs(p1) = %q, want %q", got, want)
	}
	if subs := r.ProviderAppSubs("c1"); len(subs) != 3 {
		t.Errorf("the consumer's own application: %d keys, want tag, gray and script only", len(subs))
	}
	app, svc := r.ConfiguratorKeys()
	if app != "c1.configurators" || svc != "com.foo.Bar::g.configurators" {
		t.Errorf("ConfiguratorKeys = %s, %s", app, svc)
	}
}

func slots(ss []cluster.Slot) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += s.String()
	}
	return out
}

// TestAcceptOutcomes: one content of a key, judged once for the runtime
// and the batch alike; a configVersion above v3.1 is ignored as Java 3.3.6
// ignores it (a warning, the routers in force stay), not rejected.
func TestAcceptOutcomes(t *testing.T) {
	const key = "com.foo.Bar::.condition-router"
	ch := Accept(key, rules.KindCondition, "force: true\nconditions:\n  - => port=2\n", 2)
	if ch.Outcome != OutcomeAccepted || ch.Rev != 3 || ch.Ref.Version != "3.0#3" || ch.Ref.Condition == nil || ch.Ref.Key != key {
		t.Errorf("accepted: %+v", ch)
	}
	ch = Accept(key, rules.KindCondition, "configVersion: v3.2\nconditions:\n  - => port=2\n", 3)
	if ch.Outcome != OutcomeIgnored || ch.Rev != 3 || !errors.Is(ch.Err, condition.ErrUnsupportedVersion) {
		t.Errorf("configVersion v3.2: %+v, want ignored", ch)
	}
	ch = Accept(key, rules.KindCondition, "conditions: [unclosed\n", 3)
	if ch.Outcome != OutcomeRejected || ch.Rev != 3 || ch.Err == nil {
		t.Errorf("broken: %+v, want rejected", ch)
	}
	ch = Accept(key, rules.KindCondition, "  \n", 3)
	if ch.Outcome != OutcomeDeleted || ch.Rev != 4 || !ch.Ref.Empty() {
		t.Errorf("blank: %+v, want deleted", ch)
	}
	ch = AcceptConfigurators("c1.configurators", "", false, 0)
	if ch.Outcome != OutcomeRejected {
		t.Errorf("empty configurators content: %+v, want rejected (Java: fails to parse)", ch)
	}
	ch = AcceptConfigurators("c1.configurators", "", true, 4)
	if ch.Outcome != OutcomeDeleted || ch.Rev != 5 {
		t.Errorf("configurators delete: %+v", ch)
	}
}

// TestSlotsUnreadReasons: a key no router of the reference reads says why.
func TestSlotsUnreadReasons(t *testing.T) {
	r := New(consumer(t, "consumer://10.0.0.1/com.foo.Bar?application=c1"))
	f := Following{ProviderApp: "p1", MeshApps: map[string]bool{"p1": true}}
	for key, want := range map[string]string{
		"com.foo.Bar::.condition-router":   "service",
		"c1.condition-router":              "app,provider-app",
		"p1.condition-router":              "provider-app",
		"p1.tag-router":                    "tag",
		"p1.MESHAPPRULE":                   "mesh",
		"com.foo.Other::.condition-router": "unread",
		"p2.tag-router":                    "unread",
		"com.foo.Bar::.affinity-router":    "unread",
		"p1.gray-router":                   "unread",
	} {
		k, err := rules.ParseKey(key)
		if err != nil {
			t.Fatal(err)
		}
		ss, _, why := r.Slots(k, f)
		got := slots(ss)
		if why != "" {
			got = "unread"
		}
		if got != want {
			t.Errorf("%s: %s (%s), want %s", key, got, why, want)
		}
	}
}
