package zookeeper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/zk"

	"github.com/dubboroute/dubboroute/directory/watch"
)

const serviceRule = `scope: service
force: false
runtime: true
enabled: true
key: com.muke.dubbocourse.common.api.BookFacade
conditions:
  - method=queryAll => address=*:20880
  - method=queryByName => address=*:20881
`

func TestPutGetDeleteAtDubboAdminPaths(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr())
	admin := raw(t, srv.Addr())

	const key = "com.muke.dubbocourse.common.api.BookFacade::.condition-router"
	const path = "/dubbo/config/dubbo/" + key
	if got, err := c.RulePath(key); err != nil || got != path {
		t.Fatalf("RulePath = %q, %v; want %q", got, err, path)
	}

	v, err := c.PutRule(ctx(t), key, serviceRule)
	if err != nil || v != 0 {
		t.Fatalf("PutRule (create) = v%d, %v; want v0", v, err)
	}
	data, stat, err := admin.Get(path)
	if err != nil || string(data) != serviceRule || stat.Version != 0 {
		t.Fatalf("raw read of %s = %q v%d, %v; want the rule at v0", path, data, stat.Version, err)
	}
	if stat.EphemeralOwner != 0 {
		t.Fatalf("%s is ephemeral; Dubbo Admin writes persistent rule nodes", path)
	}
	for _, parent := range []string{"/dubbo", "/dubbo/config", "/dubbo/config/dubbo"} {
		acl, pstat, err := admin.GetACL(parent)
		if err != nil {
			t.Fatalf("parent %s not created: %v", parent, err)
		}
		if pstat.EphemeralOwner != 0 || len(acl) != 1 || acl[0].Scheme != "world" || acl[0].ID != "anyone" || acl[0].Perms != gozk.PermAll {
			t.Fatalf("parent %s: acl %+v ephemeral %d; want persistent world:anyone:cdrwa", parent, acl, pstat.EphemeralOwner)
		}
	}

	content, v, err := c.GetRule(ctx(t), key)
	if err != nil || content != serviceRule || v != 0 {
		t.Fatalf("GetRule = %q v%d, %v", content, v, err)
	}

	v, err = c.PutRule(ctx(t), key, "enabled: false\n")
	if err != nil || v != 1 {
		t.Fatalf("PutRule (update) = v%d, %v; want v1", v, err)
	}
	if data, stat, err := admin.Get(path); err != nil || string(data) != "enabled: false\n" || stat.Version != 1 {
		t.Fatalf("raw read after update = %q, %v", data, err)
	}

	// A rule written by someone else (Dubbo Admin) at its path is read back.
	if _, err := admin.Create("/dubbo/config/dubbo/demo-provider.tag-router", []byte("tags: []\n"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("raw create tag rule: %v", err)
	}
	if content, v, err := c.GetRule(ctx(t), "demo-provider.tag-router"); err != nil || content != "tags: []\n" || v != 0 {
		t.Fatalf("GetRule of an Admin-written rule = %q v%d, %v", content, v, err)
	}

	if err := c.DeleteRule(ctx(t), key); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	if ok, _, err := admin.Exists(path); err != nil || ok {
		t.Fatalf("%s exists after DeleteRule (err %v)", path, err)
	}
	if _, _, err := c.GetRule(ctx(t), key); !errors.Is(err, zookeeper.ErrNotFound) || !strings.Contains(err.Error(), path) {
		t.Fatalf("GetRule of a deleted rule: err = %v; want ErrNotFound naming %s", err, path)
	}
	if err := c.DeleteRule(ctx(t), key); !errors.Is(err, zookeeper.ErrNotFound) {
		t.Fatalf("DeleteRule of a missing rule: err = %v; want ErrNotFound", err)
	}
}

func TestRootAndGroupOptionsChangeThePath(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr(), zookeeper.WithRoot("custom/cfg/"), zookeeper.WithGroup("dev"))
	admin := raw(t, srv.Addr())
	if _, err := c.PutRule(ctx(t), "demo-consumer.condition-router", "x: 1\n"); err != nil {
		t.Fatalf("PutRule: %v", err)
	}
	if data, _, err := admin.Get("/custom/cfg/dev/demo-consumer.condition-router"); err != nil || string(data) != "x: 1\n" {
		t.Fatalf("rule not at /custom/cfg/dev/demo-consumer.condition-router: %q, %v", data, err)
	}
}

func TestBadKeysAreRejectedWithoutTouchingZooKeeper(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr())
	admin := raw(t, srv.Addr())
	for _, key := range []string{"", "com/foo::.condition-router", "..", ".", "a\x00b"} {
		if _, err := c.PutRule(ctx(t), key, "x"); err == nil {
			t.Errorf("PutRule(%q) succeeded", key)
		}
		if _, _, err := c.GetRule(ctx(t), key); err == nil || errors.Is(err, zookeeper.ErrNotFound) {
			t.Errorf("GetRule(%q): err = %v; want a key error", key, err)
		}
		if err := c.DeleteRule(ctx(t), key); err == nil {
			t.Errorf("DeleteRule(%q) succeeded", key)
		}
		if _, err := c.WatchRule(ctx(t), key); err == nil {
			t.Errorf("WatchRule(%q) succeeded", key)
		}
	}
	if ok, _, err := admin.Exists("/dubbo"); err != nil || ok {
		t.Fatalf("a rejected key created /dubbo (err %v)", err)
	}
	if _, err := c.PutRule(ctx(t), "big.condition-router", strings.Repeat("x", zookeeper.MaxRuleBytes+1)); err == nil {
		t.Fatal("PutRule of a rule over MaxRuleBytes succeeded")
	}
}

