package javastr

import (
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
