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
// combine routing rules with dynamic configuration (both YAML formats, the
// JSON-array form, every item field, updates, deletes and rules Java
// rejects), evaluates each with Java Dubbo 3.3.6 (Dubbo's own
// AbstractConfiguratorListener, ConfigParser, ConfiguratorFactory and the
// RegistryDirectory override URL and enabled check, then its router chain)
// and with dubboroute's route command, and requires equal answers: the
// routed provider sets, the providers each side kept out, every remaining
// provider's effective weight, the rejected rules and the unread keys.
func TestConfiguratorOracleDifferential(t *testing.T) {
	n := envInt(t, envCfgCases, defaultCfgCases)
	seed := uint64(envInt(t, envCfgSeed, defaultCfgSeed))
	cases, java, goAns := differential(t, "configurator", "cfg", n, seed, (*Generator).NextConfigurators)

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
		if why := divergence(&cases[i], ja); why != "" {
			stats["excluded: "+why]++
			continue
		}
		if d := Diff(ja, ga); d != "" {
			gcopy := ga
			bad = append(bad, Fixture{Case: cases[i], Java: ja, Go: &gcopy, Found: d})
		}
	}
	t.Logf("coverage: %v", stats)
	for _, k := range []string{"with disabled providers", "with a weight other than 100", "with a rejected rule"} {
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