func TestWatchRuleSeesAddUpdateDeleteInOrder(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr())
	admin := raw(t, srv.Addr())
	const key = "demo-provider.tag-router"
	const path = "/dubbo/config/dubbo/" + key
	mkdirs(t, admin, "/dubbo/config/dubbo")

	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := c.WatchRule(wctx, key)
	if err != nil {
		t.Fatalf("WatchRule: %v", err)
	}

	// Each step waits for its event before the next write, so every state
	// is seen, in order. Writes go through a raw client, as Dubbo Admin's.
	if _, err := admin.Create(path, []byte("v1"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ev := nextRule(t, events, "create v1")
	if ev.Type != watch.Added || ev.Content != "v1" || ev.Version != 0 || ev.Key != key || ev.Path != path {
		t.Fatalf("after create: %+v", ev)
	}
	step := func(what string, write func() error, typ watch.EventType, content string, version int32) {
		t.Helper()
		if err := write(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		expectRule(t, events, what, typ, content, version)
	}
	set := func(data string) func() error {
		return func() error { _, err := admin.Set(path, []byte(data), -1); return err }
	}
	step("set v2", set("v2"), watch.Updated, "v2", 1)
	step("set v3", set("v3"), watch.Updated, "v3", 2)
	// An empty node is content, not a delete: what it means is the
	// reader's decision (extension/source.NewRuleEvent).
	step("set empty", set(""), watch.Updated, "", 3)
	step("set v4 after empty", set("v4"), watch.Updated, "v4", 4)
	step("delete", func() error { return admin.Delete(path, -1) }, watch.Deleted, "", -1)
	step("re-create v5", func() error {
		_, err := admin.Create(path, []byte("v5"), 0, gozk.WorldACL(gozk.PermAll))
		return err
	}, watch.Added, "v5", 0)
	// Our own writes are seen like anyone else's.
	step("PutRule v6", func() error { _, err := c.PutRule(ctx(t), key, "v6"); return err }, watch.Updated, "v6", 1)
	step("DeleteRule", func() error { return c.DeleteRule(ctx(t), key) }, watch.Deleted, "", -1)

	// A second watch of an existing rule starts with its current state.
	if _, err := c.PutRule(ctx(t), key, "v7"); err != nil {
		t.Fatal(err)
	}
	expectRule(t, events, "PutRule v7", watch.Added, "v7", 0)
	second, err := c.WatchRule(wctx, key)
	if err != nil {
		t.Fatalf("second WatchRule: %v", err)
	}
	expectRule(t, second, "second watch start", watch.Added, "v7", 0)
	// A watch of an existing empty node starts with it (content "").
	if _, err := c.PutRule(ctx(t), key, ""); err != nil {
		t.Fatal(err)
	}
	expectRule(t, events, "PutRule empty", watch.Updated, "", 1)
	expectRule(t, second, "PutRule empty (second)", watch.Updated, "", 1)
	third, err := c.WatchRule(wctx, key)
	if err != nil {
		t.Fatalf("third WatchRule: %v", err)
	}
	expectRule(t, third, "third watch start, empty node", watch.Added, "", 1)

	cancel()
	for _, ch := range []<-chan zookeeper.RuleEvent{events, second, third} {
		select {
		case _, ok := <-ch:
			if ok {
				t.Fatal("event after cancel")
			}
		case <-time.After(wait):
			t.Fatalf("watch channel not closed within %v of cancel", wait)
		}
	}
}

func TestDigestCredentialsProtectCreatedNodes(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr(), zookeeper.WithDigest("admin:secret"), zookeeper.WithRoot("/secure/config"))
	anon := raw(t, srv.Addr())

	const key = "demo-consumer.condition-router"
	if _, err := c.PutRule(ctx(t), key, "force: true\n"); err != nil {
		t.Fatalf("PutRule with digest: %v", err)
	}
	const path = "/secure/config/dubbo/" + key
	// ZooKeeper 3.6+ shows an ACL only to a client allowed to read the node.
	authed := raw(t, srv.Addr())
	if err := authed.AddAuth("digest", []byte("admin:secret")); err != nil {
		t.Fatalf("raw AddAuth: %v", err)
	}
	acl, _, err := authed.GetACL(path)
	if err != nil {
		t.Fatalf("GetACL %s: %v", path, err)
	}
	if len(acl) != 1 || acl[0].Scheme != "digest" || !strings.HasPrefix(acl[0].ID, "admin:") || acl[0].Perms != gozk.PermAll {
		t.Fatalf("ACL of %s = %+v; want digest admin:<hash> with all permissions (CREATOR_ALL_ACL)", path, acl)
	}
	if _, _, err := anon.Get(path); !errors.Is(err, gozk.ErrNoAuth) {
		t.Fatalf("unauthenticated read of %s: err = %v; want ErrNoAuth", path, err)
	}
	if content, _, err := c.GetRule(ctx(t), key); err != nil || content != "force: true\n" {
		t.Fatalf("authenticated GetRule = %q, %v", content, err)
	}
	if _, err := zookeeper.Dial([]string{srv.Addr()}, zookeeper.WithDigest("no-colon")); err == nil {
		t.Fatal("Dial accepted digest credentials without user:password")
	}
}
