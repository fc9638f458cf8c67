package cluster

import (
	"sync"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/router"
)

func branchCounters(s *Snapshot, name string) *BranchCounters {
	for _, b := range s.BranchCounters() {
		if b.Router == name {
			return &b
		}
	}
	return nil
}

func count(b *BranchCounters, scope string, br router.Branch) uint64 {
	if b == nil {
		return 0
	}
	var n uint64
	for _, v := range b.Values {
		if v.Scope == scope && v.Branch == br {
			n += v.Count
		}
	}
	return n
}

// TestBranchCountersAcrossRebuilds: calls through the chain are counted per
// branch; a provider change keeps the counters of a rule version, a new
// version starts from zero; explain (a traced route) counts neither the
// branches nor the per-router outcomes.
func TestBranchCountersAcrossRebuilds(t *testing.T) {
	o := &countObs{}
	c := New(consumerURL("demo-consumer1"), Options{Name: iface, Observer: o})
	a, b := invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")
	c.SetInvokers([]base.Invoker{a, b})
	c.SetRule(SlotService, condRule(t, "svc", serviceRule))
	const q0, q1 = "#0 method=queryAll => address=*:20880", "#1 method=queryByName => address=*:20881"
	for i := 0; i < 3; i++ {
		c.Route(call("queryAll", nil), nil)
	}
	c.Route(call("queryByName", nil), nil)
	c.Route(call("queryAll", nil), &router.Trace{}) // explain: not counted
	svc := branchCounters(c.Snapshot(), RouterService)
	if svc == nil || svc.Key != "svc" || svc.Version != "3.0#1" || svc.Since.IsZero() {
		t.Fatalf("service counters %+v", svc)
	}
	if count(svc, "rule", router.BranchCalls) != 4 || count(svc, q0, router.BranchMatched) != 3 || count(svc, q1, router.BranchMatched) != 1 ||
		count(svc, q0, router.BranchNotApplicable) != 1 {
		t.Errorf("service counters %+v", svc.Values)
	}
	if got := o.routed[int(SlotService)+1][OutcomeFiltered].Load(); got != 4 {
		t.Errorf("service filtered = %d, want 4 (explain not counted)", got)
	}
	// A provider joins: same rule version, the counting goes on.
	c.SetInvokers([]base.Invoker{a, b, invoker(t, "127.0.0.2:20880", "")})
	c.Route(call("queryAll", nil), nil)
	svc = branchCounters(c.Snapshot(), RouterService)
	if got := count(svc, q0, router.BranchMatched); got != 4 {
		t.Errorf("after a provider change: matched %d, want 4", got)
	}
	// A new version of the rule: from zero.
	ref := condRule(t, "svc", serviceRule)
	ref.Version = "3.0#2"
	c.SetRule(SlotService, ref)
	c.Route(call("queryByName", nil), nil)
	svc = branchCounters(c.Snapshot(), RouterService)
	if svc.Version != "3.0#2" || count(svc, "rule", router.BranchCalls) != 1 || count(svc, q0, router.BranchMatched) != 0 {
		t.Errorf("new version counters %+v", svc)
	}
	// The tag router always routes: static tags without a rule.
	if tg := branchCounters(c.Snapshot(), RouterTag); tg == nil || tg.Key != "" || count(tg, "static tags", router.BranchTagless) != 6 {
		t.Errorf("tag counters %+v", tg)
	}
	// The slots without a rule have no counters.
	if x := branchCounters(c.Snapshot(), RouterConsumerApp); x != nil {
		t.Errorf("app counters without a rule: %+v", x)
	}
}

// TestBranchCountersNoLossAcrossRebuilds: calls on several goroutines while
// the provider list changes under them: every call is counted once, in the
// cells of the rule version, whichever snapshot routed it.
func TestBranchCountersNoLossAcrossRebuilds(t *testing.T) {
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	a, b, x := invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", ""), invoker(t, "127.0.0.2:20880", "")
	c.SetInvokers([]base.Invoker{a, b})
	c.SetRule(SlotService, condRule(t, "svc", serviceRule))
	const workers, calls = 4, 500
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 60; i++ {
			if i%2 == 0 {
				c.SetInvokers([]base.Invoker{a, b, x})
			} else {
				c.SetInvokers([]base.Invoker{a, b})
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inv := call("queryAll", nil)
			for i := 0; i < calls; i++ {
				if len(c.Route(inv, nil)) == 0 {
					t.Error("queryAll found no provider")
					return
				}
			}
		}()
	}
	wg.Wait()
	<-done
	svc := branchCounters(c.Snapshot(), RouterService)
	if got := count(svc, "#0 method=queryAll => address=*:20880", router.BranchMatched); got != workers*calls {
		t.Errorf("matched = %d after %d calls across 60 rebuilds", got, workers*calls)
	}
	if got := count(branchCounters(c.Snapshot(), RouterTag), "static tags", router.BranchTagless); got != workers*calls {
		t.Errorf("tag tagless = %d after %d calls", got, workers*calls)
	}
}
