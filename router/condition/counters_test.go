package condition

import (
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

func counterProviders() []*router.URL {
	return []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/com.foo.BarService?region=hz&env=gray"),
		router.MustParseURL("dubbo://10.0.0.2:20880/com.foo.BarService?region=hz"),
		router.MustParseURL("dubbo://10.0.0.3:20881/com.foo.BarService?region=sh"),
		router.MustParseURL("dubbo://10.0.0.4:20881/com.foo.BarService?region=sh"),
	}
}

func compileCounted(t *testing.T, yml string, rnd router.Rand) (*Compiled, *router.Universe) {
	t.Helper()
	r, err := ParseRule(yml)
	if err != nil {
		t.Fatal(err)
	}
	urls := counterProviders()
	u := router.NewUniverse(len(urls))
	return r.Compile(u, router.MustParseURL(specConsumerText), urls, CompileOptions{Rand: rnd}), u
}

// route routes n calls of method on the call path (no step).
func route(c *Compiled, u *router.Universe, method string, n int) {
	for i := 0; i < n; i++ {
		c.Route(u.All(), &router.Call{Method: method}, nil)
	}
}

type want struct {
	scope  string
	branch router.Branch
	n      uint64
}

func checkCounts(t *testing.T, c *router.Counters, wants []want) {
	t.Helper()
	for _, w := range wants {
		if got := c.Count(w.scope, w.branch); got != w.n {
			t.Errorf("%s %s = %d, want %d", w.scope, w.branch, got, w.n)
		}
	}
}

const counterRuleV30 = `scope: service
key: com.foo.BarService
force: %s
conditions:
  - method = a => region = hz
  - method = b => region = bj
  - method = c => false
  - method = a,b => env = gray
`

// TestCountersV30: after known calls every condition line's branches hold
// the exact counts (not-applicable derived), and a traced route (explain)
// counts nothing.
func TestCountersV30(t *testing.T) {
	c, u := compileCounted(t, sprintf(counterRuleV30, "false"), nil)
	route(c, u, "a", 3) // #0 matched, #3 matched
	route(c, u, "b", 2) // #1 fallback (no bj), #3 matched
	route(c, u, "c", 1) // #2 blacklist, #3 empty input
	route(c, u, "d", 4) // nothing applies
	c.Route(u.All(), &router.Call{Method: "a"}, &router.Step{})
	const l0, l1, l2, l3 = "#0 method = a => region = hz", "#1 method = b => region = bj", "#2 method = c => false", "#3 method = a,b => env = gray"
	checkCounts(t, c.Counters(), []want{
		{"rule", router.BranchCalls, 10}, {"rule", router.BranchNotApplicable, 4},
		{l0, router.BranchMatched, 3}, {l0, router.BranchNotApplicable, 7}, {l0, router.BranchFallback, 0},
		{l1, router.BranchFallback, 2}, {l1, router.BranchNotApplicable, 8}, {l1, router.BranchMatched, 0},
		{l2, router.BranchBlacklist, 1}, {l2, router.BranchNotApplicable, 9},
		{l3, router.BranchMatched, 5}, {l3, router.BranchEmptyInput, 1}, {l3, router.BranchNotApplicable, 4},
	})

	c, u = compileCounted(t, sprintf(counterRuleV30, "true"), nil)
	route(c, u, "b", 2) // #1 force-empty, then #2 and #3 see no provider
	checkCounts(t, c.Counters(), []want{
		{"rule", router.BranchCalls, 2},
		{l1, router.BranchForceEmpty, 2}, {l1, router.BranchFallback, 0},
		{l2, router.BranchEmptyInput, 2}, {l3, router.BranchEmptyInput, 2}, {l3, router.BranchNotApplicable, 0},
	})

	c, u = compileCounted(t, "enabled: false\n"+sprintf(counterRuleV30, "true"), nil)
	route(c, u, "a", 3)
	if v := c.Counters().Values(); len(v) != 1 || v[0].Branch != router.BranchDisabled || v[0].Count != 3 {
		t.Errorf("disabled rule counters %+v", v)
	}
}

const counterRuleV31 = `configVersion: v3.1
force: false
conditions:
  - from: {match: method=a}
    to:
      - {match: region=hz, weight: 30}
      - {match: region=sh, weight: 70}
  - from: {match: method=b}
    to:
      - {match: region=bj}
`

// TestCountersV31: every destination's picks are counted, by the scripted
// draws.
func TestCountersV31(t *testing.T) {
	draws := []uint64{0, 50, 99, 10, 30, 31}
	i := 0
	rnd := func(n uint64) uint64 { d := draws[i%len(draws)] % n; i++; return d }
	c, u := compileCounted(t, counterRuleV31, rnd)
	route(c, u, "a", 6) // r <= 30 (Java): to[0]: 0, 10, 30; else to[1]: 50, 99, 31
	route(c, u, "b", 2) // no bj: fallback
	const l0, l1 = "#0 method=a => region=hz (30) | region=sh (70)", "#1 method=b => region=bj (100)"
	cnt := c.Counters()
	checkCounts(t, cnt, []want{{"rule", router.BranchCalls, 8}, {l0, router.BranchNotApplicable, 2}, {l1, router.BranchFallback, 2}, {l1, router.BranchNotApplicable, 6}})
	if a, b := cnt.CountDetail(l0, router.BranchDestination, "to[0] region=hz (weight 30)"), cnt.CountDetail(l0, router.BranchDestination, "to[1] region=sh (weight 70)"); a != 3 || b != 3 {
		t.Errorf("picks %d and %d, want 3 and 3; counters %+v", a, b, cnt.Values())
	}
}

// TestCountersAdopt: a compile of the same rule for a new provider
// snapshot keeps counting into the same cells; a new rule version starts
// from zero.
func TestCountersAdopt(t *testing.T) {
	r, err := ParseRule(sprintf(counterRuleV30, "false"))
	if err != nil {
		t.Fatal(err)
	}
	urls := counterProviders()
	u := router.NewUniverse(len(urls))
	c1 := r.Compile(u, nil, urls, CompileOptions{})
	route(c1, u, "a", 2)
	u2 := router.NewUniverse(len(urls) - 1)
	c2 := r.Compile(u2, nil, urls[:3], CompileOptions{})
	c2.Cells().AdoptCounters(c1.Cells())
	route(c2, u2, "a", 1)
	route(c1, u, "a", 1) // a call still on the previous snapshot
	if got := c2.Counters().Count("rule", router.BranchCalls); got != 4 {
		t.Errorf("adopted calls = %d, want 4", got)
	}
	r2, _ := ParseRule(sprintf(counterRuleV30, "false"))
	c3 := r2.Compile(u2, nil, urls[:3], CompileOptions{})
	c3.Cells().AdoptCounters(c2.Cells())
	if got := c3.Counters().Count("rule", router.BranchCalls); got != 0 {
		t.Errorf("new rule version starts at %d, want 0", got)
	}
}

func sprintf(format, a string) string { return fmt.Sprintf(format, a) }
