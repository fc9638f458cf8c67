package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
)

// SnapshotHeapEnv names the directory BenchmarkSnapshotHeap writes its heap
// profiles to; without it the benchmark is skipped (it is a profiling aid:
// recording every allocation slows the whole binary down).
const SnapshotHeapEnv = "SNAPSHOT_HEAP_PROFILE"

// BenchmarkSnapshotHeap breaks down the B/snapshot of
// BenchmarkChainRoute/impl=dubboroute/n=10000 by allocation site: with
// every allocation recorded, it writes the live heap before (fleet.pprof)
// and after (chain.pprof) building that chain and routing the four calls,
// so that
//
//	go tool pprof -sample_index=inuse_space -diff_base fleet.pprof chain.pprof
//
// shows where the snapshot's bytes are (the fleet's invokers cancel out).
func BenchmarkSnapshotHeap(b *testing.B) {
	dir := os.Getenv(SnapshotHeapEnv)
	if dir == "" {
		b.Skipf("set %s to a directory to write the heap profiles", SnapshotHeapEnv)
	}
	runtime.MemProfileRate = 1
	const n = 10000
	f := newFleet(b, n)
	calls := newCalls()
	write := func(name string) {
		runtime.GC()
		runtime.GC() // the heap profile is as of the last completed GC
		out, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		if err := pprof.Lookup("heap").WriteTo(out, 0); err != nil {
			b.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	write("fleet.pprof")
	runtime.ReadMemStats(&before)
	c := ourChain(b, f, tagRule(f.n), ourServiceRule)
	for _, inv := range calls {
		c.Route(inv, nil)
	}
	write("chain.pprof")
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "B/snapshot")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/provider")
}
