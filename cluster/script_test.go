package cluster

import (
	"testing"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/script"
)

// keep20881 is a Java-dialect script keeping the providers on port 20881.
const keep20881 = `script: |
  var r = new java.util.ArrayList();
  for (var i = 0; i < invokers.size(); i++) { if (invokers.get(i).getUrl().getPort() == 20881) r.add(invokers.get(i)); }
  r
`

func scriptRef(t testing.TB, text string) RuleRef {
	t.Helper()
	r, err := script.Parse(text, script.DialectJava)
	if err != nil {
		t.Fatal(err)
	}
	return RuleRef{Key: "demo-provider.script-router", Version: "1#1", Script: r}
}

// TestScriptInChain: the script router runs last (Java's order 200, after
// the consumer-application condition router), sees what the routers before
// it left, shows in the trace only with a rule (with its in->out), and a
// script whose result Java's router throws on leaves no provider.
func TestScriptInChain(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	c.SetInvokers(manyInvokers(t, 8))
	tr := &router.Trace{}
	c.Route(call("queryAll", nil), tr)
	for _, s := range tr.Steps {
		if s.Router == RouterScript {
			t.Fatalf("script step without a script rule: %+v", tr.Steps)
		}
	}
	c.SetRule(SlotScript, scriptRef(t, keep20881))
	// The service rule keeps the first half of the addresses: 10.0.0.0-3.
	cond, err := condition.ParseRule("scope: service\nkey: " + iface + "\nforce: true\nconditions:\n  - => host=10.0.0.0,10.0.0.1,10.0.0.2,10.0.0.3\n")
	if err != nil {
		t.Fatal(err)
	}
	c.SetRule(SlotService, RuleRef{Key: iface + "::.condition-router", Version: "3.0#1", Condition: cond})
	tr = &router.Trace{}
	got := c.Route(call("queryAll", nil), tr)
	last := tr.Steps[len(tr.Steps)-1]
	if last.Router != RouterScript || last.Key != "demo-provider.script-router" || last.Branch != script.BranchRouted {
		t.Fatalf("last step %+v, want the script's (steps %+v)", last, tr.Steps)
	}
	// 10.0.0.2 carries dubbo.tag=gray (the tag router drops it for an
	// untagged call): the script sees 10.0.0.0, .1, .3 and keeps .1 and .3
	// (port 20881).
	if last.In != 3 || last.Out != 2 || len(got) != 2 {
		t.Fatalf("script step %d->%d, routed %d, want 3->2 (steps %+v)", last.In, last.Out, len(got), tr.Steps)
	}
	for _, ivk := range got {
		if ivk.GetURL().Port != "20881" {
			t.Errorf("routed %s", ivk.GetURL().Location)
		}
	}
	// A JS array result: Java's router throws, the call has no provider.
	c.SetRule(SlotScript, scriptRef(t, "script: '[invokers.get(0)]'\n"))
	tr = &router.Trace{}
	if got := c.Route(call("queryAll", nil), tr); len(got) != 0 {
		t.Fatalf("JS array result routed %d", len(got))
	}
	if last := tr.Steps[len(tr.Steps)-1]; last.Router != RouterScript || last.Branch != script.BranchFailed || last.Detail == "" {
		t.Fatalf("last step %+v", last)
	}
	// Rules compared by identity: the same compiled rule is the same rules.
	a := scriptRef(t, keep20881)
	x, y := Rules{}, Rules{}
	x[SlotScript], y[SlotScript] = a, a
	if !sameRules(&x, &y) {
		t.Errorf("same script rule compares different")
	}
	y[SlotScript] = scriptRef(t, keep20881)
	if sameRules(&x, &y) {
		t.Errorf("two compiled script rules compare equal")
	}
}

// TestScriptInEvaluator: the evaluator (route/explain with extra condition
// routers) runs the script last too.
func TestScriptInEvaluator(t *testing.T) {
	consumer := consumerURL("demo-consumer1")
	var urls []*router.URL
	for _, ivk := range manyInvokers(t, 4) {
		urls = append(urls, router.MustParseURL(ivk.GetURL().String()))
	}
	var rs Rules
	rs[SlotScript] = scriptRef(t, keep20881)
	s := NewSnapshot(consumer, urls, rs, Options{})
	extra, err := condition.ParseCondition("=> host=10.0.0.1,10.0.0.2", false, true)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEvaluator(s, []ExtraRouter{{Name: "condition[0]", Rule: extra}}, Options{})
	tr := &router.Trace{}
	cl := router.Call{Method: "queryAll"}
	out := e.RouteSet(&cl, tr)
	last := tr.Steps[len(tr.Steps)-1]
	// 10.0.0.2 is tagged gray: the tag router drops it; the condition keeps
	// 10.0.0.1 (20881), which the script keeps.
	if out.Len() != 1 || last.Router != RouterScript || last.In != 1 || last.Out != 1 {
		t.Fatalf("out %d, steps %+v", out.Len(), tr.Steps)
	}
}
