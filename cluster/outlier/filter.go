package outlier

import (
	"sync/atomic"
	"unsafe"
)

// Filter is the step after routing and before the load balancer: the
// routed providers without the ejected ones. It never widens routed (the
// result is routed or a subset of it, in routed's order) and never empties
// it: when no routed provider is left, or fewer than MinHealthPercent of
// them, routed is returned as it is and panicked is true (the panic floor).
//
// The result for one routed list (by identity: its first element's address
// and length) is memoised until who is ejected changes, so that the load
// balancer's plan cache, keyed by list identity, keeps its plans: O(1) and
// no allocation per call once memoised. With nobody ejected it returns
// routed itself.
type Filter[I any] struct {
	// Addr is a provider's address as the Detector knows it.
	Addr func(I) string
	memo atomic.Pointer[memoTable[I]]
}

type memoKey struct {
	first unsafe.Pointer
	n     int
}

type memoEntry[I any] struct {
	routed   []I // kept, so that its address is not reused while memoised
	list     []I
	panicked bool
}

type memoTable[I any] struct {
	epoch uint64
	m     map[memoKey]memoEntry[I]
}

// maxMemo bounds the memoised lists per epoch (a reference has few routed
// lists: one per distinct routing outcome).
const maxMemo = 256

// Apply filters routed with d (nil or disabled d: routed). It runs the
// detector's interval sweep when one is due.
func (f *Filter[I]) Apply(d *Detector, routed []I) (out []I, panicked bool) {
	if !d.Enabled() || len(routed) == 0 {
		return routed, false
	}
	d.Tick()
	if d.ejected.Load() == 0 {
		return routed, false
	}
	epoch := d.epoch.Load()
	key := memoKey{unsafe.Pointer(unsafe.SliceData(routed)), len(routed)}
	t := f.memo.Load()
	if t != nil && t.epoch == epoch {
		if e, ok := t.m[key]; ok {
			if e.panicked {
				d.panics.Add(1)
			}
			return e.list, e.panicked
		}
	}
	e := f.compute(d, routed)
	e.routed = routed
	var m map[memoKey]memoEntry[I]
	if t != nil && t.epoch == epoch && len(t.m) < maxMemo {
		m = make(map[memoKey]memoEntry[I], len(t.m)+1)
		for k, v := range t.m {
			m[k] = v
		}
	} else {
		m = make(map[memoKey]memoEntry[I], 1)
	}
	m[key] = e
	f.memo.Store(&memoTable[I]{epoch: epoch, m: m})
	if e.panicked {
		d.panics.Add(1)
	}
	return e.list, e.panicked
}

func (f *Filter[I]) compute(d *Detector, routed []I) memoEntry[I] {
	kept := 0
	for _, x := range routed {
		if !d.Ejected(f.Addr(x)) {
			kept++
		}
	}
	if kept == len(routed) {
		return memoEntry[I]{list: routed}
	}
	if kept == 0 || 100*kept < d.cfg.MinHealthPercent*len(routed) {
		return memoEntry[I]{list: routed, panicked: true}
	}
	out := make([]I, 0, kept)
	for _, x := range routed {
		if !d.Ejected(f.Addr(x)) {
			out = append(out, x)
		}
	}
	return memoEntry[I]{list: out}
}
