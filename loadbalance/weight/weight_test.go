package weight

import (
	"math"
	"testing"
)

// The spec's vector W (Java 3.3.6 getWeight).
func TestWarmVectors(t *testing.T) {
	const now = 10_000_000
	cases := []struct {
		uptime        int64
		warmup, w, js int32
		stamped       bool
	}{
		{1, 600000, 100, 1, true},
		{6000, 600000, 100, 1, true},
		{60000, 600000, 100, 10, true},
		{300000, 600000, 100, 50, true},
		{599999, 600000, 100, 99, true},
		{600000, 600000, 100, 100, true},
		{300000, 600000, 14, 6, true},
		{537931, 600000, 29, 26, true},
		{-5, 600000, 100, 1, true},
		{0, 600000, 100, 100, false},
		{0, 600000, 0, 0, false},
		{5, 600000, -3, 0, true},
	}
	for _, c := range cases {
		ts := int64(0)
		if c.stamped {
			ts = now - c.uptime
		}
		if got := Warm(c.w, ts, c.warmup, now); got != c.js {
			t.Errorf("uptime %d warmup %d weight %d: %d, Java %d", c.uptime, c.warmup, c.w, got, c.js)
		}
	}
}

func TestMethodParam(t *testing.T) {
	p := Map{"weight": "10", "get.weight": "20", "methods.put.weight": "30", "methods": "getUser,put"}
	// methods=getUser,put contains "get": Java reads get.weight.
	for m, want := range map[string]int32{"get": 20, "getUser": 10, "put": 30, "": 10, "other": 10} {
		if got := Of(p, m, 0); got != want {
			t.Errorf("%s: %d, want %d", m, got, want)
		}
	}
	p2 := Map{"weight": "10", "get.weight": "20"}
	if got := Of(p2, "get", 0); got != 20 {
		t.Errorf("no methods: %d, want 20", got)
	}
	if got := Of(Map{"weight": "x"}, "get", 0); got != Default {
		t.Errorf("malformed: %d", got)
	}
	if got := Of(Map{"weight": ""}, "get", 0); got != Default {
		t.Errorf("empty: %d", got)
	}
}

func TestNextChangeExact(t *testing.T) {
	const ts = 1_000_000
	for _, w := range []int32{1, 7, 14, 29, 100, 1000} {
		for _, warm := range []int32{1, 10, 1000, 600000} {
			now := int64(ts)
			for steps := 0; steps < 50 && now < math.MaxInt64; steps++ {
				nc := NextChange(w, ts, warm, now)
				if nc == math.MaxInt64 {
					if Warm(w, ts, warm, ts+int64(warm)+5) != Warm(w, ts, warm, now) {
						t.Fatalf("w=%d warm=%d now=%d: says never, but changes", w, warm, now)
					}
					break
				}
				cur := Warm(w, ts, warm, now)
				if Warm(w, ts, warm, nc-1) != cur && nc-1 > now {
					t.Fatalf("w=%d warm=%d: change before %d", w, warm, nc)
				}
				now = nc
			}
		}
	}
}

func TestSetTable(t *testing.T) {
	clock := int64(1_000_000)
	ps := []Provider{
		{Params: Map{}, Address: "a:1"},
		{Params: Map{"weight": "300", "timestamp": "1000000", "warmup": "1000"}, Address: "b:1"},
		{Params: Map{"sayHello.weight": "50"}, Address: "c:1"},
	}
	s := NewSet(ps, func() int64 { return clock })
	clock += 500
	tb := s.Table("other")
	if tb.Weights[1] != 150 || tb.Weights[0] != 100 || tb.NeedWeight {
		t.Fatalf("service table %+v", tb)
	}
	if got := s.Table("sayHello").Weights[2]; got != 50 {
		t.Fatalf("method weight %d", got)
	}
	clock += 1000
	if got := s.Table("x").Weights[1]; got != 300 {
		t.Fatalf("after warm-up %d", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.Table("sayHello") }); n != 0 {
		t.Fatalf("Table allocates %v", n)
	}
}
