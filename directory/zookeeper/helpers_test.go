package zookeeper_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"

	"github.com/dubboroute/dubboroute/directory/watch"
)

// wait bounds every wait for something the server or client must do.
const wait = 30 * time.Second

// syncBuffer collects log output from any goroutine, also after the test
// ends (go-zookeeper goroutines may log after Close returns).
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

// dial connects a client under test and closes it when t ends; its log is
// printed if t fails.
func dial(t *testing.T, addr string, opts ...zookeeper.Option) (*zookeeper.Client, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := zookeeper.Dial([]string{addr}, append([]zookeeper.Option{zookeeper.WithLogger(logger)}, opts...)...)
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

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// raw opens a plain go-zookeeper session, the way Dubbo Admin or a Java
// provider would write nodes, and waits (bounded) for it.
func raw(t *testing.T, addr string) *gozk.Conn {
	t.Helper()
	conn, events, err := gozk.Connect([]string{addr}, 10*time.Second, gozk.WithLogger(quiet{}))
	if err != nil {
		t.Fatalf("raw connect %s: %v", addr, err)
	}
	t.Cleanup(conn.Close)
	timeout := time.After(wait)
	for {
		select {
		case ev := <-events:
			if ev.State == gozk.StateHasSession {
				return conn
			}
		case <-timeout:
			t.Fatalf("raw client: no session with %s within %v", addr, wait)
		}
	}
}

// mkdirs creates persistent parents of path with the raw client.
func mkdirs(t *testing.T, conn *gozk.Conn, path string) {
	t.Helper()
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	p := ""
	for _, part := range parts {
		p += "/" + part
		if _, err := conn.Create(p, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil && err != gozk.ErrNodeExists {
			t.Fatalf("create %s: %v", p, err)
		}
	}
}

// nextRule waits (bounded) for the next rule event.
func nextRule(t *testing.T, ch <-chan zookeeper.RuleEvent, after string) zookeeper.RuleEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("rule watch closed while waiting for the event after %s", after)
		}
		return ev
	case <-time.After(wait):
		t.Fatalf("no rule event within %v after %s", wait, after)
	}
	panic("unreachable")
}

// expectRule waits for the next rule event and checks it.
func expectRule(t *testing.T, ch <-chan zookeeper.RuleEvent, after string, typ watch.EventType, content string, version int32) {
	t.Helper()
	ev := nextRule(t, ch, after)
	if ev.Type != typ || ev.Content != content || ev.Version != version {
		t.Fatalf("after %s: event = {%v %q v%d}, want {%v %q v%d}", after, ev.Type, ev.Content, ev.Version, typ, content, version)
	}
}

// nextProviders waits (bounded) for the next provider list.
func nextProviders(t *testing.T, ch <-chan zookeeper.Providers, after string) zookeeper.Providers {
	t.Helper()
	select {
	case p, ok := <-ch:
		if !ok {
			t.Fatalf("provider watch closed while waiting for the list after %s", after)
		}
		return p
	case <-time.After(wait):
		t.Fatalf("no provider list within %v after %s", wait, after)
	}
	panic("unreachable")
}

// addresses lists host:port of each provider URL.
func addresses(p zookeeper.Providers) []string {
	out := make([]string, 0, len(p.URLs))
	for _, u := range p.URLs {
		out = append(out, u.Address())
	}
	return out
}

// awaitProviders reads provider lists until one has exactly want (in
// order), failing after the bounded wait. Intermediate lists are allowed
// because several registry changes can be read at once or one by one.
func awaitProviders(t *testing.T, ch <-chan zookeeper.Providers, after string, want ...string) zookeeper.Providers {
	t.Helper()
	deadline := time.After(wait)
	var last []string
	for {
		select {
		case p, ok := <-ch:
			if !ok {
				t.Fatalf("provider watch closed while waiting for %v after %s", want, after)
			}
			last = addresses(p)
			if strings.Join(last, " ") == strings.Join(want, " ") {
				return p
			}
		case <-deadline:
			t.Fatalf("after %s: providers never became %v within %v (last %v)", after, want, wait, last)
		}
	}
}

// awaitRuleContent reads rule events until one carries content, failing
// after the bounded wait.
func awaitRuleContent(t *testing.T, ch <-chan zookeeper.RuleEvent, after, content string) zookeeper.RuleEvent {
	t.Helper()
	deadline := time.After(wait)
	var last zookeeper.RuleEvent
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("rule watch closed while waiting for %q after %s", content, after)
			}
			last = ev
			if ev.Content == content && ev.Type != watch.Deleted {
				return ev
			}
		case <-deadline:
			t.Fatalf("after %s: rule never became %q within %v (last %+v)", after, content, wait, last)
		}
	}
}

// providerNode is the node name Java's ZookeeperRegistry gives a provider.
func providerNode(fullURL string) string { return zookeeper.EncodeComponent(fullURL) }

// ctx is a bounded context for one operation.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return c
}
