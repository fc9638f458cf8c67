package cli

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// watcher runs `watch <store flags> --json --count N key` in the background
// and hands over its events.
type watcher struct {
	t     *testing.T
	ctx   context.Context
	lw    *lineWriter
	done  chan int
	count int
	evs   []WatchEvent
}

// startWatch starts the watch with store (e.g. "--zk", addr), bounded by
// 60 s within parent; it stops when the test ends.
func startWatch(t *testing.T, parent context.Context, store []string, count int, key string) *watcher {
	t.Helper()
	ctx, cancel := context.WithTimeout(parent, 60*time.Second)
	t.Cleanup(cancel)
	w := &watcher{t: t, ctx: ctx, lw: newLineWriter(), done: make(chan int, 1), count: count}
	args := append(append([]string{"watch"}, store...), "--json", "--count", strconv.Itoa(count), key)
	go func() {
		w.done <- Run(ctx, args, Stdio{In: strings.NewReader(""), Out: w.lw, Err: w.lw})
	}()
	return w
}

// next returns the next event, failing the test if none comes in time.
func (w *watcher) next() WatchEvent {
	w.t.Helper()
	select {
	case l := <-w.lw.lines:
		var ev WatchEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			w.t.Fatalf("watch line %q: %v", l, err)
		}
		w.evs = append(w.evs, ev)
		return ev
	case <-w.ctx.Done():
		w.t.Fatalf("no watch event; got %+v", w.evs)
	}
	return WatchEvent{}
}

// wait fails the test unless the watch ends with exit 0 after its count.
func (w *watcher) wait() {
	w.t.Helper()
	select {
	case code := <-w.done:
		if code != ExitOK {
			w.t.Fatalf("watch exit %d", code)
		}
	case <-w.ctx.Done():
		w.t.Fatalf("watch did not stop after --count %d", w.count)
	}
}

// cliStore is a rule store the shared CLI sequences run against.
type cliStore struct {
	// flags select the store, e.g. {"--zk", addr}.
	flags []string
	// firstEvent checks the store's own fields of a watch's first event
	// for key; wantFirst says what it wants, for the failure.
	firstEvent func(ev WatchEvent, key string) bool
	wantFirst  string
}

// cmd is args with the store's flags after the command name args[0].
func (s cliStore) cmd(args ...string) []string {
	return append(append([]string{args[0]}, s.flags...), args[1:]...)
}

// testWatchLifecycle pushes a clean rule, watches it for three events and
// checks them: the current content (clean), an update with a DR104 finding,
// a delete.
func testWatchLifecycle(t *testing.T, parent context.Context, s cliStore) {
	t.Helper()
	key := "demo-consumer.condition-router"
	if _, _, code := run(t, "conditions:\n  - => host=1.2.3.4\n", s.cmd("push", key)...); code != ExitOK {
		t.Fatal("push initial")
	}
	w := startWatch(t, parent, s.flags, 3, key)
	if ev := w.next(); ev.Type != "add" || len(ev.Findings) != 0 || (s.firstEvent != nil && !s.firstEvent(ev, key)) {
		t.Fatalf("first event %+v, want the current content, clean%s", ev, s.wantFirst)
	}
	if _, _, code := run(t, "conditions:\n  - method=a b=c => host=1.2.3.4\n", s.cmd("push", key)...); code != ExitOK {
		t.Fatal("push update")
	}
	if ev := w.next(); ev.Type != "update" || len(ev.Findings) != 1 || ev.Findings[0].Code != "DR104" {
		t.Fatalf("update event %+v, want one DR104 finding", ev)
	}
	if _, _, code := run(t, "", s.cmd("rm", key)...); code != ExitOK {
		t.Fatal("rm")
	}
	if ev := w.next(); ev.Type != "delete" || ev.Content != "" {
		t.Fatalf("delete event %+v", ev)
	}
	w.wait()
}
