package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// meshToMissingSubset routes every call to a subset no provider has: a
// route Java cannot build.
const meshToMissingSubset = `kind: DestinationRule
metadata: {name: other}
spec:
  subsets:
    - {name: none, labels: {zone: nowhere}}
---
kind: VirtualService
metadata: {name: other}
spec:
  dubbo:
    - routedetail:
        - route:
            - destination: {subset: none}
`

// TestDisabledAppMeshRuleLive (issue 31's case, on a real ZooKeeper): two
// provider applications, demo-provider and other-provider; a consumer
// configurator disables every provider of other-provider, whose
// other-provider.MESHAPPRULE routes to a subset that does not exist. Java's
// mesh router follows the applications of the enabled providers only, so
// it never reads that key: a Java consumer, the Go consumer with
// dubboroute, `dubboroute route` (the replay of the rule machine) and the
// Java oracle all send every call to demo-provider's provider.
func TestDisabledAppMeshRuleLive(t *testing.T) {
	f := newFleet(t)
	a := f.goProvider(t, harness.ProviderOptions{App: "demo-provider"})
	b := f.goProvider(t, harness.ProviderOptions{App: "other-provider"})
	checkRegistered(t, f.rules, a.Port, b.Port)
	const app = "demo-consumer1"
	disable := fmt.Sprintf("configVersion: v3.0\nscope: application\nkey: %s\nenabled: true\nconfigs:\n"+
		"- type: disabled\n  enabled: true\n  side: consumer\n  providerAddresses: [\"127.0.0.1:%d\"]\n  parameters: {disabled: \"true\"}\n", app, b.Port)
	if err := f.rules.Put(app+".configurators", disable); err != nil {
		t.Fatal(err)
	}
	if err := f.rules.Put("other-provider.MESHAPPRULE", meshToMissingSubset); err != nil {
		t.Fatal(err)
	}

	c := f.goConsumer(t, harness.ConsumerOptions{App: app})
	ex, err := c.WaitExplain(harness.QueryAll, 60*time.Second, func(ex httpapi.Explain) bool { return len(ex.Providers) == 1 })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Go consumer explain: %+v", ex)
	goGot, _ := c.Ports(harness.QueryAll, 40)
	js := startJavaSession(t, f.srv.Addr(), app)
	js.await("demo-provider's provider only", func(invs []javaInvoker) bool { return len(invs) == 1 })
	jGot := map[int]int{}
	for _, jc := range js.calls(40, "queryAll", "") {
		p := 0
		if jc.OK {
			p, _ = strconv.Atoi(jc.ServedBy)
		}
		jGot[p]++
	}
	t.Logf("Go consumer %v, Java consumer %v (port 0: failed)", goGot, jGot)
	for who, got := range map[string]map[int]int{"Go": goGot, "Java": jGot} {
		if got[a.Port] != 40 {
			t.Errorf("%s consumer: %v, want all 40 calls on demo-provider's %d", who, got, a.Port)
		}
	}

	// The same fleet as a routing case: route and the Java oracle agree.
	url := func(port int, app string) string {
		return fmt.Sprintf("dubbo://127.0.0.1:%d/%s?application=%s&interface=%s&side=provider", port, BookIface, app, BookIface)
	}
	key, mkey := app+".configurators", "other-provider.MESHAPPRULE"
	mesh := meshToMissingSubset
	cs := Case{ID: "disabled-app-mesh", ConsumerURL: fmt.Sprintf("consumer://127.0.0.2/%s?application=%s&interface=%s&side=consumer", BookIface, app, BookIface),
		Invocation: Invocation{Method: "queryAll"},
		Providers:  []Provider{{ID: "b", URL: url(b.Port, "other-provider")}, {ID: "a", URL: url(a.Port, "demo-provider")}},
		Rules:      []Rule{{Key: &key, Content: &disable}, {Key: &mkey, Content: &mesh}}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for name, run := range map[string]func(context.Context, []Case) ([]json.RawMessage, error){"route": RunRoute, "java": RunOracle} {
		lines, err := run(ctx, []Case{cs})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ans, err := Normalize(lines[0])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ans.Dist) != 1 || ans.Dist["a"] != "1" {
			t.Errorf("%s: %s, want every call on a", name, lines[0])
		}
	}
}
