package fault

import (
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// availRate is the load of the availability tests: enough calls that every
// provider is picked many times a second, little enough for a loaded
// 2-core machine running -race binaries.
const availRate = 100

// TestProviderCrashReselect: three providers, a consumer with
// loadbalance random and retries 0 (one attempt per call), one provider
// SIGKILLed under load. Its registration stays until its ZooKeeper session
// expires, so for that while the registry still lists it; its connection
// is gone at once. As Java's cluster.availablecheck does, the consumer
// never picks a provider whose connection is down while another routed
// provider is available: no call fails.
func TestProviderCrashReselect(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}, {}}, harness.ConsumerOptions{LoadBalance: "random"})
	dead := w.ps[2]
	alive := w.ps[:2]
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: availRate})
	defer l.stop(t)
	waitCalls(t, l, availRate)

	before := l.calls()
	killed := time.Now()
	if err := dead.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.c.WaitExplain(harness.QueryAll, settle+15*time.Second, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, addrsOf(alive)...)
	}); err != nil {
		t.Fatalf("killed provider never left the registry: %v", err)
	}
	gone := time.Now()
	during := l.calls() - before
	waitCalls(t, l, l.calls()+availRate/2)
	l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	t.Logf("%s killed; registered for %v more (its ZooKeeper session); %d calls in that window", dead.Addr, gone.Sub(killed).Round(time.Millisecond), during)
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	for _, p := range w.ps {
		if st.Ports[p.Port] == 0 {
			t.Errorf("provider %s served no call: %v", p.Addr, st.Ports)
		}
	}
}
