package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// differential generates n cases with next (IDs "<prefix><seed>-<i>"),
// evaluates them with the Java oracle and with dubboroute's route command,
// fails t if either side cannot run, logs how long each took, and returns the
// cases and both sides' raw answers, index-aligned.
func differential(t *testing.T, what, prefix string, n int, seed uint64, next func(g *Generator, id string) Case) ([]Case, []json.RawMessage, []json.RawMessage) {
	t.Helper()
	g := NewGenerator(seed)
	cases := make([]Case, n)
	for i := range cases {
		cases[i] = next(g, fmt.Sprintf("%s%d-%d", prefix, seed, i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	begin := time.Now()
	java, err := RunOracle(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	javaTime := time.Since(begin)
	begin = time.Now()
	goAns, err := RunRoute(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d %s cases (seed %d): Java oracle %v, dubboroute route %v", n, what, seed,
		javaTime.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond))
	return cases, java, goAns
}
