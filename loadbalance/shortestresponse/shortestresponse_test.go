package shortestresponse

import (
	"sync/atomic"
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

type counters struct{ active, succeeded, elapsed int64 }

func (c *counters) Active() int64           { return c.active }
func (c *counters) Succeeded() int64        { return c.succeeded }
func (c *counters) SucceededElapsed() int64 { return c.elapsed }

func TestPickAndSlide(t *testing.T) {
	now := int64(1000)
	ws := NewWindows(30000, func() int64 { return now })
	cs := []*counters{{0, 4, 400}, {1, 2, 60}, {0, 0, 0}} // estimates 100, 60, 0
	wins := make([]*Window, len(cs))
	for i, c := range cs {
		wins[i] = ws.Window(c)
	}
	tb := weight.NewSet(make([]weight.Provider, 3), nil).Table("m")
	if got := ws.Pick(tb, wins, func(int) int { t.Fatal("drew"); return 0 }); got != 2 {
		t.Fatalf("shortest: %d", got)
	}
	cs[2].succeeded, cs[2].elapsed = 1, 500 // now 500: provider 1 (60) is the shortest
	if got := ws.Pick(tb, wins, weight.DefaultRand); got != 1 {
		t.Fatalf("after a slow success: %d", got)
	}
	now += 30001 // the window slides after this pick: every estimate restarts at 0
	ws.Pick(tb, wins, weight.DefaultRand)
	for i, w := range wins {
		if e := w.Estimate(); e != 0 {
			t.Errorf("provider %d: estimate %d after the slide", i, e)
		}
	}
	if n := testing.AllocsPerRun(200, func() { ws.Pick(tb, wins, weight.DefaultRand) }); n != 0 {
		t.Fatalf("Pick allocates %v", n)
	}
}

// Windows returns the windows Window returns for the same counters, and
// PickIndex over an index of the estimates picks what Pick picks, before
// and after the windows slide (the index reads every estimate again).
func TestWindowsAndPickIndex(t *testing.T) {
	now := int64(0)
	ws := NewWindows(1000, func() int64 { return now })
	cs := make([]*counters, 300)
	ifs := make([]Counters, len(cs))
	for i := range cs {
		cs[i] = &counters{active: int64(i % 3), succeeded: int64(1 + i%2), elapsed: int64(10 * (1 + i%5))}
		ifs[i] = cs[i]
	}
	early := ws.Window(ifs[7])
	wins := ws.Windows(ifs)
	if wins[7] != early {
		t.Fatal("Windows made a second window for counters that had one")
	}
	if again := ws.Windows(ifs[:10]); again[3] != wins[3] || ws.Window(ifs[200]) != wins[200] {
		t.Fatal("windows are not one per counters")
	}
	tb := weight.NewSet(make([]weight.Provider, len(cs)), nil).Table("m")
	x := leastactive.NewIndex(len(wins), func(i int) int64 { return wins[i].Estimate() })
	var seen atomic.Uint64
	for k := 0; k < 100; k++ {
		r := k * 7919
		if k == 50 {
			// New successes, then the windows slide on the next pick:
			// every estimate restarts from them.
			for i, c := range cs {
				c.succeeded += int64(1 + i%4)
				c.elapsed += int64(100 * (1 + i%7))
				x.Update(i)
			}
			now += 2000
		}
		want := leastactive.PickBy(tb, func(i int) int64 { return wins[i].Estimate() }, func(b int) int { return r % b })
		if got := ws.PickIndex(tb, x, &seen, func(b int) int { return r % b }); got != want {
			t.Fatalf("pick %d, draw %d: PickIndex %d, PickBy %d", k, r, got, want)
		}
	}
	if seen.Load() != 1 {
		t.Fatalf("the index saw %d slides, the windows slid once", seen.Load())
	}
	if n := testing.AllocsPerRun(200, func() { ws.PickIndex(tb, x, &seen, weight.DefaultRand) }); n != 0 {
		t.Fatalf("PickIndex allocates %v", n)
	}
}
