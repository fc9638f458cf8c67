package leastactive

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

// draws returns a weight.Rand replaying the seeded sequence seed, and a
// count of its calls.
func draws(seed uint64) (weight.Rand, *int) {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 0
	return func(b int) int { n++; return r.IntN(b) }, &n
}

func randomTable(r *rand.Rand, n int) *weight.Table {
	ws := make([]string, n)
	same := r.IntN(3) == 0
	for i := range ws {
		switch {
		case same:
			ws[i] = "100"
		case r.IntN(8) == 0:
			ws[i] = "0"
		default:
			ws[i] = strconv.Itoa(1 + r.IntN(4)*50)
		}
	}
	return table(ws...)
}

// TestIndexIsPickBy: for random tables (equal, mixed and zero weights),
// values with many ties and values changed one at a time, the index picks
// what PickBy picks with the same draws, and draws as often.
func TestIndexIsPickBy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []int{1, 2, 3, 5, 8, 13, 100, 257, 1000, 10000}
	cases := 0
	for _, n := range sizes {
		vals := make([]int64, n)
		spread := 1 + r.IntN(4)
		for i := range vals {
			vals[i] = int64(r.IntN(spread))
		}
		x := NewIndex(n, func(i int) int64 { return vals[i] })
		tb := randomTable(r, n)
		rounds := 400
		if n >= 1000 {
			rounds = 60
		}
		for k := 0; k < rounds; k++ {
			switch r.IntN(5) {
			case 0: // a new table (weights changed)
				tb = randomTable(r, n)
			case 1: // every value anew
				for i := range vals {
					vals[i] = int64(r.IntN(spread))
				}
				x.Refresh()
			default:
				for j := 0; j < 1+r.IntN(3); j++ {
					i := r.IntN(n)
					vals[i] += int64(r.IntN(3) - 1)
					x.Update(i)
				}
			}
			seed := r.Uint64()
			ra, na := draws(seed)
			rb, nb := draws(seed)
			want := PickBy(tb, func(i int) int64 { return vals[i] }, ra)
			if got := x.Pick(tb, rb); got != want || *na != *nb {
				t.Fatalf("n=%d round %d: index %d (%d draws), PickBy %d (%d draws); values %v weights %v",
					n, k, got, *nb, want, *na, head(vals), head32(tb.Weights))
			}
			cases++
		}
	}
	t.Logf("%d picks agree", cases)
}

func head(v []int64) []int64 {
	if len(v) > 16 {
		return v[:16]
	}
	return v
}

func head32(v []int32) []int32 {
	if len(v) > 16 {
		return v[:16]
	}
	return v
}

// TestIndexAllocs: updates and picks allocate nothing.
func TestIndexAllocs(t *testing.T) {
	vals := make([]int64, 1000)
	x := NewIndex(len(vals), func(i int) int64 { return vals[i] })
	tb := randomTable(rand.New(rand.NewPCG(3, 4)), len(vals))
	rnd := func(b int) int { return b / 2 }
	x.Pick(tb, rnd)
	i := 0
	if a := testing.AllocsPerRun(1000, func() {
		vals[i%len(vals)]++
		x.Update(i % len(vals))
		x.Pick(tb, rnd)
		i += 7
	}); a != 0 {
		t.Fatalf("%v allocs per update and pick", a)
	}
}

// TestIndexConcurrent: updates and picks from many goroutines (run with
// -race) end with an index that agrees with PickBy over the final values.
func TestIndexConcurrent(t *testing.T) {
	const n = 64
	var mu sync.Mutex
	vals := make([]int64, n)
	value := func(i int) int64 { mu.Lock(); defer mu.Unlock(); return vals[i] }
	x := NewIndex(n, value)
	tb := randomTable(rand.New(rand.NewPCG(5, 6)), n)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(uint64(g), 1))
			for k := 0; k < 2000; k++ {
				i := rnd.IntN(n)
				mu.Lock()
				vals[i] += int64(rnd.IntN(3) - 1)
				mu.Unlock()
				x.Update(i)
				if got := x.Pick(tb, rnd.IntN); got < 0 || got >= n {
					t.Errorf("picked %d of %d", got, n)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	for seed := uint64(0); seed < 50; seed++ {
		ra, _ := draws(seed)
		rb, _ := draws(seed)
		if got, want := x.Pick(tb, rb), PickBy(tb, value, ra); got != want {
			t.Fatalf("after the concurrent updates: index %d, PickBy %d", got, want)
		}
	}
}
