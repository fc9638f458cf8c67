package leastactive

import (
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

type actives []int64

func (a actives) Active(i int) int64 { return a[i] }

func table(ws ...string) *weight.Table {
	ps := make([]weight.Provider, len(ws))
	for i, w := range ws {
		ps[i] = weight.Provider{Params: weight.Map{"weight": w}}
	}
	return weight.NewSet(ps, func() int64 { return 0 }).Table("m")
}

// The spec's vector L: [1,2] with equal actives, r in {0,1,2}: Java r=0 ->
// A, 1-2 -> B (dubbo-go's off-by-one gives A only 1/6).
func TestVectors(t *testing.T) {
	tb := table("1", "2")
	for r, want := range map[int]int{0: 0, 1: 1, 2: 1} {
		if got := Pick(tb, actives{0, 0}, func(b int) int { return r % b }); got != want {
			t.Errorf("r=%d: %d, Java %d", r, got, want)
		}
	}
	// The least active wins without a draw.
	if got := Pick(table("100", "100", "100"), actives{2, 1, 3}, func(int) int { t.Fatal("drew"); return 0 }); got != 1 {
		t.Fatalf("least active: %d", got)
	}
	// Equal weights among the tied: uniform over them, in order.
	if got := Pick(table("100", "100", "100", "100"), actives{1, 0, 1, 0}, func(b int) int {
		if b != 2 {
			t.Fatalf("bound %d", b)
		}
		return 1
	}); got != 3 {
		t.Fatalf("uniform among tied: %d", got)
	}
	big := make(actives, 500)
	ws := make([]string, 500)
	for i := range ws {
		ws[i] = "100"
		big[i] = int64(i % 3)
	}
	bt := table(ws...)
	var act Actives = big // boxed once, outside the measured call
	if n := testing.AllocsPerRun(200, func() { Pick(bt, act, weight.DefaultRand) }); n != 0 {
		t.Fatalf("Pick allocates %v", n)
	}
}
