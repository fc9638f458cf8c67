package scale

import (
	"strings"
	"testing"
)

// TestRenderBalancers checks the SCALE_LB summary: rows grouped by
// balancer, dubbo-go's rows beside dubboroute's, and the targets judged
// from the numbers (flat within 1.25×, at least 3× below dubbo-go).
func TestRenderBalancers(t *testing.T) {
	rows := []row{
		{n: 10, impl: "dubboroute+lb=random", lb: "random", cpuUs: 100, pickUs: 0.2, clusterUs: 5},
		{n: 10, impl: "dubbogo+lb=random", lb: "random", cpuUs: 200, pickUs: 1, clusterUs: 30},
		{n: 1000, impl: "dubboroute+lb=random", lb: "random", cpuUs: 120, pickUs: 0.3, clusterUs: 6},
		{n: 1000, impl: "dubbogo+lb=random", lb: "random", cpuUs: 5000, pickUs: 20, clusterUs: 4000},
		{n: 10, impl: "dubboroute+lb=leastactive", lb: "leastactive", cpuUs: 100, pickUs: -1, clusterUs: -1},
		{n: 1000, impl: "dubboroute+lb=leastactive", lb: "leastactive", cpuUs: 140, pickUs: -1, clusterUs: -1},
		{n: 1000, impl: "dubbogo+lb=leastactive", lb: "leastactive", cpuUs: 280, pickUs: -1, clusterUs: -1},
		{n: 1000, impl: "dubboroute", cpuUs: 999}, // a default row: not a balancer row
	}
	out := render(rows, nil, nil)
	for _, want := range []string{
		"| random | 10 | 100.0 µs | 0.2 µs | 5.0 µs | 200.0 µs | 1.0 µs | 30.0 µs | 2.0× |",
		"| random | 1000 | 120.0 µs | 0.3 µs | 6.0 µs | 5000.0 µs | 20.0 µs | 4000.0 µs | 41.7× |",
		"| leastactive | 10 | 100.0 µs | – | – | – | – | – | – |",
		"- MET    random: CPU per call n=1000 ÷ n=10 1.20× (target ≤ 1.25×); cluster layer 5.0 → 6.0 µs, pick 0.20 → 0.30 µs; dubbo-go ÷ dubboroute at n=1000 41.7× (MET ≥ 3×)",
		"- MISSED leastactive: CPU per call n=1000 ÷ n=10 1.40× (target ≤ 1.25×); dubbo-go ÷ dubboroute at n=1000 2.0× (MISSED ≥ 3×)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "| 1000 | dubboroute | 0 | 999.0 µs |") {
		t.Errorf("the default row is missing from the main table:\n%s", out)
	}
	if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
		t.Errorf("render divides by a missing row:\n%s", out)
	}
}
