package extension_test

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
	"unsafe"
	"weak"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/dubbo"

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
// through dubbo-go's own Refer leave the process as they found it: every
// binding made is garbage once its reference is destroyed (rule and
// configurator subscriptions cancelled, the startup timer stopped), no
// empty-protection listener is left (its grace timers stopped, its entries
// dropped), goroutines are at the baseline, and the heap grows by no more
// than what dubbo-go v3.3.2 keeps itself: its dubbo protocol appends every
// invoker it refers to a list it empties only when the protocol is
// destroyed (BaseProtocol.SetInvokers; DubboInvoker.Destroy leaves it
// there, about 1 KiB per provider of every reference made). That list is
// cut back to its length before the cycles (forgetKept) before the heap is
// measured.
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
	dp := dubbo.GetProtocol().(*dubbo.DubboProtocol)
	keptBefore := len(dp.Invokers())
	base := measure()
	const cycles = 1000
	made := make([]weak.Pointer[extension.Binding], 0, cycles)
	begin := time.Now()
	for i := 0; i < cycles; i++ {
		made = referAndDestroy(t, app, made)
	}
	elapsed := time.Since(begin)
	kept := len(dp.Invokers()) - keptBefore
	forgetKept(t, dp, keptBefore)
	// Goroutines a destroy ends may take a moment to return, and what
	// they hold a moment to become garbage.
	var got footprint
	alive := 0
	for end := time.Now().Add(15 * time.Second); ; {
		got = measure()
		alive = 0
		for _, w := range made {
			if w.Value() != nil {
				alive++
			}
		}
		if (got.goroutines <= base.goroutines+5 && alive <= 1) || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d cycles in %v; before %+v, after %+v; bindings seen %d, alive %d; dubbo-go's protocol kept %d invokers (set aside)",
		cycles, elapsed.Round(time.Millisecond), base, got, len(made), alive, kept)
	if len(made) < cycles {
		t.Fatalf("only %d bindings seen over %d references: the test no longer sees the references it makes", len(made), cycles)
	}
	if got.bindings != base.bindings {
		t.Errorf("bindings: %d after %d cycles, %d before", got.bindings, cycles, base.bindings)
	}
	// The last reference's binding stays reachable (one, whatever the
	// number of cycles: 1 of 1,000 as of 4,000 in the runs that set this
	// bound; not found what holds it); more is a leak.
	if alive > 1 {
		t.Errorf("%d of the %d bindings made are still reachable after their references were destroyed", alive, len(made))
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
	// KiB: 1,000 of them would be tens of MiB. dubbo-go's own share is set
	// aside; 1 MiB is left for pools, maps that grew and GC slack.
	if growth := int64(got.heap) - int64(base.heap); growth > 1<<20 {
		t.Errorf("heap grew by %s over %d cycles", mib(growth), cycles)
	}
}

// referAndDestroy makes a reference of app and destroys it, adding weak
// pointers to the bindings of app it saw alive in between (in a frame of
// its own: nothing of the reference stays on the test's stack).
//
//go:noinline
func referAndDestroy(t *testing.T, app string, made []weak.Pointer[extension.Binding]) []weak.Pointer[extension.Binding] {
	ref := refer(t, app)
	for _, b := range extension.AllBindings() {
		if b.ConsumerApp() == app {
			made = append(made, weak.Make(b))
		}
	}
	ref.Destroy()
	return made
}

// forgetKept cuts dubbo-go v3.3.2's list of referred invokers back to its
// first n entries (the list has no other way out but the protocol's
// Destroy, which would stop this binary's providers too), so that what the
// invokers dubbo-go keeps hold is not counted as dubboroute's. Test-only:
// it writes dubbo-go's unexported field.
func forgetKept(t *testing.T, dp *dubbo.DubboProtocol, n int) {
	t.Helper()
	f := reflect.ValueOf(dp).Elem().FieldByName("BaseProtocol").FieldByName("invokers")
	if !f.IsValid() || f.Kind() != reflect.Slice {
		t.Fatal("dubbo-go's BaseProtocol has no invokers slice any more: review forgetKept")
	}
	list := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	if list.Len() < n {
		t.Fatalf("dubbo-go's invoker list shrank from %d to %d", n, list.Len())
	}
	keep := reflect.MakeSlice(f.Type(), n, n)
	reflect.Copy(keep, list.Slice(0, n))
	list.Set(keep)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
