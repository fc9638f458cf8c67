package rulestore

import (
	"context"
	"sync"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension/source"
	"github.com/dubboroute/dubboroute/rules"
)

// fakeSource is a rule source whose initial state and events the test
// writes.
type fakeSource struct {
	initial source.RuleEvent
	events  chan source.RuleEvent
}

func (f *fakeSource) Open(*common.URL) (source.RuleClient, error) { return f, nil }
func (f *fakeSource) Read(context.Context, string) (source.RuleEvent, error) {
	return f.initial, nil
}
func (f *fakeSource) Watch(context.Context, string) (<-chan source.RuleEvent, error) {
	return f.events, nil
}

// TestRuleSourceAppliesEachRevisionOnce: a key of a config center whose
// protocol has a registered rule source is read and followed through it;
// a repeated revision is skipped, a new revision with the same content
// (a rule deleted and written again) is applied, and a deleted key removes
// the rule.
func TestRuleSourceAppliesEachRevisionOnce(t *testing.T) {
	const rule = "force: true\nconditions:\n  - => port=2\n"
	f := &fakeSource{initial: source.RuleEvent{Content: rule, Revision: 1}, events: make(chan source.RuleEvent)}
	source.RegisterRuleSource("unit-cc", f)
	cu, err := common.NewURL("unit-cc://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	key := "com.test.Source::.condition-router"
	var mu sync.Mutex
	var got []cluster.RuleRef
	ref, cancel := Subscribe(key, rules.KindCondition, func(r cluster.RuleRef) {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
	})
	defer cancel()
	if !ref.Empty() {
		t.Fatalf("rule before the source was read: %+v", ref)
	}
	store.mu.Lock()
	ks := store.keys[key]
	store.mu.Unlock()
	if !ks.sourceWatch(cu) {
		t.Fatal("sourceWatch: the registered source was not used")
	}
	versions := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, r := range got {
			if r.Empty() {
				out = append(out, "deleted")
			} else {
				out = append(out, r.Version)
			}
		}
		return out
	}
	f.events <- source.RuleEvent{Content: rule, Revision: 1} // the watch re-reports the read
	f.events <- source.RuleEvent{Content: rule, Revision: 2} // written again
	f.events <- source.RuleEvent{Deleted: true, Revision: 3}
	f.events <- source.RuleEvent{Deleted: true, Revision: 3}
	f.events <- source.RuleEvent{Content: rule, Revision: 4}
	close(f.events)
	want := []string{"3.0#1", "3.0#2", "deleted", "3.0#4"}
	waitFor(t, func() bool { return len(versions()) >= len(want) })
	if v := versions(); len(v) != len(want) || v[0] != want[0] || v[1] != want[1] || v[2] != want[2] || v[3] != want[3] {
		t.Fatalf("applied %v, want %v", v, want)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watchCounter is a rule source that records each watch's context.
type watchCounter struct {
	mu   sync.Mutex
	ctxs []context.Context
}

func (w *watchCounter) Open(*common.URL) (source.RuleClient, error) { return w, nil }
func (w *watchCounter) Read(context.Context, string) (source.RuleEvent, error) {
	return source.RuleEvent{Deleted: true, Revision: 0}, nil
}
func (w *watchCounter) Watch(ctx context.Context, _ string) (<-chan source.RuleEvent, error) {
	w.mu.Lock()
	w.ctxs = append(w.ctxs, ctx)
	w.mu.Unlock()
	ch := make(chan source.RuleEvent)
	go func() { <-ctx.Done(); close(ch) }()
	return ch, nil
}
func (w *watchCounter) Where(key string) string { return "unit " + key }

// TestWatchGoesWithTheLastSubscription: a key's source watch stops when
// its last subscription (a callback-less one included) is cancelled, and a
// later subscription watches it again; the key names its source.
func TestWatchGoesWithTheLastSubscription(t *testing.T) {
	w := &watchCounter{}
	source.RegisterRuleSource("unit-release", w)
	cu, _ := common.NewURL("unit-release://127.0.0.1:1")
	key := "com.test.Release::.condition-router"
	_, c1 := Subscribe(key, rules.KindCondition, func(cluster.RuleRef) {})
	_, c2 := Subscribe(key, rules.KindCondition, nil)
	store.mu.Lock()
	ks := store.keys[key]
	store.mu.Unlock()
	store.listening.Store(key, "unit") // as listen() records a config center
	if !ks.sourceWatch(cu) {
		t.Fatal("sourceWatch: the registered source was not used")
	}
	w.mu.Lock()
	first := w.ctxs[0]
	w.mu.Unlock()
	c1()
	c1() // a second call of one cancel changes nothing
	if first.Err() != nil {
		t.Fatal("watch stopped while a subscription remains")
	}
	c2()
	waitFor(t, func() bool { return first.Err() != nil })
	if _, ok := store.listening.Load(key); ok {
		t.Fatal("key still recorded as listening")
	}
	if st := RuleStates(); !containsSource(st, key, "unit "+key) {
		t.Fatalf("RuleStates does not name the source of %s: %+v", key, st)
	}
	_, c3 := Subscribe(key, rules.KindCondition, nil)
	defer c3()
	if !ks.sourceWatch(cu) {
		t.Fatal("second sourceWatch")
	}
	w.mu.Lock()
	n := len(w.ctxs)
	w.mu.Unlock()
	if n != 2 {
		t.Fatalf("%d watches, want 2 (the key watched again)", n)
	}
}

func containsSource(st []RuleState, key, src string) bool {
	for _, s := range st {
		if s.Key == key && s.Source == src {
			return true
		}
	}
	return false
}
