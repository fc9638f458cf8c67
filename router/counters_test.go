package router

import (
	"sync"
	"testing"
)

func TestCountersDerivedAndAdopt(t *testing.T) {
	owner := new(int)
	layout := func() *CounterLayout {
		var l CounterLayout
		calls := l.Add("rule", BranchCalls)
		na := l.Len()
		l.Derive("#0", BranchNotApplicable, calls, nil)
		m := l.Add("#0", BranchMatched)
		f := l.Add("#0", BranchFallback)
		l.SetMinus(na, []int32{m, f})
		return &l
	}
	c := layout().Build(owner)
	for i := 0; i < 10; i++ {
		c.Inc(0)
	}
	for i := 0; i < 3; i++ {
		c.Inc(2)
	}
	c.Inc(3)
	c.Inc(-1) // no such cell: ignored
	c.Inc(99)
	if got := c.Count("#0", BranchNotApplicable); got != 6 {
		t.Errorf("not-applicable = %d, want 10-3-1 = 6", got)
	}
	if c.Count("rule", BranchCalls) != 10 || c.Count("#0", BranchMatched) != 3 || c.Count("#0", BranchFallback) != 1 {
		t.Errorf("values %+v", c.Values())
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
	d.Inc(2)
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
