package nacos_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/directory/nacos"
	inacos "github.com/dubboroute/dubboroute/integration/nacos"

	"github.com/dubboroute/dubboroute/directory/watch"
)

// wait bounds every wait for something the server or client must do.
const wait = 30 * time.Second

// shared is one rnacos for the tests of this binary that do not stop it.
var shared *inacos.Server

func TestMain(m *testing.M) {
	os.Exit(func() int {
		var err error
		shared, err = inacos.StartServer(inacos.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "start private rnacos:", err)
			return 1
		}
		defer shared.Close()
		return m.Run()
	}())
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func dial(t *testing.T, addr string, opts ...nacos.Option) (*nacos.Client, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	l := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := nacos.Dial([]string{addr}, append([]nacos.Option{nacos.WithLogger(l)}, opts...)...)
	if err != nil {
		t.Fatalf("Dial(%s): %v", addr, err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("client log:\n%s", logs.String())
		}
	})
	return c, logs
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return c
}

func next(t *testing.T, ch <-chan nacos.ConfigEvent) nacos.ConfigEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed")
		}
		return ev
	case <-time.After(wait):
		t.Fatalf("no config event within %v", wait)
	}
	return nacos.ConfigEvent{}
}

func none(t *testing.T, ch <-chan nacos.ConfigEvent, d time.Duration) {
	t.Helper()
	select {
	case ev := <-ch:
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(d):
	}
}

const rule = "scope: service\nkey: com.foo.Bar\nconditions:\n  - => host=127.0.0.1\n"

func TestConfigGetPublishDelete(t *testing.T) {
	c, _ := dial(t, shared.Addr())
	const key = "com.foo.Outer$Inner::.condition-router"
	if _, _, err := c.GetRule(ctx(t), key); !errors.Is(err, nacos.ErrNotFound) {
		t.Fatalf("GetRule of a missing key: %v, want ErrNotFound", err)
	}
	sum, err := c.PutRule(ctx(t), key, rule)
	if err != nil || sum != nacos.MD5(rule) {
		t.Fatalf("PutRule = %q, %v; want md5 %s", sum, err, nacos.MD5(rule))
	}
	// Java's dataId rewrite: the config is at Outer___Inner, group dubbo.
	content, sum2, err := c.GetConfig(ctx(t), "dubbo", "com.foo.Outer___Inner::.condition-router")
	if err != nil || content != rule || sum2 != sum {
		t.Fatalf("GetConfig(dubbo, rewritten dataId) = %q %s, %v", content, sum2, err)
	}
	// Not in DEFAULT_GROUP (where dubbo-go v3.3.2 reads), nor in another namespace.
	if _, _, err := c.GetConfig(ctx(t), "DEFAULT_GROUP", nacos.DataID(key)); !errors.Is(err, nacos.ErrNotFound) {
		t.Fatalf("DEFAULT_GROUP: %v, want ErrNotFound", err)
	}
	dev, _ := dial(t, shared.Addr(), nacos.WithNamespace("dev"))
	if _, _, err := dev.GetRule(ctx(t), key); !errors.Is(err, nacos.ErrNotFound) {
		t.Fatalf("namespace dev: %v, want ErrNotFound", err)
	}
	if _, err := dev.PutRule(ctx(t), key, "dev: true\n"); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := c.GetRule(ctx(t), key); got != rule {
		t.Fatalf("public namespace changed by a write in dev: %q", got)
	}
	if got, _, _ := dev.GetRule(ctx(t), key); got != "dev: true\n" {
		t.Fatalf("namespace dev: %q", got)
	}
	if _, err := c.PutRule(ctx(t), key, "  \n"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("PutRule of blank content: %v, want a refusal", err)
	}
	if err := c.DeleteRule(ctx(t), key); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.GetRule(ctx(t), key); !errors.Is(err, nacos.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	err = c.DeleteRule(ctx(t), key)
	if !errors.Is(err, nacos.ErrNotFound) || !strings.Contains(err.Error(), "com.foo.Outer___Inner::.condition-router") {
		t.Fatalf("delete of a missing rule: %v, want ErrNotFound naming the dataId", err)
	}
	if got, _, _ := dev.GetRule(ctx(t), key); got != "dev: true\n" {
		t.Fatalf("namespace dev after the public delete: %q", got)
	}
}

func TestDialUnreachable(t *testing.T) {
	_, err := nacos.Dial([]string{"127.0.0.1:1"}, nacos.WithTimeout(time.Second))
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("Dial of a closed port: %v, want an error naming it", err)
	}
}

