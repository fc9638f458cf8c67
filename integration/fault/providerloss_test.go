package fault

import (
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// failoverRetries is dubbo-go's (and Java's) default for the failover
// cluster; the harness starts consumers with 0 unless told.
const failoverRetries = 2

// TestProviderLoss: one of two providers is killed (SIGKILL: no graceful
// unregister, its ZooKeeper node stays until its session expires) under
// 250 calls/s. With the default failover retries no call fails; once the
// registry drops the node the consumer no longer lists or routes to it, and
// every later call is served by the survivor.
func TestProviderLoss(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}}, harness.ConsumerOptions{Retries: failoverRetries})
	p1, p2 := w.ps[0], w.ps[1]
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: outageRate})
	defer l.stop(t)
	waitCalls(t, l, outageRate)

	killed := time.Now()
	if err := p2.Kill(); err != nil {
		t.Fatal(err)
	}
	ex, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, p1.Addr) && harness.Same(ex.Routed, p1.Addr)
	})
	gone := time.Now()
	if err != nil {
		t.Fatalf("killed provider never left the route: %v", err)
	}
	t.Logf("%s killed; out of the route %v later (its ZooKeeper session expired); trace: %s", p2.Addr, gone.Sub(killed).Round(time.Millisecond), ex.TraceText)
	waitCalls(t, l, l.calls()+outageRate)

	batches := l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	if st.Ports[p2.Port] == 0 || st.Ports[p1.Port] == 0 {
		t.Errorf("both providers should have served before the kill: %v", st.Ports)
	}
	checkCalls(t, "queryAll", batches, servedBy(p1.Port, p2.Port))
	var afterKill, afterGone int
	checkCalls(t, "queryAll after the kill", batches, func(b httpapi.Load, c httpapi.LoadCall) error {
		at := time.Unix(0, b.Started).Add(time.Duration(c.At) * time.Microsecond)
		if at.After(killed) {
			afterKill++
		}
		if !at.After(gone) {
			return nil
		}
		afterGone++
		if c.Port != p1.Port {
			return servedBy(p1.Port)(b, c)
		}
		return nil
	})
	t.Logf("%d calls after the kill, %d after the provider left the route", afterKill, afterGone)
	if afterGone == 0 {
		t.Errorf("no call after the provider left the route")
	}
}
