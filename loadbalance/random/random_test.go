package random

import (
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

func set(ps ...weight.Map) *weight.Set {
	out := make([]weight.Provider, len(ps))
	for i, p := range ps {
		out[i] = weight.Provider{Params: p}
	}
	return weight.NewSet(out, func() int64 { return 1_000_000 })
}

// fixed returns r for every draw and records the bounds asked.
func fixed(r int, bounds *[]int) weight.Rand {
	return func(b int) int { *bounds = append(*bounds, b); return r % b }
}

// The spec's vector R.
func TestVectors(t *testing.T) {
	var bounds []int
	// [A: no weight, B: weight=300] -> uniform nextInt(2).
	if got := Pick(set(weight.Map{}, weight.Map{"weight": "300"}).Table("m"), fixed(1, &bounds)); got != 1 || bounds[0] != 2 {
		t.Fatalf("shortcut: %d %v", got, bounds)
	}
	// [100, 300]: r in [0,100) -> A, [100,400) -> B.
	s := set(weight.Map{"weight": "100"}, weight.Map{"weight": "300"})
	for r, want := range map[int]int{0: 0, 99: 0, 100: 1, 399: 1} {
		bounds = nil
		if got := Pick(s.Table("m"), fixed(r, &bounds)); got != want || bounds[0] != 400 {
			t.Errorf("r=%d: %d %v", r, got, bounds)
		}
	}
	// [100, 0, 300]: B never.
	s = set(weight.Map{"weight": "100"}, weight.Map{"weight": "0"}, weight.Map{"weight": "300"})
	for r := 0; r < 400; r++ {
		if Pick(s.Table("m"), fixed(r, &bounds)) == 1 {
			t.Fatalf("r=%d picked the weight-0 provider", r)
		}
	}
	// [0, 0] (first explicit): uniform.
	bounds = nil
	if got := Pick(set(weight.Map{"weight": "0"}, weight.Map{"weight": "0"}).Table("m"), fixed(1, &bounds)); got != 1 || bounds[0] != 2 {
		t.Fatalf("all zero: %d %v", got, bounds)
	}
	// n=5, [1,0,0,1,1], r=1 -> index 3.
	s = set(weight.Map{"weight": "1"}, weight.Map{"weight": "0"}, weight.Map{"weight": "0"}, weight.Map{"weight": "1"}, weight.Map{"weight": "1"})
	if got := Pick(s.Table("m"), fixed(1, &bounds)); got != 3 {
		t.Fatalf("binary search: %d", got)
	}
	tb := s.Table("m")
	rnd := weight.DefaultRand
	if n := testing.AllocsPerRun(1000, func() { Pick(tb, rnd) }); n != 0 {
		t.Fatalf("Pick allocates %v", n)
	}
}

// PickWeighted honours every weight even when the first provider has none
// (where Pick takes Java's uniform shortcut).
func TestPickWeightedSkipsTheShortcut(t *testing.T) {
	s := set(weight.Map{}, weight.Map{"weight": "300"}) // 100 + 300
	for r, want := range map[int]int{0: 0, 99: 0, 100: 1, 399: 1} {
		var bounds []int
		if got := PickWeighted(s.Table("m"), fixed(r, &bounds)); got != want || bounds[0] != 400 {
			t.Errorf("r=%d: %d %v", r, got, bounds)
		}
	}
	var bounds []int
	if got := PickWeighted(set(weight.Map{"weight": "0"}, weight.Map{"weight": "0"}).Table("m"), fixed(1, &bounds)); got != 1 || bounds[0] != 2 {
		t.Fatalf("all zero: uniform, got %d %v", got, bounds)
	}
}
