package mesh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "java", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJavaFixturesParse: Dubbo's own YAML fixtures bind to what Java's tests
// read from them.
func TestJavaFixturesParse(t *testing.T) {
	r, err := ParseRule(readFixture(t, "DestinationRuleTest2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.DestinationRules) != 1 || len(r.VirtualServices) != 1 {
		t.Fatalf("DestinationRuleTest2: %d DRs, %d VSs", len(r.DestinationRules), len(r.VirtualServices))
	}
	dr := r.DestinationRules[0]
	if dr.Name != "demo-route" || *dr.Host != "demo" || len(dr.Spec.Subsets) != 3 {
		t.Fatalf("DR %+v", dr)
	}
	s0 := dr.Spec.Subsets[0]
	if *s0.Name != "isolation" || len(s0.Labels) != 2 || s0.Labels[0].Key != "env-sign" || *s0.Labels[0].Value != "xxx" || *s0.Labels[1].Value != "hello" {
		t.Fatalf("subset 0 %+v", s0)
	}
	vs := r.VirtualServices[0]
	d := vs.Spec.Dubbo[0]
	if len(d.Services) != 1 || *d.Services[0].Regex != "ccc" || len(d.RouteDetail) != 3 {
		t.Fatalf("VS route %+v", d)
	}
	if *d.RouteDetail[0].Name != "xxx-project" || d.RouteDetail[0].Match[0].SourceLabels[0].Key != "trafficLabel" ||
		*d.RouteDetail[0].Route[0].Destination.Subset != "isolation" {
		t.Fatalf("routedetail 0 %+v", d.RouteDetail[0])
	}
	// Each single-document fixture alone is incomplete (Java keeps what it had).
	for _, f := range []string{"VirtualServiceTest.yaml", "DestinationRuleTest.yaml"} {
		if _, err := ParseRule(readFixture(t, f)); err == nil || !strings.Contains(err.Error(), "needs at least one") {
			t.Errorf("%s alone: %v, want incomplete", f, err)
		}
	}
	// rule2's short fallback form is ignored by Java: a finding says so.
	r2, err := ParseRule(readFixture(t, "MeshRuleRouterTest.rule1.yaml") + "\n---\n" + readFixture(t, "MeshRuleRouterTest.rule2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !hasFinding(r2, FindShortFallback) {
		t.Errorf("rule2: no %s finding in %+v", FindShortFallback, r2.Findings)
	}
	if fb := r2.VirtualServices[0].Spec.Dubbo[0].RouteDetail[1].Route[0].Destination.Fallback; fb == nil || fb.Destination != nil {
		t.Errorf("rule2 fallback binds to %+v, want a DubboRouteDestination without destination", fb)
	}
}

func hasFinding(r *Rule, code FindingCode) bool {
	for _, f := range r.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

// TestJavaRouteFixtures replays MeshRuleRouterTest.testRoute2: the service
// name is "ccc", three providers of app1 (env-sign xxx+tag1 hello, yyy, zzz).
func TestJavaRouteFixtures(t *testing.T) {
	consumer := router.MustParseURL("consumer://10.0.0.9/ccc?application=c&interface=ccc&side=consumer")
	aaa := router.MustParseURL("consumer://10.0.0.9/aaa?application=c&interface=aaa&side=consumer")
	urls := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/ccc?application=app1&env-sign=xxx&tag1=hello"), // isolation
		router.MustParseURL("dubbo://10.0.0.2:20880/ccc?application=app1&env-sign=yyy"),            // testing-trunk
		router.MustParseURL("dubbo://10.0.0.3:20880/ccc?application=app1&env-sign=zzz"),            // testing
	}
	rule := func(vs string) []AppRule {
		r, err := ParseRule(readFixture(t, "MeshRuleRouterTest.rule1.yaml") + "\n---\n" + readFixture(t, vs))
		if err != nil {
			t.Fatal(err)
		}
		return []AppRule{{App: "app1", Key: "app1.MESHAPPRULE", Rule: r}}
	}
	route := func(c *router.URL, rules []AppRule, label string, in []int) []int {
		u := router.NewUniverse(len(urls))
		comp := Compile(u, c, urls, rules, func(n uint64) uint64 { return 0 })
		call := &router.Call{Method: "m", Attachments: router.AttachmentMap{}}
		if label != "" {
			call.Attachments = router.AttachmentMap{"trafficLabel": label}
		}
		set := in
		if set == nil {
			set = []int{0, 1, 2}
		}
		return comp.Route(u.Of(set...), call, nil).AppendMembers(nil)
	}
	check := func(name string, got []int, want ...int) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v, want %v", name, got, want)
				return
			}
		}
	}
	r2 := rule("MeshRuleRouterTest.rule2.yaml")
	check("rule2 xxx", route(consumer, r2, "xxx", nil), 0)
	check("rule2 testing-trunk", route(consumer, r2, "testing-trunk", nil), 1)
	check("rule2 no label", route(consumer, r2, "", nil), 2)
	check("rule2 service aaa: empty protection", route(aaa, r2, "", nil), 0, 1, 2)
	r3 := rule("MeshRuleRouterTest.rule3.yaml")
	check("rule3 xxx", route(consumer, r3, "xxx", nil), 0)
	check("rule3 testing-trunk", route(consumer, r3, "testing-trunk", nil), 1)
	check("rule3 testing", route(consumer, r3, "testing", nil), 2)
	check("rule3 service aaa testing", route(aaa, r3, "testing", nil), 2)
	check("rule3 service aaa no label", route(aaa, r3, "", nil), 0, 1, 2)
	r4 := rule("MeshRuleRouterTest.rule4.yaml")
	// Draw 0 of 11: the first destination (testing-trunk); with only the
	// testing provider left, its fallback (testing) answers.
	check("rule4 draw 0", route(consumer, r4, "testing-trunk", nil), 1)
	check("rule4 testing only", route(consumer, r4, "testing-trunk", []int{2}), 2)
}
