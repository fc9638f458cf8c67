package interop

import (
	"fmt"
	"strings"
	"testing"
)

// outlierVariants are Istio-shaped outlierDetection additions to a mesh
// rule's DestinationRule (dubboroute reads them for outlier ejection; Java
// 3.3.6's model has no such field): the full message with retryBudget and
// connectionPool beside it, a minimal one, shapes Java could choke on if it
// looked (a list, a scalar), and one per subset.
var outlierVariants = []struct {
	name string
	// spec is added to the DestinationRule's trafficPolicy (indented by 4);
	// subset, if set, to each subset instead (indented by 6).
	spec, subset string
}{
	{"full", "outlierDetection: {consecutive5xxErrors: 5, consecutiveGatewayErrors: 3, consecutiveLocalOriginFailures: 4, splitExternalLocalOriginErrors: true, interval: 10s, baseEjectionTime: 30s, maxEjectionPercent: 20, minHealthPercent: 0}\n    retryBudget: {percent: 20, minRetryConcurrency: 3}\n    connectionPool: {tcp: {maxConnections: 100}}", ""},
	{"minimal", "outlierDetection: {}", ""},
	{"list", "outlierDetection: [1, {x: y}, null]", ""},
	{"scalar", "outlierDetection: on", ""},
	{"bad values", "outlierDetection: {consecutive5xxErrors: five, interval: soon, maxEjectionPercent: -3}", ""},
	{"per subset", "", "trafficPolicy: {outlierDetection: {consecutive5xxErrors: 2}}"},
}

// withOutlier returns c with variant v added to every DestinationRule of
// its mesh rules, and whether any was changed.
func withOutlier(c Case, v int) (Case, bool) {
	out := c
	out.ID = fmt.Sprintf("%s-od%d", c.ID, v)
	out.Rules = append([]Rule(nil), c.Rules...)
	changed := false
	for i, r := range out.Rules {
		if r.Key == nil || !strings.HasSuffix(*r.Key, ".MESHAPPRULE") || r.Content == nil || !strings.Contains(*r.Content, "kind: DestinationRule") {
			continue
		}
		docs := strings.Split(*r.Content, "\n---")
		for j, s := range docs {
			if !strings.Contains(s, "kind: DestinationRule") {
				continue
			}
			o := outlierVariants[v]
			switch {
			case o.subset != "":
				s = strings.ReplaceAll(s, "    - name: ", "    - "+o.subset+"\n      name: ")
			case strings.Contains(s, "  trafficPolicy:\n    loadBalancer:"):
				s = strings.ReplaceAll(s, "  trafficPolicy:\n    loadBalancer:", "  trafficPolicy:\n    "+o.spec+"\n    loadBalancer:")
			default:
				s = strings.ReplaceAll(s, "spec:\n  host: demo\n", "spec:\n  host: demo\n  trafficPolicy:\n    "+o.spec+"\n")
			}
			docs[j] = s
		}
		s := strings.Join(docs, "\n---")
		if s != *r.Content {
			changed = true
			out.Rules[i].Content = &s
		}
	}
	return out, changed
}

// TestOutlierMeshRuleJavaUnchanged: random mesh cases (the generator of
// TestMeshOracleDifferential), each DestinationRule given an Istio
// outlierDetection (six shapes): Java Dubbo 3.3.6's own classes route every
// case exactly as they route it without the field, and dubboroute route
// answers every case as Java does.
func TestOutlierMeshRuleJavaUnchanged(t *testing.T) {
	const n, seed = 300, 20261203
	g := NewGenerator(seed)
	var orig, mod []Case
	for i := 0; len(mod) < n && i < 20*n; i++ {
		c := g.NextMesh(fmt.Sprintf("od%d-%d", seed, i))
		m, ok := withOutlier(c, len(mod)%len(outlierVariants))
		if !ok {
			continue
		}
		orig, mod = append(orig, c), append(mod, m)
	}
	if len(mod) < n {
		t.Fatalf("the generator gave %d cases with a DestinationRule, want %d", len(mod), n)
	}
	all := append(append([]Case(nil), orig...), mod...)
	java, goAns := bothSides(t, fmt.Sprintf("%d mesh cases with and without outlierDetection (seed %d)", n, seed), all, all)
	compareAll(t, all, java, goAns, comparison{what: "mesh with outlierDetection"})
	same := 0
	for i := range orig {
		a, b := normalizeBoth(t, java[i], java[n+i])
		if d := Diff(a, b); d != "" {
			t.Errorf("case %s: Java routes the rule with outlierDetection (%s) differently: %s", orig[i].ID, outlierVariants[i%len(outlierVariants)].name, d)
			continue
		}
		same++
	}
	t.Logf("%d of %d cases: Java's answer with outlierDetection equals its answer without; dubboroute route agreed with Java on all %d", same, n, 2*n)
}
