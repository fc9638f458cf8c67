package router

import (
	"sync"
	"testing"
)

func TestCountersDerivedAndAdopt(t *testing.T) {
	owner := new(int)
	layout := func() *CounterLayout {
		var l CounterLayout
		calls := l.Derive("rule", BranchCalls)
		none := l.Add("rule", BranchNotApplicable)
		na := l.Derive("#0", BranchNotApplicable)
		m := l.AddPair("#0", BranchMatched, "")
		f := l.AddPair("#0", BranchFallback, "")
		l.SetTerms(calls, []int32{none, m, f}, nil)
		l.SetTerms(na, []int32{calls}, []int32{m, m + 1, f, f + 1})
		return &l
	}
	c := layout().Build(owner)
	// Cells: 0 calls (derived), 1 none, 2 #0 not-applicable (derived),
	// 3/4 matched first/later, 5/6 fallback first/later.
	for id, n := range map[int32]int{1: 6, 3: 3, 4: 2, 5: 1} {
		for i := 0; i < n; i++ {
			c.Inc(id)
		}
	}
	c.Inc(-1) // no such cell: ignored
	c.Inc(99)
	if got := c.Count("rule", BranchCalls); got != 6+3+1 {
		t.Errorf("calls = %d, want 10 (none + first decisions)", got)
	}
	if got := c.Count("#0", BranchMatched); got != 5 {
		t.Errorf("matched = %d, want 3 first + 2 later", got)
	}
	if got := c.Count("#0", BranchNotApplicable); got != 10-5-1 {
		t.Errorf("not-applicable = %d, want 4", got)
	}
	if n := len(c.Values()); n != 5 {
		t.Errorf("%d values shown, want 5 (hidden halves of pairs folded): %+v", n, c.Values())
	}
	// Same owner and layout: the previous block goes on counting.
	if n := layout().Build(owner).Adopt(c); n != c {
		t.Error("same owner and layout not adopted")
	}
	// Another owner (a new rule version) or layout: a fresh block.
	if n := layout().Build(new(int)).Adopt(c); n == c || n.Count("rule", BranchCalls) != 0 {
		t.Error("another owner adopted the counts")
	}
	var l CounterLayout
	l.Add("rule", BranchCalls)
	if n := l.Build(owner).Adopt(c); n == c {
		t.Error("another layout adopted the counts")
	}
	// A derived cell never goes below zero.
	d := layout().Build(owner)
	d.Inc(4)
	if got := d.Count("#0", BranchNotApplicable); got != 0 {
		t.Errorf("derived below zero: %d", got)
	}
	var nilc *Counters
	nilc.Inc(0)
	if nilc.Values() != nil || nilc.Adopt(c) != nil {
		t.Error("nil block")
	}
}

// TestCountersConcurrent: adds from many goroutines are all counted (run
// with -race), and Inc does not allocate.
func TestCountersConcurrent(t *testing.T) {
	var l CounterLayout
	id := l.Add("rule", BranchCalls)
	c := l.Build(nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				c.Inc(id)
			}
		}()
	}
	wg.Wait()
	if got := c.Count("rule", BranchCalls); got != 8000 {
		t.Errorf("count %d, want 8000", got)
	}
	if a := testing.AllocsPerRun(1000, func() { c.Inc(id) }); a != 0 {
		t.Errorf("Inc allocates %v", a)
	}
}

// BenchmarkCountersInc is the cost of counting one branch of one call (an
// uncontended atomic add; RunParallel adds the contended case, every
// goroutine counting into the same cell).
func BenchmarkCountersInc(b *testing.B) {
	var l CounterLayout
	id := l.Add("rule", BranchCalls)
	c := l.Build(nil)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			c.Inc(id)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.Inc(id)
			}
		})
	})
}

func TestCountedTook(t *testing.T) {
	var l CounterLayout
	id := l.Add("rule", BranchMatched)
	var c Counted
	c.SetCounters(l.Build(new(int)))
	if c.Took(nil, id, BranchMatched) {
		t.Error("Took without a step wants a detail")
	}
	var step Step
	if !c.Took(&step, id, BranchMatched) || step.Branch != BranchMatched {
		t.Errorf("Took with a step: branch %q, want %q and a detail", step.Branch, BranchMatched)
	}
	if got := c.Counters().Count("rule", BranchMatched); got != 1 {
		t.Errorf("count = %d, want 1 (the traced call is not counted)", got)
	}
}
