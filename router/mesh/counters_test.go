package mesh

import (
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// TestCounters: per application, the subset each call was routed to (the
// drawn destination or its fallback), the no-match and the no-subset
// branches hold exact counts after known calls; traced routes count nothing.
func TestCounters(t *testing.T) {
	c, all, call := benchSetup(t, 30) // draws 1, 2, 3, ... mod 100
	for i := 0; i < 100; i++ {
		c.Route(all, call, nil)
		c.Route(all, call, &router.Step{})
	}
	miss := &router.Call{Method: "other", Args: []any{"x"}, Attachments: router.AttachmentMap{}}
	for i := 0; i < 7; i++ {
		c.Route(all, miss, nil)
	}
	ac := c.Counters()
	if len(ac) != 1 || ac[0].App != "prov-a" || ac[0].Key != "prov-a.MESHAPPRULE" {
		t.Fatalf("counters %+v", ac)
	}
	cnt := ac[0].Counters
	// The counted (untraced) calls draw the odd r = 1, 3, ..., 99 twice
	// each over weights 20, 30, 50; Java takes the first with r <= its
	// cumulative weight: r <= 20 (20 counted draws) picks "gone" and falls
	// back to v3; 21..50 v2 (30); 51..99 v1 (50).
	const sc = "prov-a routedetail[1] (gray)"
	for _, w := range []struct {
		br     router.Branch
		detail string
		n      uint64
	}{
		{router.BranchFallback, "route[0] subset gone → fallback v3", 20},
		{router.BranchDestination, "route[0] subset gone", 0},
		{router.BranchDestination, "route[1] subset v2", 30},
		{router.BranchDestination, "route[2] subset v1", 50},
	} {
		if got := cnt.CountDetail(sc, w.br, w.detail); got != w.n {
			t.Errorf("%s %s = %d, want %d (%+v)", w.br, w.detail, got, w.n, cnt.Values())
		}
	}
	if got := cnt.Count("prov-a", BranchNoMatch); got != 7 {
		t.Errorf("mesh-no-match = %d, want 7", got)
	}
	if got := cnt.Count(sc, BranchNoSubset); got != 0 {
		t.Errorf("no-subset = %d", got)
	}
	// No provider of any subset in the input: no-subset.
	c.Route(c.u.Of(4), call, nil) // member 4 is prov-b's
	if got := cnt.Count(sc, BranchNoSubset); got != 1 {
		t.Errorf("no-subset = %d, want 1", got)
	}
	// The same application rule (the same accepted version) compiled for
	// other providers keeps counting; a rule parsed again starts anew.
	c2, _, _ := benchSetupRule(20, c.apps[0].rule)
	c2.AdoptCounters(c)
	if c2.Counters()[0].Counters != cnt {
		t.Error("rebuild with the same rule did not adopt the counters")
	}
	c3, _, _ := benchSetup(t, 20)
	c3.AdoptCounters(c)
	if c3.Counters()[0].Counters == cnt {
		t.Error("a rule parsed again adopted the counters")
	}
}
