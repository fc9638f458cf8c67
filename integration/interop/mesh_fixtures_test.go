package interop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func meshFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "router", "mesh", "testdata", "java", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixtureCase is a case over MeshRuleRouterTest's world: service ccc (or
// aaa), three providers of app1 with env-sign xxx (+tag1 hello), yyy, zzz.
func fixtureCase(id, service, label string, rule string, providers []int) Case {
	all := []Provider{
		{ID: "isolation", URL: "dubbo://10.0.0.1:20880/" + service + "?application=app1&env-sign=xxx&tag1=hello"},
		{ID: "testing-trunk", URL: "dubbo://10.0.0.2:20880/" + service + "?application=app1&env-sign=yyy"},
		{ID: "testing", URL: "dubbo://10.0.0.3:20880/" + service + "?application=app1&env-sign=zzz"},
	}
	c := Case{ID: id, Destinations: true,
		ConsumerURL: "consumer://10.0.0.9/" + service + "?application=c&interface=" + service + "&side=consumer",
		Invocation:  Invocation{Method: "m", Arguments: []any{}, Attachments: map[string]string{}},
		Rules:       []Rule{{Key: ptr("app1.MESHAPPRULE"), Content: ptr(rule)}}}
	if label != "" {
		c.Invocation.Attachments["trafficLabel"] = label
	}
	for _, i := range providers {
		c.Providers = append(c.Providers, all[i])
	}
	return c
}

