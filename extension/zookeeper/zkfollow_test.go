package zookeeper

import (
	"context"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/source"
	"github.com/dubboroute/dubboroute/integration/zk"
)

const wait = 15 * time.Second

func admin(t *testing.T, addr string) *dzk.Client {
	t.Helper()
	c, err := dzk.Dial([]string{addr})
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(c.Close)
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

func next[E any](t *testing.T, ch <-chan E, after string) E {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("channel closed while waiting for the state after %s", after)
		}
		return ev
	case <-time.After(wait):
		t.Fatalf("no state within %v after %s", wait, after)
	}
	panic("unreachable")
}

// TestRuleEventsDecideDeletes: ZooKeeper's rule source reports a node's
// states through source.NewRuleEvent, so a delete is decided there once:
// a missing node deletes any key, an empty node deletes a routing rule key
// but is content (that Java rejects) for a configurators key; the initial
// read and the watch agree.
func TestRuleEventsDecideDeletes(t *testing.T) {
	srv := zk.Start(t)
	cu, err := common.NewURL("zookeeper://" + srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	src := source.RuleSourceFor(cu)
	if src == nil {
		t.Fatal("no rule source registered for zookeeper")
	}
	rc, err := src.Open(cu)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	a := admin(t, srv.Addr())
	for _, c := range []struct {
		key        string
		emptyIsDel bool
	}{
		{"demo-provider.condition-router", true},
		{"demo-consumer.configurators", false},
	} {
		t.Run(c.key, func(t *testing.T) {
			ev, err := rc.Read(ctxT(t), c.key)
			if err != nil || !ev.Deleted {
				t.Fatalf("read of a missing node: %+v, %v; want deleted", ev, err)
			}
			if _, err := a.PutRule(ctxT(t), c.key, ""); err != nil {
				t.Fatal(err)
			}
			ev, err = rc.Read(ctxT(t), c.key)
			if err != nil || ev.Deleted != c.emptyIsDel || ev.Content != "" {
				t.Fatalf("read of an empty node: %+v, %v; want deleted=%v", ev, err, c.emptyIsDel)
			}
			wctx, stop := context.WithCancel(context.Background())
			defer stop()
			ch, err := rc.Watch(wctx, c.key)
			if err != nil {
				t.Fatal(err)
			}
			if ev := next(t, ch, "watch start"); ev.Deleted != c.emptyIsDel || ev.Revision == (dzk.Revision{}) {
				t.Fatalf("watch start on an empty node: %+v, want deleted=%v and the node's revision", ev, c.emptyIsDel)
			}
			steps := []struct {
				what    string
				write   func() error
				deleted bool
				content string
			}{
				{"write x", func() error { _, err := a.PutRule(ctxT(t), c.key, "x"); return err }, false, "x"},
				{"write blank", func() error { _, err := a.PutRule(ctxT(t), c.key, "  "); return err }, c.emptyIsDel, map[bool]string{true: "", false: "  "}[c.emptyIsDel]},
				{"delete the node", func() error { return a.DeleteRule(ctxT(t), c.key) }, true, ""},
			}
			for _, s := range steps {
				if err := s.write(); err != nil {
					t.Fatalf("%s: %v", s.what, err)
				}
				if ev := next(t, ch, s.what); ev.Deleted != s.deleted || ev.Content != s.content {
					t.Fatalf("after %s: %+v, want deleted=%v content %q", s.what, ev, s.deleted, s.content)
				}
			}
			stop()
			for range ch { // closed once the watch ends
			}
		})
	}
}

// TestWatchOverrides: the registry's override source follows
// /dubbo/<interface>/configurators: its first state (no node: no URL),
// each URL written, and the node emptied.
func TestWatchOverrides(t *testing.T) {
	srv := zk.Start(t)
	ru, err := common.NewURL("registry://" + srv.Addr() + "?registry=zookeeper")
	if err != nil {
		t.Fatal(err)
	}
	src := source.OverrideSourceFor(ru)
	if src == nil {
		t.Fatal("no override source for a ZooKeeper registry")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const iface = "com.foo.Bar"
	ch, err := src.WatchOverrides(ctx, ru, iface)
	if err != nil {
		t.Fatal(err)
	}
	o := next(t, ch, "watch start")
	if o.Where != "/dubbo/"+iface+"/configurators" || len(o.URLs) != 0 {
		t.Fatalf("first state %+v, want no URL at /dubbo/%s/configurators", o, iface)
	}
	node := "/dubbo/" + iface + "/configurators/" + dzk.EncodeComponent("override://0.0.0.0/"+iface+"?category=configurators&weight=50")
	a := admin(t, srv.Addr())
	if err := a.PutData(ctxT(t), node, nil); err != nil {
		t.Fatal(err)
	}
	o = next(t, ch, "an override URL written")
	if len(o.URLs) != 1 || o.URLs[0].Protocol != "override" || o.URLs[0].Params.Value("weight") != "50" {
		t.Fatalf("after an override URL was written: %+v", o)
	}
	if err := a.DeleteData(ctxT(t), node); err != nil {
		t.Fatal(err)
	}
	if o = next(t, ch, "the override URL deleted"); len(o.URLs) != 0 {
		t.Fatalf("after the override URL was deleted: %+v", o)
	}
	cancel()
	for range ch { // closed once ctx ends
	}
}
