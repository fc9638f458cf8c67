package zookeeper_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/zk"

	"github.com/dubboroute/dubboroute/directory/watch"
)

func TestDialUnreachableServerFailsWithinTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	type result struct {
		c   *zookeeper.Client
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := zookeeper.Dial([]string{"zookeeper://" + addr}, zookeeper.WithTimeout(time.Second))
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err == nil {
			r.c.Close()
			t.Fatalf("Dial(%s) with nothing listening succeeded", addr)
		}
		msg := r.err.Error()
		for _, want := range []string{addr, "no session within 1s", "connection refused"} {
			if !strings.Contains(msg, want) {
				t.Errorf("Dial error %q does not mention %q", msg, want)
			}
		}
	case <-time.After(wait):
		t.Fatalf("Dial(%s) with a 1s timeout did not return within %v", addr, wait)
	}

	for _, bad := range [][]string{nil, {""}, {" , "}} {
		if _, err := zookeeper.Dial(bad); err == nil {
			t.Errorf("Dial(%q) succeeded", bad)
		}
	}
}

// TestSurvivesServerRestart stops the server under a client with watches,
// checks operations fail (bounded) while it is down, restarts it, and
// checks changes after the restart reach the watches.
func TestSurvivesServerRestart(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr(), zookeeper.WithSessionTimeout(30*time.Second))
	admin := raw(t, srv.Addr())
	provider := raw(t, srv.Addr())
	const key = "demo-consumer.condition-router"
	if _, err := c.PutRule(ctx(t), key, "v1"); err != nil {
		t.Fatal(err)
	}
	path, _ := c.ProvidersPath(bookFacade)
	mkdirs(t, admin, path)
	if _, err := provider.Create(path+"/"+providerNode(javaProviderURL("20880", "")), nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}

	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rules, err := c.WatchRule(wctx, key)
	if err != nil {
		t.Fatal(err)
	}
	expectRule(t, rules, "watch start", watch.Added, "v1", 0)
	lists, err := c.WatchProviders(wctx, bookFacade)
	if err != nil {
		t.Fatal(err)
	}
	awaitProviders(t, lists, "watch start", "127.0.0.1:20880")
	session := c.SessionID()

	if err := srv.Stop(); err != nil {
		t.Fatalf("stop server: %v", err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, _, err = c.GetRule(short, key)
	cancelShort()
	if err == nil {
		t.Fatal("GetRule succeeded with the server stopped")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Logf("GetRule with the server stopped: %v", err)
	}

	if err := srv.Restart(); err != nil {
		t.Fatalf("restart server: %v", err)
	}
	if _, err := admin.Set("/dubbo/config/dubbo/"+key, []byte("v2"), -1); err != nil {
		t.Fatalf("raw set after restart: %v", err)
	}
	awaitRuleContent(t, rules, "rule set after restart", "v2")
	if _, err := provider.Create(path+"/"+providerNode(javaProviderURL("20881", "")), nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("register 20881 after restart: %v", err)
	}
	awaitProviders(t, lists, "provider registered after restart", "127.0.0.1:20880", "127.0.0.1:20881")
	if v, err := c.PutRule(ctx(t), key, "v3"); err != nil || v != 2 {
		t.Fatalf("PutRule after restart = v%d, %v; want v2", v, err)
	}
	awaitRuleContent(t, rules, "PutRule after restart", "v3")
	if c.SessionID() != session {
		t.Logf("session changed across a short restart: 0x%x -> 0x%x", session, c.SessionID())
	}
}

// TestSurvivesSessionExpiry cuts the client off (the server keeps running)
// until the server has expired its session, changes the rule and the
// providers meanwhile, and checks that after reconnecting the client has a
// new session and its watches report the changes it missed.
func TestSurvivesSessionExpiry(t *testing.T) {
	srv := zk.Start(t)
	proxy := zk.StartProxy(t, srv.Addr())
	c, logs := dial(t, proxy.Addr(), zookeeper.WithSessionTimeout(time.Second))
	admin := raw(t, srv.Addr())
	provider := raw(t, srv.Addr())

	const key = "demo-provider.gray-router"
	const rulePath = "/dubbo/config/dubbo/" + key
	if _, err := c.PutRule(ctx(t), key, "before"); err != nil {
		t.Fatal(err)
	}
	path, _ := c.ProvidersPath(bookFacade)
	mkdirs(t, admin, path)
	nodeA := path + "/" + providerNode(javaProviderURL("20880", ""))
	if _, err := provider.Create(nodeA, nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}

	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rules, err := c.WatchRule(wctx, key)
	if err != nil {
		t.Fatal(err)
	}
	expectRule(t, rules, "watch start", watch.Added, "before", 0)
	lists, err := c.WatchProviders(wctx, bookFacade)
	if err != nil {
		t.Fatal(err)
	}
	awaitProviders(t, lists, "watch start", "127.0.0.1:20880")
	oldSession := c.SessionID()

	proxy.Cut()
	deadline := time.Now().Add(wait)
	for {
		alive, err := srv.SessionAlive(oldSession)
		if err != nil {
			t.Fatalf("ask server about session: %v", err)
		}
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server still tracks session 0x%x %v after the client was cut off", oldSession, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Changes the client cannot see while its session is gone.
	if _, err := admin.Set(rulePath, []byte("during-expiry"), -1); err != nil {
		t.Fatal(err)
	}
	if err := provider.Delete(nodeA, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := provider.Create(path+"/"+providerNode(javaProviderURL("20882", "")), nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	if _, err := c.PutRule(short, "other.condition-router", "x"); err == nil {
		t.Fatal("PutRule succeeded while the client was cut off")
	}
	cancelShort()

	proxy.Restore()
	ev := awaitRuleContent(t, rules, "reconnect after expiry", "during-expiry")
	if ev.Type != watch.Updated || ev.Version != 1 {
		t.Fatalf("missed rule change reported as %+v; want update v1", ev)
	}
	awaitProviders(t, lists, "reconnect after expiry", "127.0.0.1:20882")
	if s := c.SessionID(); s == oldSession || s == 0 {
		t.Fatalf("session after expiry = 0x%x, old 0x%x; want a new session", s, oldSession)
	}
	if !strings.Contains(logs.String(), "session expired") {
		t.Fatalf("expiry not logged; log:\n%s", logs.String())
	}

	// The re-armed watches keep working on the new session.
	if _, err := admin.Set(rulePath, []byte("after-expiry"), -1); err != nil {
		t.Fatal(err)
	}
	awaitRuleContent(t, rules, "set after the new session", "after-expiry")
	if _, err := c.PutRule(ctx(t), "other.condition-router", "y"); err != nil {
		t.Fatalf("PutRule on the new session: %v", err)
	}
}
