package interop

import (
	"fmt"
	"strings"
	"testing"
)

const (
	envMeshCases     = "DUBBOROUTE_MESH_CASES" // number of random mesh cases (default defaultMeshCases)
	defaultMeshCases = 3000
	defaultMeshSeed  = 20261201
)

// TestMeshOracleDifferential generates random mesh rule cases (issue 12:
// VirtualService and DestinationRule documents at <app>.MESHAPPRULE for
// several provider applications, every matcher, weights, fallbacks,
// updates, deletes and values Java rejects, combined with condition and tag
// rules), evaluates them with Java Dubbo 3.3.6's own StandardMeshRuleRouter
// (the oracle; weighted picks by Java's exact probabilities) and with
// dubboroute's route command, and requires the same answer outside the
// pinned divergences.
func TestMeshOracleDifferential(t *testing.T) {
	n := envInt(t, envMeshCases, defaultMeshCases)
	seed := uint64(envInt(t, envSeed, defaultMeshSeed))
	cases, java, goAns := differential(t, "mesh", "m", n, seed, (*Generator).NextMesh)
	stats := compareAll(t, cases, java, goAns, comparison{
		what:  "mesh",
		count: func(i int, ja Answer, stats map[string]int) { countMeshFeatures(stats, &cases[i], ja) },
		exclude: func(i int, ja, _ Answer, _ string) string {
			return meshDivergence(&cases[i], ja)
		},
	})
	t.Logf("coverage: %s", meshStatString(stats))
	if n >= defaultMeshCases {
		for _, k := range meshCoverageKeys {
			if stats[k] < 10 {
				t.Errorf("generator coverage: %q exercised %d times (want >= 10)", k, stats[k])
			}
		}
	}
}

// meshDivergence names the pinned divergence a mesh case runs into, or "".
func meshDivergence(c *Case, java Answer) string {
	return ""
}

var meshCoverageKeys = []string{
	"mesh rule", "mesh update", "mesh delete", "services", "name_match", "argc", "argp", "str_value", "num_value",
	"bool_value", "sourceLabels", "dubboContext", "tracingContext", "fallback", "weight", "several apps",
	"with condition/tag rule", "script rule", "weighted outcome", "rejected rule", "unread key", "empty result", "generic $invoke",
}

func countMeshFeatures(stats map[string]int, c *Case, java Answer) {
	apps := map[string]bool{}
	first := map[string]bool{}
	for _, r := range c.Rules {
		if r.Key != nil && strings.HasSuffix(*r.Key, ".script-router") {
			stats["script rule"]++
			continue
		}
		if r.Key == nil || !strings.HasSuffix(*r.Key, ".MESHAPPRULE") {
			if r.Key != nil || r.Condition != nil || r.URL != nil {
				stats["with condition/tag rule"]++
			}
			continue
		}
		apps[*r.Key] = true
		switch {
		case r.Content == nil:
			stats["mesh delete"]++
			continue
		case first[*r.Key]:
			stats["mesh update"]++
		default:
			stats["mesh rule"]++
		}
		first[*r.Key] = true
		for _, f := range []string{"services", "name_match", "argc", "argp", "str_value", "num_value", "bool_value", "sourceLabels", "dubboContext", "tracingContext", "fallback", "weight"} {
			if strings.Contains(*r.Content, f) {
				stats[f]++
			}
		}
	}
	if len(apps) > 1 {
		stats["several apps"]++
	}
	if strings.HasPrefix(c.Invocation.Method, "$invoke") {
		stats["generic $invoke"]++
	}
	if len(java.Dist) > 1 {
		stats["weighted outcome"]++
	}
	if len(java.Rejected) > 0 {
		stats["rejected rule"]++
	}
	if len(java.Unread) > 0 {
		stats["unread key"]++
	}
	if d, ok := java.Dist[""]; ok && d == "1" {
		stats["empty result"]++
	}
}

func meshStatString(stats map[string]int) string {
	var parts []string
	for _, k := range meshCoverageKeys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, stats[k]))
	}
	return strings.Join(parts, " ")
}
