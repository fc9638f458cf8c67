package enum

import "testing"

type color uint8

var colorNames = [...]string{"red", "green"}

func (c color) String() string { return Name(colorNames[:], c, "color") }

func TestName(t *testing.T) {
	for c, want := range map[color]string{0: "red", 1: "green", 2: "color(2)", 255: "color(255)"} {
		if got := c.String(); got != want {
			t.Errorf("color %d: %q, want %q", c, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = color(1).String() }); n != 0 {
		t.Errorf("a name in the table allocates %.0f times", n)
	}
}
