package number

import (
	"math"
	"strconv"
	"testing"
)

type named int

func TestOf(t *testing.T) {
	for _, c := range []struct {
		in   any
		want Value
	}{
		{int8(-128), Value{Kind: Int, Bits: 8, I: -128}},
		{int16(300), Value{Kind: Int, Bits: 16, I: 300}},
		{int32(math.MinInt32), Value{Kind: Int, Bits: 32, I: math.MinInt32}},
		{int64(math.MaxInt64), Value{Kind: Int, Bits: 64, I: math.MaxInt64}},
		{int(-7), Value{Kind: Int, Bits: strconv.IntSize, I: -7}},
		{uint8(255), Value{Kind: Uint, Bits: 8, U: 255}},
		{uint16(65535), Value{Kind: Uint, Bits: 16, U: 65535}},
		{uint32(math.MaxUint32), Value{Kind: Uint, Bits: 32, U: math.MaxUint32}},
		{uint64(math.MaxUint64), Value{Kind: Uint, Bits: 64, U: math.MaxUint64}},
		{uint(3), Value{Kind: Uint, Bits: strconv.IntSize, U: 3}},
		{float32(0.1), Value{Kind: Float, Bits: 32, F: float64(float32(0.1))}},
		{1.5, Value{Kind: Float, Bits: 64, F: 1.5}},
		{"1", Value{}},
		{true, Value{}},
		{nil, Value{}},
		{named(1), Value{}},
	} {
		if got := Of(c.in); got != c.want {
			t.Errorf("Of(%T %v) = %+v, want %+v", c.in, c.in, got, c.want)
		}
	}
}

func TestOfDoesNotAllocate(t *testing.T) {
	args := []any{int8(1), int64(1 << 40), uint32(7), 2.5, float32(1), "x"}
	if n := testing.AllocsPerRun(100, func() {
		for _, a := range args {
			_ = Of(a)
		}
	}); n != 0 {
		t.Errorf("Of allocates %v times per run", n)
	}
}
