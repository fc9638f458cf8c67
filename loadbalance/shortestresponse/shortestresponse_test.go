package shortestresponse

import (
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
// PickValues over EstimateOf's values picks what Pick picks.
func TestWindowsAndPickValues(t *testing.T) {
	ws := NewWindows(0, func() int64 { return 0 })
	cs := make([]Counters, 300)
	for i := range cs {
		cs[i] = &counters{active: int64(i % 3), succeeded: int64(1 + i%2), elapsed: int64(10 * (1 + i%5))}
	}
	early := ws.Window(cs[7])
	wins := ws.Windows(cs)
	if wins[7] != early {
		t.Fatal("Windows made a second window for counters that had one")
	}
	if again := ws.Windows(cs[:10]); again[3] != wins[3] || ws.Window(cs[200]) != wins[200] {
		t.Fatal("windows are not one per counters")
	}
	tb := weight.NewSet(make([]weight.Provider, len(cs)), nil).Table("m")
	var s leastactive.Scratch
	for k := 0; k < 100; k++ {
		r := k * 7919
		want := ws.Pick(tb, wins, func(b int) int { return r % b })
		s.Grow(len(cs))
		for i, w := range wins {
			c := cs[i]
			s.Values[i] = w.EstimateOf(c.Active(), c.Succeeded(), c.SucceededElapsed())
			if s.Values[i] != w.Estimate() {
				t.Fatalf("EstimateOf %d, Estimate %d", s.Values[i], w.Estimate())
			}
		}
		if got := ws.PickValues(tb, &s, func(b int) int { return r % b }); got != want {
			t.Fatalf("draw %d: PickValues %d, Pick %d", r, got, want)
		}
	}
	if n := testing.AllocsPerRun(200, func() { ws.PickValues(tb, &s, weight.DefaultRand) }); n != 0 {
		t.Fatalf("PickValues allocates %v", n)
	}
}
