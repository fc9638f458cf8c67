package javastr

import (
	"math"
	"reflect"
	"testing"
)

func TestSplitLikeJava(t *testing.T) {
	cases := []struct {
		s, sep string
		want   []string
	}{
		{"1~10", "~", []string{"1", "10"}},
		{"~10", "~", []string{"", "10"}},
		{"101~", "~", []string{"101"}},
		{"~", "~", []string{}},
		{"a~b~c", "~", []string{"a", "b", "c"}},
		{"", "~", []string{""}},
		{"10.0.0.*", ".", []string{"10", "0", "0", "*"}},
		{"10.0.", ".", []string{"10", "0"}},
	}
	for _, c := range cases {
		if got := Split(c.s, c.sep); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Split(%q, %q) = %q, want %q", c.s, c.sep, got, c.want)
		}
	}
}

func TestDigits(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "20880": true, "": false, "-1": false, "1a": false, " 1": false} {
		if Digits(s) != want {
			t.Errorf("Digits(%q) != %v", s, want)
		}
	}
}

func TestDouble(t *testing.T) {
	cases := map[float64]string{1: "1.0", 0.001: "0.001", 1e-4: "1.0E-4", 1e7: "1.0E7", 9999999: "9999999.0", 123.456: "123.456",
		-2.5: "-2.5", 0: "0.0", 1.5e300: "1.5E300", 100: "100.0", 0.1: "0.1", -1e-5: "-1.0E-5", 12345678.9: "1.23456789E7"}
	for f, want := range cases {
		if got := Double(f, 64); got != want {
			t.Errorf("Double(%v, 64) = %s, want %s", f, got, want)
		}
	}
	for f, want := range map[float32]string{0.1: "0.1", 1e10: "1.0E10", 3.4028235e38: "3.4028235E38"} {
		if got := Double(float64(f), 32); got != want {
			t.Errorf("Double(%v, 32) = %s, want %s", f, got, want)
		}
	}
	for f, want := range map[float64]string{math.NaN(): "NaN", math.Inf(1): "Infinity", math.Inf(-1): "-Infinity", math.Copysign(0, -1): "-0.0"} {
		if got := Double(f, 64); got != want {
			t.Errorf("Double(%v, 64) = %s, want %s", f, got, want)
		}
	}
}

func TestAppendDoubleDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() {
		for _, f := range []float64{1.5, 1e-9, 123456.789, math.NaN()} {
			buf = AppendDouble(buf[:0], f, 64)
		}
	}); n != 0 {
		t.Errorf("AppendDouble allocates %v times per run", n)
	}
	if got := string(AppendDouble([]byte("x="), 2.5e-7, 64)); got != "x=2.5E-7" {
		t.Errorf("AppendDouble appends %q", got)
	}
}
