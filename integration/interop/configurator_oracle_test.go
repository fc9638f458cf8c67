package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Environment knobs of the configurator differential test.
const (
	envCfgCases = "DUBBOROUTE_CONFIGURATOR_CASES" // number of random cases (default defaultCfgCases)
	envCfgSeed  = "DUBBOROUTE_CONFIGURATOR_SEED"  // generator seed
)

const (
	defaultCfgCases = 2500
	defaultCfgSeed  = 20261201
)

// TestConfiguratorOracleDifferential (issue 13) generates random cases that
// combine routing rules (condition and tag; in one case of five mesh rules,
// in another the affinity router) with dynamic configuration (both YAML
// formats, the JSON-array form, every item field, updates, deletes, rules
// Java rejects, and the registry's override:// URLs), evaluates each with
// Java Dubbo 3.3.6 (Dubbo's own AbstractConfiguratorListener, ConfigParser,
// ConfiguratorFactory, UrlUtils.isMatch and the RegistryDirectory override
// URL and enabled check, then its router chain)
// and with dubboroute's route command, and requires equal answers: the
// routed provider sets, the providers each side kept out, every remaining
// provider's effective weight, the rejected rules and the unread keys.
func TestConfiguratorOracleDifferential(t *testing.T) {
	n := envInt(t, envCfgCases, defaultCfgCases)
	seed := uint64(envInt(t, envCfgSeed, defaultCfgSeed))
	cases, java, goAns := differential(t, "configurator", "cfg", n, seed, (*Generator).NextConfiguratorsMixed)

	stats := map[string]int{}
	var bad []Fixture
	for i := range cases {
		ja, err := Normalize(java[i])
		if err != nil {
			t.Fatal(err)
		}
		ga, err := Normalize(goAns[i])
		if err != nil {
			t.Fatal(err)
		}
		if ja.Error {
			stats["java error"]++
		}
		if len(ja.Disabled) > 0 {
			stats["with disabled providers"]++
		}
		for _, w := range ja.Weights {
			if w != "100" {
				stats["with a weight other than 100"]++
				break
			}
		}
		if len(ja.Rejected) > 0 {
			stats["with a rejected rule"]++
		}
		if strings.Contains(string(java[i]), `"result":[]`) || ja.Dist[""] != "" {
			stats["with no provider"]++
		}
		mesh, aff := hasKeySuffix(&cases[i], ".MESHAPPRULE"), cases[i].Affinity
		if mesh {
			stats["mesh"]++
		}
		if aff {
			stats["affinity"]++
		}
		if len(cases[i].RegistryConfigurators) > 0 {
			stats["registry override URLs"]++
			if strings.Contains(string(java[i]), `"key":"registry"`) {
				stats["disabled by a registry override URL"]++
			}
		}
		if why := divergence(&cases[i], ja); why != "" {
			stats["excluded: "+why]++
			continue
		}
		d := Diff(ja, ga)
		if d != "" && aff && ja.Dist[""] == "1" && ga.Dist[""] == "" && zeroRatio(&cases[i]) {
			stats["excluded: affinity ratio 0 with no affine provider (documented)"]++
			continue
		}
		if d == "" && (mesh || aff) && (len(ja.Disabled) > 0 || configuresProviders(java[i])) {
			stats["mesh/affinity over configured providers"]++
		}
		if d != "" {
			gcopy := ga
			bad = append(bad, Fixture{Case: cases[i], Java: ja, Go: &gcopy, Found: d})
		}
	}
	t.Logf("coverage: %v", stats)
	for _, k := range []string{"with disabled providers", "with a weight other than 100", "with a rejected rule", "mesh", "affinity", "mesh/affinity over configured providers", "registry override URLs", "disabled by a registry override URL"} {
		if stats[k] < n/50 {
			t.Errorf("coverage: only %d cases %s (want at least %d)", stats[k], k, n/50)
		}
	}
	if stats["java error"] > 0 {
		t.Errorf("%d cases failed in the Java oracle", stats["java error"])
	}
	if len(bad) == 0 {
		return
	}
	dump := os.Getenv(envDump)
	if dump == "" {
		dump = filepath.Join(t.TempDir(), "disagreements.jsonl")
	}
	if err := AppendFixtures(dump, bad); err != nil {
		t.Error(err)
	}
	for i, f := range bad {
		if i == 15 {
			t.Errorf("... and %d more", len(bad)-15)
			break
		}
		line, _ := json.Marshal(f.Case)
		t.Errorf("case %s disagrees: %s\n  case: %s\n  java: %s", f.Case.ID, f.Found, line, java[indexOf(cases, f.Case.ID)])
	}
	t.Errorf("%d of %d configurator cases disagree with Java Dubbo (written to %s)", len(bad), n, dump)
}

// hasKeySuffix reports whether a case has a config-center rule whose key
// ends with suffix.
func hasKeySuffix(c *Case, suffix string) bool {
	for _, r := range c.Rules {
		if r.Key != nil && strings.HasSuffix(*r.Key, suffix) {
			return true
		}
	}
	return false
}

// configuresProviders reports whether Java's answer shows a provider
// weight other than the default (a configurator reached a provider).
func configuresProviders(java json.RawMessage) bool {
	var a struct {
		Weights map[string]string `json:"weights"`
	}
	if json.Unmarshal(java, &a) != nil {
		return false
	}
	for _, w := range a.Weights {
		if w != "100" {
			return true
		}
	}
	return false
}
