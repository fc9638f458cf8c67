package pool

import (
	"errors"
	"testing"
)

// A client is dialled once per id and shared; a failed dial is not kept.
func TestPool(t *testing.T) {
	var p Pool[*int]
	dials := 0
	dial := func() (*int, error) { dials++; return new(int), nil }
	a, _ := p.Get("x", dial)
	b, _ := p.Get("x", dial)
	if a != b || dials != 1 {
		t.Fatalf("two Gets of x: %p, %p after %d dials; want one client, one dial", a, b, dials)
	}
	if c, _ := p.Get("y", dial); c == a || dials != 2 {
		t.Fatalf("y shares x's client or was not dialled (%d dials)", dials)
	}
	boom := errors.New("boom")
	if _, err := p.Get("z", func() (*int, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("failed dial: %v, want boom", err)
	}
	if _, err := p.Get("z", dial); err != nil || dials != 3 {
		t.Fatalf("z after a failed dial: %v, %d dials; want a new dial", err, dials)
	}
}
