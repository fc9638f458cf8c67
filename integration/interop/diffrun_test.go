package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
)

// cliPkg is the dubboroute command the differentials evaluate cases with.
const cliPkg = "github.com/dubboroute/dubboroute/cmd/dubboroute"

var (
	cliOnce sync.Once
	cliBin  string
	cliErr  error
)

// routeBinary builds cmd/dubboroute without -race once per test binary. The
// differentials run its `route --batch` (cli.Run, the code RunRoute runs in
// process) on thousands of cases: under -race that side took longer than
// Java's (mesh: 4 min against 2). Everything it runs is covered by -race in
// the unit tests of internal/cli and the routers, and the small fixture
// tests still call RunRoute in this -race binary.
func routeBinary(t *testing.T) string {
	t.Helper()
	cliOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dubboroute-cli-")
		if err != nil {
			cliErr = err
			return
		}
		harness.RemoveAtExit(dir)
		if err := harness.Build(dir, false, cliPkg); err != nil {
			cliErr = err
			return
		}
		cliBin = filepath.Join(dir, "dubboroute")
	})
	if cliErr != nil {
		t.Fatalf("build %s: %v", cliPkg, cliErr)
	}
	return cliBin
}

// bothSides evaluates javaCases with the Java oracle (one JVM per CPU, each
// on a contiguous share of the cases) and goCases with dubboroute's route
// command (a non-race build, its own process), all at the same time: the
// sides share nothing, and every case is evaluated on its own
// (TestMeshOracleIsolation), so on two cores they run side by side instead
// of one after the other. It fails t if either side cannot run and logs how
// long each took.
func bothSides(t *testing.T, what string, javaCases, goCases []Case) (java, goAns []json.RawMessage) {
	t.Helper()
	bin := routeBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var (
		wg                 sync.WaitGroup
		javaErr, goErr     error
		javaTime, goTime   time.Duration
		javaStart, goStart = time.Now(), time.Now()
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		java, javaErr = runOracleShards(ctx, javaCases, runtime.NumCPU())
		javaTime = time.Since(javaStart)
	}()
	go func() {
		defer wg.Done()
		goAns, goErr = RunRouteBinary(ctx, bin, goCases)
		goTime = time.Since(goStart)
	}()
	wg.Wait()
	if javaErr != nil {
		t.Fatal(javaErr)
	}
	if goErr != nil {
		t.Fatal(goErr)
	}
	t.Logf("%s: Java oracle %v for %d cases (%d JVMs, start included), dubboroute route %v for %d cases (side by side)",
		what, javaTime.Round(time.Millisecond), len(javaCases), runtime.NumCPU(), goTime.Round(time.Millisecond), len(goCases))
	return java, goAns
}

// runOracleShards is RunOracle over shards JVMs at once, each given a
// contiguous share of cases; the answers come back in input order.
func runOracleShards(ctx context.Context, cases []Case, shards int) ([]json.RawMessage, error) {
	if shards > len(cases) {
		shards = len(cases)
	}
	if shards <= 1 {
		return RunOracle(ctx, cases)
	}
	answers := make([][]json.RawMessage, shards)
	errs := make([]error, shards)
	var wg sync.WaitGroup
	for i := 0; i < shards; i++ {
		lo, hi := i*len(cases)/shards, (i+1)*len(cases)/shards
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = RunOracle(ctx, cases[lo:hi])
		}()
	}
	wg.Wait()
	var out []json.RawMessage
	for i := range answers {
		if errs[i] != nil {
			return nil, fmt.Errorf("oracle shard %d of %d: %w", i+1, shards, errs[i])
		}
		out = append(out, answers[i]...)
	}
	return out, nil
}

// differential generates n cases with next (IDs "<prefix><seed>-<i>"),
// evaluates them with the Java oracle and with dubboroute's route command
// (bothSides), and returns the cases and both sides' raw answers,
// index-aligned.
func differential(t *testing.T, what, prefix string, n int, seed uint64, next func(g *Generator, id string) Case) ([]Case, []json.RawMessage, []json.RawMessage) {
	t.Helper()
	g := NewGenerator(seed)
	cases := make([]Case, n)
	for i := range cases {
		cases[i] = next(g, fmt.Sprintf("%s%d-%d", prefix, seed, i))
	}
	java, goAns := bothSides(t, fmt.Sprintf("%d %s cases (seed %d)", n, what, seed), cases, cases)
	return cases, java, goAns
}

