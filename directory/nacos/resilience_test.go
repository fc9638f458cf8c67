package nacos_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/directory/nacos"
	inacos "github.com/dubboroute/dubboroute/integration/nacos"

	"github.com/dubboroute/dubboroute/directory/watch"
)

// A server restart: the long-poll breaks, the listener retries, and once
// the server answers again every watched config is read again, so a change
// made after the restart (and one made while this client could not reach
// the server) is delivered.
func TestWatchFollowsServerRestartAndCut(t *testing.T) {
	srv := inacos.Start(t)
	proxy := inacos.StartProxy(t, srv)
	c, logs := dial(t, proxy.Addr(), nacos.WithTimeout(2*time.Second))
	w, _ := dial(t, srv.Addr())
	const key = "restart.condition-router"
	if _, err := w.PutRule(ctx(t), key, "v: 1\n"); err != nil {
		t.Fatal(err)
	}
	ch, _ := c.WatchRule(ctx(t), key)
	if ev := next(t, ch); ev.Content != "v: 1\n" {
		t.Fatalf("%+v", ev)
	}

	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PutRule(ctx(t), key, "v: 2\n"); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.Type != watch.Updated || ev.Content != "v: 2\n" {
		t.Fatalf("after restart: %+v", ev)
	}
	if !strings.Contains(logs.String(), "re-read") {
		t.Fatalf("no reconnect in the client log")
	}

	// Cut this client off, change the rule, delete and change again, then
	// let it back: it reads the latest state.
	proxy.Cut()
	time.Sleep(300 * time.Millisecond)
	if _, err := w.PutRule(ctx(t), key, "v: 3\n"); err != nil {
		t.Fatal(err)
	}
	if err := w.DeleteRule(ctx(t), key); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PutRule(ctx(t), key, "v: 4\n"); err != nil {
		t.Fatal(err)
	}
	none(t, ch, time.Second)
	proxy.Restore()
	if ev := next(t, ch); ev.Type != watch.Updated || ev.Content != "v: 4\n" {
		t.Fatalf("after the cut: %+v, want the latest (v: 4)", ev)
	}
}
