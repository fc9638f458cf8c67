package interop

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Environment knobs of the differential test.
const (
	envCases  = "DUBBOROUTE_ORACLE_CASES"  // number of random cases (default defaultCases)
	envSeed   = "DUBBOROUTE_ORACLE_SEED"   // generator seed (default defaultSeed)
	envRecord = "DUBBOROUTE_ORACLE_RECORD" // "1": append new disagreements to testdata/regressions.jsonl
	envDump   = "DUBBOROUTE_ORACLE_DUMP"   // a file to write the disagreements to (fixture lines)
)

const (
	defaultCases = 6000
	defaultSeed  = 20240507
)

const (
	regressionsFile = "testdata/regressions.jsonl"
	knownFile       = "testdata/known-divergences.jsonl"
)

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// TestOracleDifferential generates random cases covering the condition and
// tag rule languages, evaluates each with Java Dubbo 3.3.6's own routers (the
// oracle, one JVM) and with dubboroute's route command (in process), and
// requires the same answer: the same distribution of provider sets (v3.1
// weighted picks compared by Java's exact probabilities), the same rejected
// rules and the same unread keys. Every disagreement fails the test and is
// printed as a fixture line for testdata/regressions.jsonl.
func TestOracleDifferential(t *testing.T) {
	n := envInt(t, envCases, defaultCases)
	seed := uint64(envInt(t, envSeed, defaultSeed))
	g := NewGenerator(seed)
	cases := make([]Case, n)
	for i := range cases {
		cases[i] = g.Next(fmt.Sprintf("r%d-%d", seed, i))
	}
	// The fixtures ride along in the same JVM run: Java must still give
	// the answers they record.
	var fixtures []Fixture
	for _, file := range []string{regressionsFile, knownFile} {
		fs, err := ReadFixtures(file)
		if err != nil {
			t.Fatal(err)
		}
		fixtures = append(fixtures, fs...)
	}
	all := append([]Case(nil), cases...)
	for _, f := range fixtures {
		all = append(all, f.Case)
	}
	javaAll, goAns := bothSides(t, fmt.Sprintf("%d random cases (seed %d) + %d fixtures", n, seed, len(fixtures)), all, cases)
	for i, f := range fixtures {
		ja, err := Normalize(javaAll[n+i])
		if err != nil {
			t.Fatal(err)
		}
		if d := Diff(f.Java, ja); d != "" {
			t.Errorf("fixture %s: Java's answer changed (recorded vs now: %s)", f.Case.ID, d)
		}
	}
	stats := compareAll(t, cases, javaAll[:n], goAns, comparison{
		what:   "random",
		record: true,
		count:  func(i int, ja Answer, stats map[string]int) { countFeatures(stats, &cases[i], ja) },
		exclude: func(i int, ja, _ Answer, _ string) string {
			return divergence(&cases[i], ja)
		},
	})
	t.Logf("coverage: %s", statString(stats))
	checkCoverage(t, stats)
}

func indexOf(cases []Case, id string) int {
	for i := range cases {
		if cases[i].ID == id {
			return i
		}
	}
	return -1
}

// countFeatures tallies which features of the languages a case exercises,
// so the test can show (and require) that the generator covers them.
func countFeatures(stats map[string]int, c *Case, java Answer) {
	for _, r := range c.Rules {
		var text string
		switch {
		case r.Condition != nil:
			stats["single condition"]++
			text = *r.Condition
		case r.URL != nil:
			stats["registry url"]++
			text = *r.URL
		case r.Key != nil && r.Content == nil:
			stats["delete event"]++
			continue
		case r.Key != nil:
			text = *r.Content
			switch {
			case strings.HasSuffix(*r.Key, ".tag-router"):
				stats["tag rule"]++
				if strings.Contains(text, "match:") {
					stats["tag match"]++
				}
				if strings.Contains(text, "addresses: [") {
					stats["tag addresses"]++
				}
				if strings.Contains(text, "/") {
					stats["cidr"]++
				}
				if strings.Contains(text, "0.0.0.0:") {
					stats["0.0.0.0:port"]++
				}
				if strings.Contains(text, "|") {
					stats["multi-level tag"]++
				}
			case strings.Contains(strings.ToLower(text), "configversion: v3.1"):
				stats["v3.1 rule"]++
				if strings.Contains(text, "weight:") {
					stats["v3.1 weight"]++
				}
			default:
				stats["v3.0 rule"]++
			}
		}
		for _, f := range []string{"arguments[", "attachments[", "$", "~", "!=", "*", "consumer.", "provider.", "method", "host", "address", "port", "application", "nokey", "force: true", "enabled: false"} {
			if strings.Contains(text, f) {
				stats[f]++
			}
		}
	}
	if strings.HasPrefix(c.Invocation.Method, "$invoke") {
		stats["generic $invoke"]++
	}
	if c.Invocation.Attachments["dubbo.force.tag"] != "" || strings.Contains(c.ConsumerURL, "dubbo.force.tag") {
		stats["dubbo.force.tag"]++
	}
	if c.Invocation.Attachments["dubbo.tag"] != "" || strings.Contains(c.ConsumerURL, "dubbo.tag") {
		stats["request tag"]++
	}
	for _, p := range c.Providers {
		if strings.Contains(p.URL, "dubbo.tag=") {
			stats["static provider tag"]++
			break
		}
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

func statString(stats map[string]int) string {
	var parts []string
	for _, k := range coverageKeys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, stats[k]))
	}
	return strings.Join(parts, " ")
}