func TestWatchAddUpdateDeleteInOrder(t *testing.T) {
	c, _ := dial(t, shared.Addr(), nacos.WithPollTimeout(10*time.Second))
	w, _ := dial(t, shared.Addr())
	const key = "order.tag-router"
	ch, err := c.WatchRule(ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	none(t, ch, 300*time.Millisecond) // absent: nothing to report
	if _, err := w.PutRule(ctx(t), key, "v: 0\n"); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.Type != watch.Added || ev.Content != "v: 0\n" || ev.MD5 != nacos.MD5("v: 0\n") || ev.Key != key || ev.Group != "dubbo" {
		t.Fatalf("first event %+v, want add of v: 0", ev)
	}
	// 20 quick updates: the events are a subsequence of the writes, in
	// order, and end with the last one.
	const n = 20
	for i := 1; i <= n; i++ {
		if _, err := w.PutRule(ctx(t), key, fmt.Sprintf("v: %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	last := 0
	for last < n {
		ev := next(t, ch)
		var v int
		if _, err := fmt.Sscanf(ev.Content, "v: %d\n", &v); err != nil || ev.Type != watch.Updated {
			t.Fatalf("event %+v, want an update", ev)
		}
		if v <= last {
			t.Fatalf("update v%d after v%d: out of order", v, last)
		}
		last = v
	}
	none(t, ch, 300*time.Millisecond)
	if err := w.DeleteRule(ctx(t), key); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.Type != watch.Deleted || ev.Content != "" || ev.MD5 != "" {
		t.Fatalf("after delete: %+v, want a delete", ev)
	}
	// Delete then re-create with the same content as before the delete.
	if _, err := w.PutRule(ctx(t), key, fmt.Sprintf("v: %d\n", n)); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.Type != watch.Added || ev.Content != fmt.Sprintf("v: %d\n", n) {
		t.Fatalf("after re-create: %+v, want an add", ev)
	}
}

func TestWatchersAndCancel(t *testing.T) {
	c, _ := dial(t, shared.Addr())
	w, _ := dial(t, shared.Addr())
	const a, b = "app-a.condition-router", "app-b.condition-router"
	if _, err := w.PutRule(ctx(t), a, "a: 1\n"); err != nil {
		t.Fatal(err)
	}
	ctxA, cancelA := context.WithCancel(context.Background())
	defer cancelA()
	chA, _ := c.WatchRule(ctxA, a)
	if ev := next(t, chA); ev.Type != watch.Added {
		t.Fatalf("a: %+v", ev)
	}
	// A second watcher of a and a watcher of b join a poll under way: both
	// get their current state without waiting for the poll to time out.
	chA2, _ := c.WatchRule(ctx(t), a)
	if ev := next(t, chA2); ev.Type != watch.Added || ev.Content != "a: 1\n" {
		t.Fatalf("second watcher of a: %+v", ev)
	}
	chB, _ := c.WatchRule(ctx(t), b)
	if _, err := w.PutRule(ctx(t), b, "b: 1\n"); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, chB); ev.Type != watch.Added || ev.Content != "b: 1\n" {
		t.Fatalf("b: %+v", ev)
	}
	if got := c.Watched(); got != 2 {
		t.Fatalf("watched configs = %d, want 2 (a once for two watchers, b)", got)
	}
	// Cancelling a watcher closes its channel; the other of a stays.
	cancelA()
	select {
	case _, ok := <-chA:
		if ok {
			// A buffered event may come first; the channel must close next.
			if _, ok := <-chA; ok {
				t.Fatal("cancelled watch still delivers")
			}
		}
	case <-time.After(wait):
		t.Fatal("cancelled watch not closed")
	}
	if _, err := w.PutRule(ctx(t), a, "a: 2\n"); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, chA2); ev.Type != watch.Updated || ev.Content != "a: 2\n" {
		t.Fatalf("remaining watcher of a: %+v", ev)
	}
	// Close ends every watch.
	c.Close()
	for _, ch := range []<-chan nacos.ConfigEvent{chA2, chB} {
		for range ch {
		}
	}
	if got := c.Watched(); got != 0 {
		t.Fatalf("watched configs after Close = %d, want 0", got)
	}
}

func TestWatchLeavesPollWithContext(t *testing.T) {
	c, _ := dial(t, shared.Addr())
	for i := 0; i < 5; i++ {
		cctx, cancel := context.WithCancel(context.Background())
		ch, err := c.WatchRule(cctx, fmt.Sprintf("gone-%d.tag-router", i))
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		for range ch {
		}
	}
	deadline := time.Now().Add(wait)
	for c.Watched() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("watched configs = %d after every watch was cancelled", c.Watched())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
