package shortestresponse

import (
	"testing"

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
