package p2c

import (
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

func table(ws ...int32) *weight.Table {
	t := &weight.Table{Weights: ws}
	return t
}

// seq returns the given draws in turn (each reduced modulo the bound).
func seq(vals ...int) weight.Rand {
	i := 0
	return func(n int) int {
		v := vals[i%len(vals)]
		i++
		return v % n
	}
}

func TestPick(t *testing.T) {
	act := map[int]int64{0: 5, 1: 1, 2: 3}
	a := func(i int) int64 { return act[i] }
	// i=0, j=0 shifted to 1: 6/100 vs 2/100 -> 1.
	if got := Pick(table(100, 100, 200), a, seq(0, 0)); got != 1 {
		t.Fatalf("lower load: %d", got)
	}
	// i=2, j=1: 4/200 = 2/100 -> the first draw.
	if got := Pick(table(100, 100, 200), a, seq(2, 1)); got != 2 {
		t.Fatalf("tie: %d", got)
	}
	// A zero weight loses to a positive one, whatever the loads.
	if got := Pick(table(0, 100), func(i int) int64 { return int64(9 * i) }, seq(0, 0)); got != 1 {
		t.Fatalf("zero weight: %d", got)
	}
	if got := Pick(table(100, 0), func(i int) int64 { return int64(9 * (1 - i)) }, seq(0, 0)); got != 0 {
		t.Fatalf("zero weight second: %d", got)
	}
	if got := Pick(table(100), a, func(int) int { panic("drew") }); got != 0 {
		t.Fatalf("one provider: %d", got)
	}
}

func TestPickDoesNotAllocate(t *testing.T) {
	tb := table(100, 200, 300, 400)
	act := []int64{3, 1, 4, 1}
	r := seq(3, 1, 2, 0, 1)
	if n := testing.AllocsPerRun(200, func() { Pick(tb, func(i int) int64 { return act[i] }, r) }); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}
