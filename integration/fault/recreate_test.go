package fault

import (
	"fmt"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// TestRuleRecreatedSameVersion: a rule node deleted and created again is
// back at data version 0 with other content; the consumer must follow the
// content ZooKeeper holds, not skip it as a version it has already applied
// (the defect: a consumer kept routing by the deleted rule for good).
//
//   - multi: rule A is replaced by rule B in one transaction (delete +
//     create), while the consumer watches.
//   - cut-off: the consumer's config-center connection is cut (a proxy in
//     between), rule A is replaced by B the same way, and the connection is
//     restored: the consumer re-reads the node and routes by B.
//
// Both also check the premise: the new node's data version equals the old
// one's and its czxid differs.
func TestRuleRecreatedSameVersion(t *testing.T) {
	rule := func(port int) string {
		return fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, port)
	}
	replace := func(t *testing.T, w *world, content string) {
		t.Helper()
		_, before, err := w.rules.Conn.Get(harness.RulePath(svcKey))
		if err != nil {
			t.Fatalf("read rule A: %v", err)
		}
		after, err := w.rules.Recreate(svcKey, content)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != before.Version || after.Czxid == before.Czxid {
			t.Fatalf("premise: re-created node at version %d czxid %#x, old one at version %d czxid %#x; want the same version, another czxid",
				after.Version, after.Czxid, before.Version, before.Czxid)
		}
	}

	t.Run("multi", func(t *testing.T) {
		w := newWorld(t, []harness.ProviderOptions{{}, {}}, harness.ConsumerOptions{})
		p1, p2 := w.ps[0], w.ps[1]
		w.put(t, svcKey, rule(p1.Port))
		w.waitRouted(t, harness.QueryAll, p1)
		replace(t, w, rule(p2.Port))
		start := time.Now()
		w.waitRouted(t, harness.QueryAll, p2)
		t.Logf("rule B routing %v after the multi", time.Since(start).Round(time.Millisecond))
		// And it stays so: a later re-read (same revision) changes nothing.
		time.Sleep(500 * time.Millisecond)
		w.waitRouted(t, harness.QueryAll, p2)
	})

	t.Run("cut-off", func(t *testing.T) {
		server := zk.Start(t)
		proxy := zk.StartProxy(t, server.Addr())
		w := &world{zk: server, reg: "zookeeper://" + server.Addr()}
		w.rules = harness.DialRules(t, server.Addr())
		w.bins = harness.SampleBinaries(t)
		for i := 0; i < 2; i++ {
			w.ps = append(w.ps, harness.StartProvider(t, w.bins, harness.ProviderOptions{Registry: w.reg}))
		}
		p1, p2 := w.ps[0], w.ps[1]
		w.put(t, svcKey, rule(p1.Port))
		w.c = harness.StartConsumer(t, w.bins, harness.ConsumerOptions{
			App: consumerApp, Registry: w.reg, ConfigCenter: "zookeeper://" + proxy.Addr(),
		})
		w.waitRouted(t, harness.QueryAll, p1)

		proxy.Cut()
		replace(t, w, rule(p2.Port))
		time.Sleep(2 * time.Second) // the consumer is away while the rule changes
		// Still on rule A while cut off: nothing could have told it.
		w.waitRouted(t, harness.QueryAll, p1)
		proxy.Restore()
		start := time.Now()
		w.waitRouted(t, harness.QueryAll, p2)
		t.Logf("rule B routing %v after the connection came back", time.Since(start).Round(time.Millisecond))
	})
}
