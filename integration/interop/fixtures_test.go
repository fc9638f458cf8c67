package interop

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestRegressionFixtures replays every case that ever disagreed with Java
// (testdata/regressions.jsonl, with Java's answer) against dubboroute. It
// needs no JVM; TestOracleDifferential re-checks the Java answers.
func TestRegressionFixtures(t *testing.T) {
	fs, err := ReadFixtures(regressionsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatalf("%s holds no fixtures", regressionsFile)
	}
	got := routeFixtures(t, fs)
	for i, f := range fs {
		if d := Diff(f.Java, got[i]); d != "" {
			t.Errorf("regression %s: %s (found: %s)", f.Case.ID, d, f.Found)
		}
	}
	t.Logf("%d regression fixtures agree with Java", len(fs))
}

// TestKnownDivergences pins the disagreements that are reported but not
// fixed (testdata/known-divergences.jsonl): dubboroute must still give the
// recorded answer. When a fix makes it agree with Java, this fails: move the
// fixture to testdata/regressions.jsonl (without "go").
func TestKnownDivergences(t *testing.T) {
	fs, err := ReadFixtures(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatalf("%s holds no fixtures", knownFile)
	}
	got := routeFixtures(t, fs)
	for i, f := range fs {
		if f.Go == nil {
			t.Errorf("%s: known divergence %s has no recorded go answer", knownFile, f.Case.ID)
			continue
		}
		if Diff(f.Java, got[i]) == "" {
			t.Errorf("known divergence %s now agrees with Java: move it to %s", f.Case.ID, regressionsFile)
			continue
		}
		if d := Diff(*f.Go, got[i]); d != "" {
			t.Errorf("known divergence %s: dubboroute's answer changed (recorded vs now: %s); check it against Java and update %s", f.Case.ID, d, knownFile)
		}
	}
}

func routeFixtures(t *testing.T, fs []Fixture) []Answer {
	t.Helper()
	cases := make([]Case, len(fs))
	for i := range fs {
		cases[i] = fs[i].Case
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lines, err := RunRoute(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Answer, len(lines))
	for i, l := range lines {
		if out[i], err = Normalize(l); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// divergencesDoc is the one table of deliberate divergences from Java.
const divergencesDoc = "../../docs/divergences.md"

// TestDivergencesDocumented: docs/divergences.md holds the divergence table
// as one table, and every pinned case it names (known-...) is in
// testdata/known-divergences.jsonl.
func TestDivergencesDocumented(t *testing.T) {
	doc, err := os.ReadFile(divergencesDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	if n := strings.Count(text, "\n| where | Java 3.3 | dubboroute | why |\n"); n != 1 {
		t.Errorf("%s: %d divergence tables, want exactly one", divergencesDoc, n)
	}
	fs, err := ReadFixtures(knownFile)
	if err != nil {
		t.Fatal(err)
	}
	pinned := map[string]bool{}
	for _, f := range fs {
		pinned[f.Case.ID] = true
	}
	named := regexp.MustCompile("`(known-[a-z0-9-]+)`").FindAllStringSubmatch(text, -1)
	if len(named) == 0 {
		t.Fatalf("%s names no pinned case", divergencesDoc)
	}
	for _, m := range named {
		if !pinned[m[1]] {
			t.Errorf("%s names %s, which %s does not hold", divergencesDoc, m[1], knownFile)
		}
	}
}
