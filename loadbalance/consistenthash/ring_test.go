package consistenthash

import (
	"math"
	"testing"
)

// The spec's vector CH.
func TestVectors(t *testing.T) {
	addrs := []string{"10.0.0.1:20880", "10.0.0.2:20880", "10.0.0.3:20880"}
	r := NewRing(addrs, 160, "0", []int{0})
	r2 := NewRing(addrs[:2], 160, "0", []int{0})
	if r.Len() != 480 {
		t.Fatalf("%d points", r.Len())
	}
	cases := []struct {
		key         string
		point       uint32
		java, java2 int
	}{
		{"", 3649838548, 0, 0}, {"1", 943901380, 1, 1}, {"2", 2373066440, 0, 0},
		{"4", 2046197672, 2, 0}, {"5", 2134629092, 2, 1}, {"7", 1608782991, 2, 1},
		{"hello", 708854109, 1, 1}, {"null", 2619713079, 1, 1}, {"1.0", 3991454436, 2, -1},
	}
	for _, c := range cases {
		if p := Point(c.key); p != c.point {
			t.Errorf("%q: point %d, Java %d", c.key, p, c.point)
		}
		if got := r.ForPoint(Point(c.key)); got != c.java {
			t.Errorf("%q: %d, Java %d", c.key, got, c.java)
		}
		if c.java2 >= 0 {
			if got := r2.ForPoint(Point(c.key)); got != c.java2 {
				t.Errorf("%q without .3: %d, Java %d", c.key, got, c.java2)
			}
		}
	}
	if got := r.Pick([]any{nil}); got != 1 {
		t.Errorf("nil: %d", got)
	}
	if got := r.Pick([]any{float64(1)}); got != 2 {
		t.Errorf("1.0: %d", got)
	}
	r01 := NewRing(addrs, 160, "0,1", []int{0, 1})
	if got := r01.Pick([]any{"a", "b"}); got != 2 {
		t.Errorf("ab: %d", got)
	}
	if n := testing.AllocsPerRun(1000, func() { r.Pick([]any{"hello", int64(5)}) }); n != 0 {
		t.Errorf("Pick allocates %v", n)
	}
}

func TestJavaString(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{1.0, "1.0"}, {0.1, "0.1"}, {1e7, "1.0E7"}, {1234567.0, "1234567.0"}, {0.001, "0.001"},
		{0.0001, "1.0E-4"}, {1.5e-5, "1.5E-5"}, {-2.5, "-2.5"}, {math.Inf(1), "Infinity"},
		{math.Copysign(0, -1), "-0.0"}, {float32(1.1), "1.1"}, {float32(3e10), "3.0E10"},
		{123456789.0, "1.23456789E8"}, {100.0, "100.0"},
		{[]any{1, "a", nil}, "[1, a, null]"}, {map[string]any{"b": 1, "a": 2}, "{a=2, b=1}"},
		{true, "true"}, {int8(-3), "-3"}, {uint64(math.MaxUint64), "18446744073709551615"},
	} {
		if got := string(AppendJava(nil, c.v)); got != c.want {
			t.Errorf("%#v: %q, Java %q", c.v, got, c.want)
		}
	}
}

func TestParams(t *testing.T) {
	p := map[string]string{"sayHello.hash.arguments": "0, 1", "hash.nodes": "8"}
	n, a, idx, probs := Params(mapParams(p), "sayHello")
	if n != 8 || a != "0, 1" || len(idx) != 2 || idx[1] != 1 || len(probs) != 0 {
		t.Fatalf("%d %q %v %v", n, a, idx, probs)
	}
	_, _, idx, probs = Params(mapParams(map[string]string{"hash.arguments": "x"}), "m")
	if len(idx) != 1 || idx[0] != 0 || len(probs) != 1 {
		t.Fatalf("malformed: %v %v", idx, probs)
	}
}

type mapParams map[string]string

func (m mapParams) Get(k string) (string, bool) { v, ok := m[k]; return v, ok }
