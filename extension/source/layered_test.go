package source

import (
	"context"
	"testing"
	"time"
)

// place is a RuleClient of one place: its state now and a watch channel
// the test feeds.
type place struct {
	now RuleEvent
	ch  chan RuleEvent
}

func (p *place) Read(context.Context, string) (RuleEvent, error) { return p.now, nil }
func (p *place) Watch(context.Context, string) (<-chan RuleEvent, error) {
	return p.ch, nil
}

// TestLayeredRuleGroups: a key held only in dubbo-go's place routes with
// its rule; the same key in Admin's place wins; deleting Admin's brings
// dubbo-go's back; a watch combines each place's report with the other's
// state.
func TestLayeredRuleGroups(t *testing.T) {
	admin := &place{now: RuleEvent{Deleted: true, Revision: "a0"}, ch: make(chan RuleEvent)}
	goPlace := &place{now: RuleEvent{Content: "go-rule", Revision: "g1"}, ch: make(chan RuleEvent)}
	l := Layered{Primary: admin, Secondary: goPlace}
	ev, err := l.Read(context.Background(), "k")
	if err != nil || ev.Deleted || ev.Content != "go-rule" {
		t.Fatalf("read: %+v %v; want dubbo-go's rule", ev, err)
	}
	admin.now = RuleEvent{Content: "admin-rule", Revision: "a1"}
	if ev, _ := l.Read(context.Background(), "k"); ev.Content != "admin-rule" {
		t.Fatalf("both hold the key: %+v; Admin's wins", ev)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, err := l.Watch(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	next := func() RuleEvent {
		t.Helper()
		select {
		case ev := <-out:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
		}
		return RuleEvent{}
	}
	// The watch starts from both places' states now (a place's watch need
	// not report before a change): dubbo-go's change is reported combined
	// with Admin's rule, which keeps winning.
	goPlace.ch <- RuleEvent{Content: "go-rule", Revision: "g1"}
	first := next()
	if first.Content != "admin-rule" {
		t.Fatalf("first watch state %+v", first)
	}
	goPlace.ch <- RuleEvent{Content: "go-rule-2", Revision: "g2"}
	if ev := next(); ev.Revision != first.Revision || ev.Content != "admin-rule" {
		t.Errorf("a change in dubbo-go's place while Admin's holds the key: %+v (the same state must keep its revision)", ev)
	}
	admin.ch <- RuleEvent{Deleted: true, Revision: "a2"}
	if ev := next(); ev.Deleted || ev.Content != "go-rule-2" {
		t.Errorf("Admin's deleted: %+v, want dubbo-go's rule", ev)
	}
	goPlace.ch <- RuleEvent{Deleted: true, Revision: "g3"}
	if ev := next(); !ev.Deleted {
		t.Errorf("both deleted: %+v", ev)
	}
}
