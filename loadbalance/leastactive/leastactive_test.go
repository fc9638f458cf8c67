package leastactive

import (
	"math/rand/v2"
	"strconv"
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

// An index built on the values picks what PickBy picks for the same
// values and draws, and draws with the same bound: random values (few
// distinct, so ties are common, all tied included), random weights
// (equal, all zero, mixed), sizes across stackCap.
func TestIndexOnRandomCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for c := 0; c < 4000; c++ {
		n := 1 + rng.IntN(300)
		ws := make([]string, n)
		mode := rng.IntN(4)
		for i := range ws {
			switch mode {
			case 0:
				ws[i] = "100"
			case 1:
				ws[i] = "0"
			default:
				ws[i] = strconv.Itoa(rng.IntN(5) * (1 + rng.IntN(50)))
			}
		}
		tb := table(ws...)
		vals := make(actives, n)
		spread := 1 + rng.IntN(4)
		if rng.IntN(5) == 0 {
			spread = 1 // every provider holds the least
		}
		for i := range vals {
			vals[i] = int64(rng.IntN(spread))
		}
		draw := rng.Uint64()
		var boundBy, boundIndex int
		want := Pick(tb, vals, func(b int) int { boundBy = b; return int(draw % uint64(b)) })
		x := NewIndex(n, vals.Active)
		got := x.Pick(tb, func(b int) int { boundIndex = b; return int(draw % uint64(b)) })
		if got != want || boundBy != boundIndex {
			t.Fatalf("case %d (n=%d, weights %v, values %v): Index %d (bound %d), PickBy %d (bound %d)",
				c, n, ws, vals, got, boundIndex, want, boundBy)
		}
	}
}
