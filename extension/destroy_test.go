package extension_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/extension/discovery"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// refer builds a reference as dubbo-go's client does (the registry
// protocol's Refer: directory, subscription, router chain, cluster join)
// on the process's memory registry, where the test binary's providers are.
func refer(t testing.TB, app string) base.Invoker {
	t.Helper()
	sub, err := common.NewURL("dubbo://127.0.0.1/" + api.Interface + "?interface=" + api.Interface + "&application=" + app +
		"&side=consumer&loadbalance=gray&check=false&serialization=hessian2")
	if err != nil {
		t.Fatal(err)
	}
	reg, err := common.NewURL("registry://127.0.0.1:0?registry=memory&registry-type=interface")
	if err != nil {
		t.Fatal(err)
	}
	reg.SubURL = sub
	ivk := dgext.GetProtocol(constant.RegistryProtocol).Refer(reg)
	if ivk == nil {
		t.Fatal("Refer returned no invoker")
	}
	return ivk
}

// leakApp is the consumer application of TestReferenceDestroyReleases.
const leakApp = "leak-consumer"

type footprint struct {
	goroutines, bindings, protected int
	heap                            uint64
}

func measure() footprint {
	for i := 0; i < 3; i++ {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n := 0
	for _, b := range extension.AllBindings() {
		if b.ConsumerApp() == leakApp {
			n++
		}
	}
	return footprint{goroutines: goroutinesOutsideGetty(), bindings: n,
		protected: discovery.ProtectedListeners(), heap: ms.HeapAlloc}
}

// goroutinesOutsideGetty counts the goroutines but dubbo-go's connection
// sessions (dubbo-getty): dubbo-go v3.3.2's exchange clients are shared by
// provider address and reference-counted, and a connection of a reference
// destroyed while it was connecting can outlive it (dubbo-go's, bounded by
// the provider count, not by the references made).
func goroutinesOutsideGetty() int {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.HasPrefix(g, "goroutine ") && !strings.Contains(g, "dubbo-getty") {
			n++
		}
	}
	return n
}

// TestReferenceDestroyReleases: 1,000 references created and destroyed
// through dubbo-go's own Refer leave the process as they found it: no
// binding left in Bindings (rule and configurator subscriptions cancelled,
// the startup timer stopped), no empty-protection listener left (its grace
// timers stopped, its entries dropped), goroutines and heap at the
// baseline.
func TestReferenceDestroyReleases(t *testing.T) {
	const app = leakApp
	// One reference first, to the real providers: the path is the one
	// calls take.
	ivk := refer(t, app)
	deadline := time.Now().Add(10 * time.Second)
	for {
		bs := extension.Bindings(api.Interface)
		if len(bs) > 0 && len(bs[len(bs)-1].Chain().Snapshot().URLs) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference never got the 3 providers (%d bindings)", len(bs))
		}
		time.Sleep(10 * time.Millisecond)
	}
	ivk.Destroy()
	for i := 0; i < 20; i++ { // warm caches, pools and lazily built singletons
		refer(t, app).Destroy()
	}
	base := measure()
	const cycles = 1000
	begin := time.Now()
	for i := 0; i < cycles; i++ {
		refer(t, app).Destroy()
	}
	elapsed := time.Since(begin)
	// Goroutines a destroy ends may take a moment to return.
	// Goroutines a destroy ends may take a moment to return.
	var got footprint
	for end := time.Now().Add(15 * time.Second); ; {
		if got = measure(); got.goroutines <= base.goroutines+5 || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d cycles in %v; before %+v, after %+v", cycles, elapsed.Round(time.Millisecond), base, got)
	if got.bindings != base.bindings {
		t.Errorf("bindings: %d after %d cycles, %d before", got.bindings, cycles, base.bindings)
	}
	// (Other tests' references, alive, may still be subscribing: a
	// listener or two of theirs may come or go meanwhile.)
	if got.protected > base.protected+2 {
		t.Errorf("empty-protection listeners: %d after %d cycles, %d before", got.protected, cycles, base.protected)
	}
	if got.goroutines > base.goroutines+5 {
		t.Errorf("goroutines: %d after %d cycles, %d before", got.goroutines, cycles, base.goroutines)
		if os.Getenv("DUBBOROUTE_DUMP") != "" {
			_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
			f, _ := os.Create(os.Getenv("DUBBOROUTE_DUMP"))
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	// A leaked binding (chain, snapshot, metrics, subscriptions) is tens of
	// KiB: 1,000 of them would be tens of MiB.
	if growth := int64(got.heap) - int64(base.heap); growth > 4<<20 {
		t.Errorf("heap grew by %s over %d cycles", mib(growth), cycles)
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
