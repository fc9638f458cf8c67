package zookeeper_test

import (
	"context"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/zk"
)

const holdOff = 200 * time.Millisecond

// awaitNode waits (bounded) until path exists with data and is owned by
// session (0: any owner), and returns its owner.
func awaitNode(t *testing.T, conn *gozk.Conn, path, data string, session int64, what string) int64 {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		got, stat, err := conn.Get(path)
		if err == nil && string(got) == data && (session == 0 || stat.EphemeralOwner == session) {
			return stat.EphemeralOwner
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: node %s: data %q, err %v, stat %+v; want data %q owned by 0x%x", what, path, got, err, stat, data, session)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// staysAbsent checks that path does not exist for several hold-offs.
func staysAbsent(t *testing.T, conn *gozk.Conn, path, what string) {
	t.Helper()
	end := time.Now().Add(5 * holdOff)
	for time.Now().Before(end) {
		if ok, _, err := conn.Exists(path); err != nil || ok {
			t.Fatalf("%s: node %s exists=%v (err %v); want it absent", what, path, ok, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKeepEphemeralRecreatesTheNode adopts a node registered by another
// session (as dubbo-go's registry registers a provider) and checks that it
// comes back with its data whenever it goes: when that session ends, when
// it is deleted by hand, and when the keeper's own session expires; that a
// delete-and-create by the registering client is not raced; and that
// Release deletes the keeper's node for good.
func TestKeepEphemeralRecreatesTheNode(t *testing.T) {
	srv := zk.Start(t)
	proxy := zk.StartProxy(t, srv.Addr())
	c, _ := dial(t, proxy.Addr(), zookeeper.WithSessionTimeout(time.Second))
	admin := raw(t, srv.Addr())
	owner := raw(t, srv.Addr())
	const dir = "/services/demo-provider"
	const path = dir + "/127.0.0.1:20880"
	mkdirs(t, admin, dir)

	// Adopt: nothing is created before the node has been seen.
	e, err := c.KeepEphemeral(path, zookeeper.EphemeralOptions{Adopt: true, HoldOff: holdOff})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	staysAbsent(t, admin, path, "adopt before the node exists")
	if _, err := owner.Create(path, []byte("v1"), gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Set(path, []byte("v2"), -1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * holdOff) // the keeper reads v2

	// The registering client deletes and re-creates its node (dubbo-go on
	// reconnect): the keeper does not step in.
	if err := owner.Delete(path, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Create(path, []byte("v2"), gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * holdOff)
	awaitNode(t, admin, path, "v2", owner.SessionID(), "delete-and-create by its owner")
	if n := e.Created(); n != 0 {
		t.Fatalf("keeper created the node %d times while its owner re-created it; want 0", n)
	}

	// The owner's session ends: its node goes, the keeper's comes back.
	owner.Close()
	awaitNode(t, admin, path, "v2", c.SessionID(), "owner's session ended")

	// Deleted by hand.
	if err := admin.Delete(path, -1); err != nil {
		t.Fatal(err)
	}
	awaitNode(t, admin, path, "v2", c.SessionID(), "deleted by hand")

	// The keeper's own session expires (its node goes with it).
	old := c.SessionID()
	proxy.Cut()
	deadline := time.Now().Add(wait)
	for {
		if ok, _, err := admin.Exists(path); err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node of the expired session 0x%x still there after %v", old, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	proxy.Restore()
	deadline = time.Now().Add(wait)
	for c.SessionID() == old || c.SessionID() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no new session after expiry within %v", wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
	awaitNode(t, admin, path, "v2", c.SessionID(), "after the keeper's session expired")
	if n := e.Created(); n != 3 {
		t.Fatalf("keeper created the node %d times; want 3", n)
	}

	// Release: deleted, and not created again.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := e.Release(ctx); err != nil {
		t.Fatal(err)
	}
	staysAbsent(t, admin, path, "after Release")
}

// TestKeepEphemeralCreatesAMissingNode keeps a node with known data: a
// missing node is created (with its parents), and Release leaves a node of
// another session alone.
func TestKeepEphemeralCreatesAMissingNode(t *testing.T) {
	srv := zk.Start(t)
	c, _ := dial(t, srv.Addr())
	admin := raw(t, srv.Addr())
	other := raw(t, srv.Addr())
	const path = "/dubbo/org.example.Svc/providers/dubbo%3A%2F%2F127.0.0.1%3A20880"
	e, err := c.KeepEphemeral(path, zookeeper.EphemeralOptions{HoldOff: holdOff})
	if err != nil {
		t.Fatal(err)
	}
	awaitNode(t, admin, path, "", c.SessionID(), "missing at start")
	e.Close()
	if err := admin.Delete(path, -1); err != nil {
		t.Fatal(err)
	}
	staysAbsent(t, admin, path, "after Close")
	if _, err := other.Create(path, nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := e.Release(ctx); err != nil {
		t.Fatal(err)
	}
	awaitNode(t, admin, path, "", other.SessionID(), "Release of another session's node")
	for _, bad := range []string{"", "rel/path", "/a/", "/a//b"} {
		if _, err := c.KeepEphemeral(bad, zookeeper.EphemeralOptions{}); err == nil {
			t.Errorf("KeepEphemeral(%q) accepted a bad path", bad)
		}
	}
}