// TestMeshJavaFixtures runs Java Dubbo's own mesh fixtures
// (dubbo-cluster/src/test/resources/*.yaml and MeshRuleRouterTest's rules,
// router/mesh/testdata/java) through the oracle and dubboroute: the same
// eligible sets and probabilities, and the ones MeshRuleRouterTest asserts.
func TestMeshJavaFixtures(t *testing.T) {
	r1 := meshFixture(t, "MeshRuleRouterTest.rule1.yaml")
	rule := func(vs string) string { return r1 + "\n---\n" + meshFixture(t, vs) }
	all := []int{0, 1, 2}
	type tc struct {
		c    Case
		want map[string]string // Java's distribution (provider ids joined by ",")
	}
	one := func(ids string) map[string]string { return map[string]string{ids: "1"} }
	cases := []tc{
		{fixtureCase("rule2-xxx", "ccc", "xxx", rule("MeshRuleRouterTest.rule2.yaml"), all), one("isolation")},
		{fixtureCase("rule2-trunk", "ccc", "testing-trunk", rule("MeshRuleRouterTest.rule2.yaml"), all), one("testing-trunk")},
		{fixtureCase("rule2-none", "ccc", "", rule("MeshRuleRouterTest.rule2.yaml"), all), one("testing")},
		{fixtureCase("rule2-aaa", "aaa", "", rule("MeshRuleRouterTest.rule2.yaml"), all), one("isolation,testing-trunk,testing")},
		{fixtureCase("rule3-testing", "ccc", "testing", rule("MeshRuleRouterTest.rule3.yaml"), all), one("testing")},
		{fixtureCase("rule3-aaa", "aaa", "testing", rule("MeshRuleRouterTest.rule3.yaml"), all), one("testing")},
		{fixtureCase("rule3-aaa-none", "aaa", "", rule("MeshRuleRouterTest.rule3.yaml"), all), one("isolation,testing-trunk,testing")},
		// rule4: weights 0 (counted as 1) and 10; Java's draw gives the first 2 of 11 draw values.
		{fixtureCase("rule4", "ccc", "testing-trunk", rule("MeshRuleRouterTest.rule4.yaml"), all), map[string]string{"testing-trunk": "2/11", "isolation": "9/11"}},
		{fixtureCase("rule4-testing-only", "ccc", "testing-trunk", rule("MeshRuleRouterTest.rule4.yaml"), []int{2}), one("testing")},
		// The resource files: VirtualServiceTest matches sourceLabels trafficLabel on the consumer URL.
		{fixtureCase("resources-2", "ccc", "", meshFixture(t, "DestinationRuleTest2.yaml"), all), one("testing")},
		{fixtureCase("resources-vs-dr", "ccc", "", meshFixture(t, "VirtualServiceTest.yaml")+"\n---\n"+meshFixture(t, "DestinationRuleTest.yaml"), all), one("testing")},
	}
	srcLabel := fixtureCase("resources-2-label", "ccc", "", meshFixture(t, "DestinationRuleTest2.yaml"), all)
	srcLabel.ConsumerURL += "&trafficLabel=testing-trunk"
	cases = append(cases, tc{srcLabel, one("testing-trunk")})
	var in []Case
	for _, c := range cases {
		in = append(in, c.c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	java, err := RunOracle(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	goAns, err := RunRoute(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		ja, ga := normalizeBoth(t, java[i], goAns[i])
		if !mapsEqual(ja.Dist, c.want) {
			t.Errorf("%s: Java gives %s, MeshRuleRouterTest expects %s", c.c.ID, distString(ja.Dist), distString(c.want))
		}
		if d := Diff(ja, ga); d != "" {
			t.Errorf("%s: dubboroute differs from Java: %s", c.c.ID, d)
		}
	}
}

// TestMeshOracleIsolation: Java's MeshRuleManager is module-wide, and a
// router whose first rule throws while loading (a DestinationRule without
// subsets) never unregisters its application's listener. The oracle must
// still answer every case as if it ran alone.
func TestMeshOracleIsolation(t *testing.T) {
	poison := fixtureCase("poison", "ccc", "", "kind: DestinationRule\nmetadata: {name: r}\nspec: {host: demo}\n---\nkind: VirtualService\nmetadata: {name: r}\nspec: {dubbo: [{routedetail: [{route: [{destination: {subset: a}}]}]}]}\n", []int{0, 1, 2})
	good := fixtureCase("good", "ccc", "xxx", meshFixture(t, "MeshRuleRouterTest.rule1.yaml")+"\n---\n"+meshFixture(t, "MeshRuleRouterTest.rule2.yaml"), []int{0, 1, 2})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	both, err := RunOracle(ctx, []Case{poison, good, good})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := RunOracle(ctx, []Case{good})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Normalize(alone[0])
	if !mapsEqual(want.Dist, map[string]string{"isolation": "1"}) {
		t.Fatalf("good case alone: %s", alone[0])
	}
	for _, line := range both[1:] {
		got, _ := Normalize(line)
		if d := Diff(want, got); d != "" {
			t.Errorf("after a case whose rule throws while loading: %s (answer %s)", d, line)
		}
	}
	t.Logf("the poisoning case itself: %s", both[0])
}

// TestYAMLLimitsOracle: every rule kind refuses what SnakeYAML's default
// loader refuses (nodes nested deeper than 51, more than 50 aliases to
// collections), at the same boundaries as Java Dubbo 3.3.6, so a deep or
// alias-bomb update cannot replace the rule in force.
func TestYAMLLimitsOracle(t *testing.T) {
	nested := func(prefix string, n int) string { // n nodes deep, the deepest a scalar
		return prefix + strings.Repeat("[", n-2) + "x" + strings.Repeat("]", n-2) + "\n"
	}
	aliases := func(prefix string, n int) string {
		return prefix + "a: &a [1]\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", n), ", ") + "]\n"
	}
	good := map[string]string{
		"app1.MESHAPPRULE":       "kind: DestinationRule\nmetadata: {name: r}\nspec:\n  subsets:\n    - {name: one, labels: {n: '1'}}\n---\nkind: VirtualService\nmetadata: {name: r}\nspec: {dubbo: [{routedetail: [{route: [{destination: {subset: one}}]}]}]}\n",
		"app1.tag-router":        "force: true\ntags:\n  - {name: t, addresses: ['10.0.0.1:20880']}\n",
		"ccc::.condition-router": "conditions:\n  - '=> n=1'\n",
		"c.condition-router":     "conditions:\n  - '=> n=2'\n",
	}
	prefix := map[string]string{
		"app1.MESHAPPRULE":       "kind: DestinationRule\nmetadata: {name: r}\nspec: {subsets: [{name: one}]}\nx: ",
		"app1.tag-router":        "force: true\ntags: []\nx: ",
		"ccc::.condition-router": "conditions: ['=> n=2']\nx: ",
		"c.condition-router":     "conditions: ['=> n=1']\nx: ",
	}
	var cases []Case
	for key, g := range good {
		for _, v := range []struct {
			id, text string
		}{
			{"nest51", nested(prefix[key], 51)}, {"nest52", nested(prefix[key], 52)},
			{"alias50", aliases(strings.TrimSuffix(prefix[key], "x: "), 50)}, {"alias51", aliases(strings.TrimSuffix(prefix[key], "x: "), 51)},
		} {
			c := Case{ID: key + "-" + v.id, Destinations: true,
				ConsumerURL: "consumer://10.0.0.9/ccc?application=c&interface=ccc",
				Invocation:  Invocation{Method: "m", Arguments: []any{}, Attachments: map[string]string{"dubbo.tag": "t"}},
				Providers: []Provider{
					{ID: "p1", URL: "dubbo://10.0.0.1:20880/ccc?application=app1&n=1"},
					{ID: "p2", URL: "dubbo://10.0.0.2:20880/ccc?application=app1&n=2"},
				},
				Rules: []Rule{{Key: ptr(key), Content: ptr(g)}, {Key: ptr(key), Content: ptr(v.text)}}}
			cases = append(cases, c)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	java, err := RunOracle(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	goAns, err := RunRoute(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for i, c := range cases {
		ja, _ := Normalize(java[i])
		ga, _ := Normalize(goAns[i])
		if d := Diff(ja, ga); d != "" {
			t.Errorf("%s: %s\n  java: %s\n  go: %s", c.ID, d, java[i], goAns[i])
		}
		if len(ja.Rejected) > 0 {
			rejected++
		}
	}
	if rejected != len(cases)/2 {
		t.Errorf("Java rejected %d of %d updates, want exactly the %d over a limit", rejected, len(cases), len(cases)/2)
	}
}
