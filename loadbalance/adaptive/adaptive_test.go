package adaptive

import (
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

func table(ws ...string) *weight.Table {
	ps := make([]weight.Provider, len(ws))
	for i, w := range ws {
		ps[i] = weight.Provider{Params: weight.Map{"weight": w}}
	}
	return weight.NewSet(ps, func() int64 { return 0 }).Table("m")
}

// seq returns the draws in turn and checks their bounds.
func seq(t *testing.T, draws ...[2]int) weight.Rand {
	i := 0
	return func(b int) int {
		if i >= len(draws) || draws[i][0] != b {
			t.Fatalf("draw %d with bound %d, want %v", i, b, draws)
		}
		i++
		return draws[i-1][1]
	}
}

func TestJavaDraws(t *testing.T) {
	// Two providers: no position draws, the coin nextInt(w1+w2) < w1.
	if got := Pick(table("100", "300"), seq(t, [2]int{400, 99})); got != 0 {
		t.Fatalf("coin 99: %d", got)
	}
	if got := Pick(table("100", "300"), seq(t, [2]int{400, 100})); got != 1 {
		t.Fatalf("coin 100: %d", got)
	}
	// Four: pos1 = nextInt(4) = 2, pos2 = nextInt(3) = 2 -> 3; coin 150 of 200 -> pos2.
	if got := Pick(table("100", "100", "100", "100"), seq(t, [2]int{4, 2}, [2]int{3, 2}, [2]int{200, 150})); got != 3 {
		t.Fatalf("p2c: %d", got)
	}
	// Both weights 0: nextInt(2).
	if got := Pick(table("0", "0", "5"), seq(t, [2]int{3, 0}, [2]int{2, 0}, [2]int{2, 1})); got != 1 {
		t.Fatalf("zero weights: %d", got)
	}
}
