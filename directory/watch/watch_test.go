package watch

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEventTypeString(t *testing.T) {
	for typ, want := range map[EventType]string{Added: "add", Updated: "update", Deleted: "delete", 0: "EventType(0)", 7: "EventType(7)"} {
		if got := typ.String(); got != want {
			t.Errorf("EventType(%d).String() = %q, want %q", int(typ), got, want)
		}
	}
}

// TestRelay: events are passed on converted, in order, and the output
// closes when the input does, or when the context ends while the input is
// still open.
func TestRelay(t *testing.T) {
	in := make(chan int, 3)
	in <- 1
	in <- 2
	in <- 3
	close(in)
	var got []string
	for s := range Relay(context.Background(), in, func(i int) string { return strconv.Itoa(i * 10) }) {
		got = append(got, s)
	}
	if strings.Join(got, ",") != "10,20,30" {
		t.Errorf("relayed %v, want [10 20 30]", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	open := make(chan int)
	out := Relay(ctx, open, func(i int) int { return i })
	cancel()
	select {
	case _, ok := <-out:
		if ok {
			t.Error("an event relayed from an input that sent none")
		}
	case <-time.After(5 * time.Second):
		t.Error("output still open 5 s after the context ended")
	}
}
