package router

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

func naiveSet(u *Universe, s *Set) []bool {
	out := make([]bool, u.Size())
	for i := range out {
		out[i] = s.Has(i)
	}
	return out
}

func TestSetOperationsMatchNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 63, 64, 65, 200, 1000} {
		u := NewUniverse(n)
		var sets []*Set
		for k := 0; k < 20; k++ {
			p := r.Float64()
			sets = append(sets, u.Build(func(int) bool { return r.Float64() < p }))
		}
		sets = append(sets, u.All(), u.None())
		for _, a := range sets {
			for _, b := range sets {
				na, nb := naiveSet(u, a), naiveSet(u, b)
				and, or, andNot := u.And(a, b), u.Or(a, b), u.AndNot(a, b)
				cAnd, cOr, cNot := 0, 0, 0
				for i := 0; i < n; i++ {
					if and.Has(i) != (na[i] && nb[i]) || or.Has(i) != (na[i] || nb[i]) || andNot.Has(i) != (na[i] && !nb[i]) {
						t.Fatalf("n=%d member %d wrong", n, i)
					}
					if na[i] && nb[i] {
						cAnd++
					}
					if na[i] || nb[i] {
						cOr++
					}
					if na[i] && !nb[i] {
						cNot++
					}
				}
				if and.Len() != cAnd || or.Len() != cOr || andNot.Len() != cNot {
					t.Fatalf("n=%d counts and=%d/%d or=%d/%d andnot=%d/%d", n, and.Len(), cAnd, or.Len(), cOr, andNot.Len(), cNot)
				}
				if u.And(a, b) != and || u.And(b, a) != and {
					t.Fatalf("and not interned/memoised")
				}
			}
		}
	}
}

func TestInterningGivesPointerEquality(t *testing.T) {
	u := NewUniverse(130)
	a := u.Of(1, 64, 129)
	b := u.Build(func(i int) bool { return i == 1 || i == 64 || i == 129 })
	if a != b {
		t.Fatal("equal sets must be the same pointer")
	}
	if got := a.AppendMembers(nil); len(got) != 3 || got[0] != 1 || got[1] != 64 || got[2] != 129 {
		t.Fatalf("members %v", got)
	}
	if u.Of() != u.None() || u.Build(func(int) bool { return true }) != u.All() {
		t.Fatal("empty/full not canonical")
	}
}

func TestMemoisedOperationsDoNotAllocate(t *testing.T) {
	u := NewUniverse(10000)
	a := u.Build(func(i int) bool { return i%3 == 0 })
	b := u.Build(func(i int) bool { return i%5 == 0 })
	u.And(a, b)
	u.AndNot(a, b)
	u.Or(a, b)
	allocs := testing.AllocsPerRun(1000, func() {
		_ = u.And(a, b)
		_ = u.AndNot(a, b)
		_ = u.Or(a, b)
	})
	if allocs != 0 {
		t.Fatalf("memoised operations allocate %.1f times", allocs)
	}
}

func TestInternLimitDegradesToTransientSets(t *testing.T) {
	u := NewUniverse(64)
	u.maxSets = 4
	var last *Set
	for i := 0; i < 10; i++ {
		last = u.Of(i)
	}
	if last.Interned() {
		t.Fatal("set past the limit must be transient")
	}
	if got := u.And(last, u.Of(9, 10)); got.Len() != 1 || !got.Has(9) {
		t.Fatalf("transient and wrong: %v", got.AppendMembers(nil))
	}
}

func TestPayload(t *testing.T) {
	u := NewUniverse(3)
	s := u.Of(0, 2)
	if s.Payload() != nil {
		t.Fatal("payload must start nil")
	}
	s.StorePayload([]string{"a", "c"})
	if got := u.Of(2, 0).Payload().([]string); len(got) != 2 {
		t.Fatal("payload lost across interning")
	}
}

func BenchmarkAnd(b *testing.B) {
	for _, n := range []int{10, 10000} {
		u := NewUniverse(n)
		x := u.Build(func(i int) bool { return i%2 == 0 })
		y := u.Build(func(i int) bool { return i%3 == 0 })
		b.Run("n="+itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = u.And(x, y)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

func TestOpTableGrowsAndKeepsEntries(t *testing.T) {
	u := NewUniverse(256)
	var sets []*Set
	for i := 0; i < 200; i++ {
		sets = append(sets, u.Of(i, i+1, 255))
	}
	want := map[[2]int]*Set{}
	for i := 0; i+1 < len(sets); i++ {
		want[[2]int{i, i + 1}] = u.And(sets[i], sets[i+1])
	}
	if got := len(u.ops.cur.Load().keys); got <= opTableInitialSlots {
		t.Fatalf("table did not grow: %d slots", got)
	}
	for k, s := range want {
		if u.And(sets[k[0]], sets[k[1]]) != s {
			t.Fatalf("memo lost for %v", k)
		}
		if g := u.ops.get(opAnd<<56 | uint64(sets[k[0]].id)<<28 | uint64(sets[k[1]].id)); g != s {
			t.Fatalf("entry %v not found after growth", k)
		}
	}
}

func TestSmallUniverseIsSmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	u := NewUniverse(10)
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<10 {
		t.Fatalf("a 10-provider universe allocated %d bytes", grew)
	}
	runtime.KeepAlive(u)
}