// comparison says how one differential compares the two sides' answers.
type comparison struct {
	what  string // the kind of cases, in messages ("mesh")
	shown int    // disagreements printed in full (the rest are counted)
	// record: with DUBBOROUTE_ORACLE_RECORD=1 the disagreements are appended
	// to testdata/regressions.jsonl.
	record bool
	// count tallies the features case i exercises (every case).
	count func(i int, java Answer, stats map[string]int)
	// exclude names the documented or pinned divergence case i runs into
	// (given the diff of the two answers, "" when they agree), or "": such
	// cases are counted as "excluded: <why>", not compared.
	exclude func(i int, java, goAns Answer, diff string) string
	// agreed tallies a case that was compared and agreed.
	agreed func(i int, java Answer, stats map[string]int)
}

// compareAll is the comparator of every oracle differential: it normalises
// both sides' answers, tallies features, leaves out the excluded cases,
// requires equal answers for the rest, and fails t with every disagreement
// (the first cmp.shown in full, all of them written as fixture lines to
// DUBBOROUTE_ORACLE_DUMP or a temporary file). It returns the stats.
func compareAll(t *testing.T, cases []Case, java, goAns []json.RawMessage, cmp comparison) map[string]int {
	t.Helper()
	stats := map[string]int{}
	var bad []Fixture
	for i := range cases {
		ja, ga := normalizeBoth(t, java[i], goAns[i])
		if cmp.count != nil {
			cmp.count(i, ja, stats)
		}
		d := Diff(ja, ga)
		if cmp.exclude != nil {
			if why := cmp.exclude(i, ja, ga, d); why != "" {
				stats["excluded: "+why]++
				continue
			}
		}
		if d != "" {
			gcopy := ga
			bad = append(bad, Fixture{Case: cases[i], Java: ja, Go: &gcopy, Found: d})
		} else if cmp.agreed != nil {
			cmp.agreed(i, ja, stats)
		}
	}
	var excluded []string
	for k, v := range stats {
		if strings.HasPrefix(k, "excluded: ") {
			excluded = append(excluded, fmt.Sprintf("%s: %d cases", k, v))
		}
	}
	sort.Strings(excluded)
	for _, e := range excluded {
		t.Log(e)
	}
	if len(bad) == 0 {
		return stats
	}
	if cmp.record && os.Getenv(envRecord) == "1" {
		if err := AppendFixtures(regressionsFile, bad); err != nil {
			t.Error(err)
		}
	}
	dump := os.Getenv(envDump)
	if dump == "" {
		dump = filepath.Join(t.TempDir(), "disagreements.jsonl")
	}
	if err := AppendFixtures(dump, bad); err != nil {
		t.Error(err)
	}
	shown := cmp.shown
	if shown == 0 {
		shown = 20
	}
	for i, f := range bad {
		if i == shown {
			t.Errorf("... and %d more", len(bad)-shown)
			break
		}
		line, _ := json.Marshal(f.Case)
		k := indexOf(cases, f.Case.ID)
		t.Errorf("case %s disagrees: %s\n  case: %s\n  java: %s\n  go: %s", f.Case.ID, f.Found, line, java[k], goAns[k])
	}
	msg := fmt.Sprintf("%d of %d %s cases disagree with Java Dubbo (written to %s)", len(bad), len(cases), cmp.what, dump)
	if cmp.record {
		msg += fmt.Sprintf("; rerun with %s=1 to keep them in %s (after finding the cause)", envRecord, regressionsFile)
	}
	t.Error(msg)
	return stats
}

// normalizeBoth normalises one case's Java and Go answers, failing t if
// either is not an answer line.
func normalizeBoth(t *testing.T, java, goAns json.RawMessage) (Answer, Answer) {
	t.Helper()
	ja, err := Normalize(java)
	if err != nil {
		t.Fatal(err)
	}
	ga, err := Normalize(goAns)
	if err != nil {
		t.Fatal(err)
	}
	return ja, ga
}
