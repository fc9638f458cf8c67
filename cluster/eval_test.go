package cluster

import (
	"reflect"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
)

func members(s *router.Set) []int { return s.AppendMembers(nil) }

// NewSnapshot over URLs routes exactly as a Chain over dubbo-go invokers of
// the same URLs, trace included.
func TestNewSnapshotMatchesChain(t *testing.T) {
	ivks := []base.Invoker{
		invoker(t, "127.0.0.1:20880", ""),
		invoker(t, "127.0.0.1:20881", "dubbo.tag=gray"),
		invoker(t, "127.0.0.2:20880", ""),
	}
	var rules Rules
	rules[SlotService] = condRule(t, iface+"::.condition-router", "conditions:\n  - method=queryAll => address=*:20880\n  - method=queryByName => address=*:20881\n")
	rules[SlotConsumerApp] = condRule(t, "demo-consumer1.condition-router", "conditions:\n  - => host=127.0.0.1\n")
	consumer := consumerURL("demo-consumer1")
	ch := New(consumer, Options{})
	ch.Update(func(in *Input) { in.Invokers = ivks; in.Rules = rules })

	urls := make([]*router.URL, len(ivks))
	for i, iv := range ivks {
		urls[i] = FromDubbo(iv.GetURL())
	}
	snap := NewSnapshot(consumer, urls, rules, Options{})
	for _, call := range []router.Call{
		{Method: "queryAll"},
		{Method: "queryByName"},
		{Method: "other"},
		{Method: "queryAll", Attachments: router.AttachmentMap{"dubbo.tag": "gray"}},
	} {
		var t1, t2 router.Trace
		want := ch.Snapshot().RouteSet(&call, &t1, nil)
		got := snap.RouteSet(&call, &t2, nil)
		if !reflect.DeepEqual(members(got), members(want)) {
			t.Errorf("%s: NewSnapshot routed %v, Chain %v", call.Method, members(got), members(want))
		}
		if !reflect.DeepEqual(t1, t2) {
			t.Errorf("%s: traces differ:\n%s\n%s", call.Method, t2.String(), t1.String())
		}
	}
	call := router.Call{Method: "queryAll"}
	if got := members(snap.RouteSet(&call, nil, nil)); !reflect.DeepEqual(got, []int{0}) {
		t.Fatalf("queryAll: got %v, want [0] (port 20880 on host 127.0.0.1)", got)
	}
}

func mustCond(t *testing.T, text string, force bool) *condition.Rule {
	t.Helper()
	r, err := condition.ParseCondition(text, force, true)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEvaluatorExtras(t *testing.T) {
	urls := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/" + iface + "?application=p"),
		router.MustParseURL("dubbo://10.0.0.2:20881/" + iface + "?application=p"),
	}
	consumer := consumerURL("c")
	var rules Rules
	rules[SlotService] = condRule(t, iface+"::.condition-router", "conditions:\n  - => port=20881\n")
	snap := NewSnapshot(consumer, urls, rules, Options{})
	call := &router.Call{Method: "m"}

	// Without extras the evaluator is the snapshot.
	plain := NewEvaluator(snap, nil, Options{})
	var tr1, tr2 router.Trace
	if a, b := members(plain.RouteSet(call, &tr1)), members(snap.RouteSet(call, &tr2, nil)); !reflect.DeepEqual(a, b) || !reflect.DeepEqual(tr1, tr2) {
		t.Fatalf("no extras: evaluator %v %s, snapshot %v %s", a, tr1.String(), b, tr2.String())
	}
	if got := members(plain.RouteSet(call, nil)); !reflect.DeepEqual(got, []int{1}) {
		t.Fatalf("service rule alone: got %v, want [1]", got)
	}

	// The extra runs before the service router: port=20880 first, then the
	// service rule's port=20881 finds nothing and falls back (force=false).
	e := NewEvaluator(snap, []ExtraRouter{{Name: "condition[0]", Rule: mustCond(t, "=> port=20880", false)}}, Options{})
	var tr router.Trace
	if got := members(e.RouteSet(call, &tr)); !reflect.DeepEqual(got, []int{0}) {
		t.Fatalf("extra then service: got %v, want [0] (trace %s)", got, tr.String())
	}
	var names []string
	for _, s := range tr.Steps {
		names = append(names, s.Router)
	}
	want := []string{RouterMock, RouterTag, "condition[0]", RouterService, RouterProviderApp, RouterConsumerApp}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("trace routers %v, want %v", names, want)
	}
	if tr.Steps[3].Branch != router.BranchFallback {
		t.Fatalf("service step branch %q, want fallback", tr.Steps[3].Branch)
	}

	// Fail-fast: a blacklist extra ends the chain.
	e = NewEvaluator(snap, []ExtraRouter{{Name: "condition[0]", Rule: mustCond(t, "=>", false)}}, Options{})
	tr = router.Trace{}
	if got := e.RouteSet(call, &tr); !got.Empty() {
		t.Fatalf("blacklist extra: got %v, want empty", members(got))
	}
	if len(tr.Steps) != 3 || tr.Steps[2].Branch != router.BranchBlacklist {
		t.Fatalf("blacklist extra: trace %s, want three steps ending in blacklist", tr.String())
	}
}
