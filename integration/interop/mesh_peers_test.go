package interop

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// meshPeersRule: userId 7 and every queryByName go to the status=gray
// subset; other calls match no route detail (Java's empty protection: all).
const meshPeersRule = `apiVersion: service.dubbo.apache.org/v1alpha1
kind: DestinationRule
metadata: {name: bookfacade}
spec:
  host: demo-provider
  subsets:
    - {name: gray, labels: {status: gray}}
---
apiVersion: service.dubbo.apache.org/v1alpha1
kind: VirtualService
metadata: {name: bookfacade}
spec:
  hosts: [demo-provider]
  dubbo:
    - services: [{exact: com.muke.dubbocourse.common.api.BookFacade}]
      routedetail:
        - name: user-7
          match:
            - attachments: {dubboContext: {userId: {exact: "7"}}}
          route:
            - destination: {host: demo-provider, subset: gray}
        - name: by-name
          match:
            - method: {name_match: {exact: queryByName}}
          route:
            - destination: {host: demo-provider, subset: gray}
`

// TestMeshMixedFleet: a mesh rule written where Dubbo Admin writes it
// (/dubbo/config/dubbo/demo-provider.MESHAPPRULE on a real ZooKeeper) steers
// a Go consumer (dubboroute) and a Java consumer (Java Dubbo 3.3.6's own
// mesh router) of the same mixed fleet (two Java and two Go providers) to the
// same providers.
func TestMeshMixedFleet(t *testing.T) {
	f := newFleet(t)
	srv, rules := f.srv, f.rules
	j1 := javaProvider(t, srv.Addr(), "demo-provider", "")
	j2 := javaProvider(t, srv.Addr(), "demo-provider", "", "status=gray")
	g1 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", Params: map[string]string{"status": "gray"}})
	g2 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider"})
	checkRegistered(t, rules, j1, j2, g1.Port, g2.Port)
	if err := rules.Put("demo-provider.MESHAPPRULE", meshPeersRule); err != nil {
		t.Fatal(err)
	}
	c := f.goConsumer(t, harness.ConsumerOptions{App: "demo-consumer1", LoadBalance: "random"})
	if _, err := c.WaitExplain(harness.QueryByName, 60*time.Second, func(ex httpapi.Explain) bool {
		return len(ex.Providers) == 4 && strings.Contains(ex.TraceText, "mesh-routed")
	}); err != nil {
		t.Fatal(err)
	}
	all := sortedPorts(j1, j2, g1.Port, g2.Port)
	gray := sortedPorts(j2, g1.Port)
	scenarios := []struct {
		name     string
		call     harness.Call
		scenario string // BookConsumer --scenario
		want     []string
	}{
		{"queryAll, no user (no route detail matches: all)", harness.QueryAll, "queryAll", all},
		{"queryAll, userId 7", harness.Call{Method: "queryAll", UserID: "7"}, "queryAll userId=7", gray},
		{"queryByName", harness.Call{Method: "queryByName", Name: "Go in Action"}, "queryByName", gray},
	}
	// 80 calls per scenario: a provider of four that a random (and, on the
	// Java side, warm-up weighted) balancer never picks is then a routing
	// difference, not chance (24 missed one Java-side once under load).
	const calls = 80
	// One Java consumer runs every scenario.
	javaArgs := []string{"--calls", strconv.Itoa(calls), "--app", "demo-consumer1", "--arg", "Go in Action"}
	for _, sc := range scenarios {
		javaArgs = append(javaArgs, "--scenario", sc.scenario)
	}
	javaCalls := javaConsumer(t, srv.Addr(), javaArgs...)
	for i, sc := range scenarios {
		ex, err := c.Explain(sc.call)
		if err != nil {
			t.Fatal(err)
		}
		goSet := routedPorts(ex)
		served := map[string]bool{}
		for i := 0; i < calls; i++ {
			port, err := c.Do(sc.call)
			if err != nil {
				t.Fatalf("%s: %v", sc.name, err)
			}
			served[strconv.Itoa(port)] = true
		}
		var mine []javaCall
		for _, jc := range javaCalls {
			if jc.Scenario == i {
				mine = append(mine, jc)
			}
		}
		javaSet := servedSet(mine)
		t.Logf("%s: Go eligible %v, Go served %v, Java served %v (want %v)", sc.name, goSet, sortedKeys(served), javaSet, sc.want)
		if fmt.Sprint(goSet) != fmt.Sprint(sc.want) {
			t.Errorf("%s: Go eligible %v, want %v (trace: %s)", sc.name, goSet, sc.want, ex.TraceText)
		}
		if fmt.Sprint(javaSet) != fmt.Sprint(sc.want) {
			t.Errorf("%s: the Java consumer served %v, want %v", sc.name, javaSet, sc.want)
		}
		for p := range served {
			if !slices.Contains(sc.want, p) {
				t.Errorf("%s: Go consumer served by %s, want only %v", sc.name, p, sc.want)
			}
		}
	}
}

func sortedPorts(ports ...int) []string {
	set := map[string]bool{}
	for _, p := range ports {
		set[strconv.Itoa(p)] = true
	}
	return sortedKeys(set)
}
