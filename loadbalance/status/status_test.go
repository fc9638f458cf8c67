package status

import (
	"runtime"
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

func equalTable(n int) *weight.Table {
	ps := make([]weight.Provider, n)
	for i := range ps {
		ps[i] = weight.Provider{Params: weight.Map{"weight": "100"}}
	}
	return weight.NewSet(ps, func() int64 { return 0 }).Table("m")
}

// TestCountsAndWatch: Begin and End count as Java's RpcStatus and move a
// watching index's pick to the least active provider.
func TestCountsAndWatch(t *testing.T) {
	ss := make([]*Status, 3)
	for i := range ss {
		ss[i] = &Status{}
	}
	x := leastactive.NewIndex(3, func(i int) int64 { return ss[i].Active() })
	for i, s := range ss {
		s.Watch(x, i)
	}
	tb := equalTable(3)
	noDraw := func(int) int { t.Fatal("drew with one least active"); return 0 }
	x.Pick(tb, func(b int) int { return 0 })
	ss[0].Begin()
	ss[2].Begin()
	if got := x.Pick(tb, noDraw); got != 1 {
		t.Fatalf("picked %d, the least active is 1", got)
	}
	ss[1].Begin()
	ss[1].Begin()
	ss[0].End(10, true)
	if got := x.Pick(tb, noDraw); got != 0 {
		t.Fatalf("picked %d, the least active is 0", got)
	}
	ss[2].End(30, false)
	s := ss[2]
	if s.Active() != 0 || s.Total() != 1 || s.Failed() != 1 || s.Succeeded() != 0 || s.SucceededElapsed() != 0 {
		t.Fatalf("after a failure: active %d total %d failed %d succeeded %d elapsed %d",
			s.Active(), s.Total(), s.Failed(), s.Succeeded(), s.SucceededElapsed())
	}
	if ss[0].Succeeded() != 1 || ss[0].SucceededElapsed() != 10 {
		t.Fatalf("after a success: succeeded %d elapsed %d", ss[0].Succeeded(), ss[0].SucceededElapsed())
	}
}

// TestDroppedIndexNotKept: a status does not keep a dropped index alive,
// and forgets it when watched again.
func TestDroppedIndexNotKept(t *testing.T) {
	s := &Status{}
	for k := 0; k < 10; k++ {
		x := leastactive.NewIndex(1, func(int) int64 { return s.Active() })
		s.Watch(x, 0)
		runtime.GC()
	}
	runtime.GC()
	s.Watch(leastactive.NewIndex(1, func(int) int64 { return 0 }), 0)
	if n := len(s.watchers); n > 2 {
		t.Fatalf("%d watchers after ten dropped indexes", n)
	}
	s.Begin() // dead watchers are skipped
	s.End(1, true)
}

// TestBeginEndAllocs: counting allocates nothing.
func TestBeginEndAllocs(t *testing.T) {
	s := &Status{}
	x := leastactive.NewIndex(1, func(int) int64 { return s.Active() })
	s.Watch(x, 0)
	if a := testing.AllocsPerRun(1000, func() { s.Begin(); s.End(1, true) }); a != 0 {
		t.Fatalf("%v allocs per Begin and End", a)
	}
	runtime.KeepAlive(x)
}