var coverageKeys = []string{
	"single condition", "registry url", "v3.0 rule", "v3.1 rule", "v3.1 weight", "tag rule", "tag addresses", "tag match",
	"cidr", "0.0.0.0:port", "multi-level tag", "delete event", "arguments[", "attachments[", "$", "~", "!=", "*",
	"consumer.", "provider.", "method", "host", "address", "port", "application", "nokey", "force: true",
	"enabled: false", "generic $invoke", "dubbo.force.tag", "request tag", "static provider tag",
	"weighted outcome", "rejected rule", "unread key", "empty result",
}

// checkCoverage fails when a feature of the grammar was never generated
// (only meaningful for runs of at least the default size).
func checkCoverage(t *testing.T, stats map[string]int) {
	t.Helper()
	if envInt(t, envCases, defaultCases) < 5000 {
		return
	}
	for _, k := range coverageKeys {
		if stats[k] < 10 {
			t.Errorf("generator coverage: %q exercised %d times (want >= 10)", k, stats[k])
		}
	}
}

// divergence names the documented (docs/divergences.md) or
// known and reported (testdata/known-divergences.jsonl) disagreement a case
// runs into, or "". Such cases are counted, not compared.
//
// Both come from one mechanism of Java's ListenableStateRouter: every
// update that parses replaces its routerRule at once (null for a
// configVersion above v3.1), even when building its conditions then fails
// or the rule has no conditions, and routing uses the router list of that
// rule's format (v3.1 list for a v3.1 rule, else the v3.0 list) as last
// built successfully. dubboroute keeps the last accepted rule instead. The
// two differ when a rejected, empty or too-new update switches the format.
func divergence(c *Case, java Answer) string {
	rejected := map[int]bool{}
	for _, i := range java.Rejected {
		rejected[i] = true
	}
	capp, papp := appOf(c.ConsumerURL), ""
	if len(c.Providers) > 0 {
		papp = appOf(c.Providers[0].URL)
	}
	// Which Java routers receive a key's events: the consumer-app key also
	// feeds the provider-app router (ProviderAppStateRouter's quirk), which
	// holds one routerRule for both keys.
	routersOf := func(key string) []string {
		switch key {
		case capp + ".condition-router":
			return []string{"app", "provider-app"}
		case papp + ".condition-router":
			return []string{"provider-app"}
		}
		return []string{key}
	}
	// The order Java's routers see contents in: first contents of
	// consumer-side keys (read at construction), then first contents of
	// provider-application keys (read at the first address notification),
	// then every later content as a change event.
	var initial, late, updates []int
	first := map[string]bool{}
	for i, r := range c.Rules {
		if r.Key == nil || !strings.HasSuffix(*r.Key, ".condition-router") {
			continue
		}
		switch {
		case first[*r.Key]:
			updates = append(updates, i)
		case *r.Key == papp+".condition-router" && papp != capp:
			late = append(late, i)
		default:
			initial = append(initial, i)
		}
		first[*r.Key] = true
	}
	lastGood := map[string]string{} // router -> format of the last accepted content
	seen := map[string]bool{}       // router -> received content before
	for _, i := range slices.Concat(initial, late, updates) {
		r := c.Rules[i]
		for _, rt := range routersOf(*r.Key) {
			earlier := seen[rt]
			seen[rt] = true
			if r.Content == nil {
				delete(lastGood, rt)
				continue
			}
			v := strings.ToLower(configVersion(*r.Content))
			format := "v3.0"
			if strings.HasPrefix(v, "v3.1") {
				format = "v3.1"
			}
			tooNew := strings.HasPrefix(v, "v") && !strings.HasPrefix(v, "v3.1") && v > "v3.1"
			empty := !strings.Contains(*r.Content, "conditions:") || strings.Contains(*r.Content, "conditions: []")
			bad := rejected[i] || empty || tooNew
			prev, hasPrev := lastGood[rt]
			if earlier && bad && hasPrev && prev != format {
				if tooNew {
					return "configVersion above v3.1 replacing a v3.1 rule (documented)"
				}
				return "rejected or empty update switching the rule format (known-format-switch-update)"
			}
			if !bad {
				lastGood[rt] = format
			}
		}
	}
	return ""
}

// appOf is the application parameter of a URL.
func appOf(u string) string {
	_, q, _ := strings.Cut(u, "?")
	for _, kv := range strings.Split(q, "&") {
		if v, ok := strings.CutPrefix(kv, "application="); ok {
			return v
		}
	}
	return ""
}

// configVersion is the value of a top-level configVersion line.
func configVersion(content string) string {
	for _, line := range strings.Split(content, "\n") {
		if v, ok := strings.CutPrefix(line, "configVersion:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
