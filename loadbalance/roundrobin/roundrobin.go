package roundrobin

import (
	"math"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/dubboroute/dubboroute/loadbalance/listcache"
	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

// Name is Java's extension name.
const Name = "roundrobin"

// RecyclePeriod is Java's RECYCLE_PERIOD in milliseconds.
const RecyclePeriod = 60000

// Balancer holds the round-robin state of one application (Java keeps one
// RoundRobinLoadBalance per application model). Safe for concurrent use.
type Balancer struct {
	mu   sync.Mutex
	keys map[string]map[string]*keyState // service key -> method -> state
}

// New makes a Balancer.
func New() *Balancer { return &Balancer{keys: map[string]map[string]*keyState{}} }

type entry struct {
	weight     int32
	current    int64
	lastUpdate int64
	removed    bool
}

// keyState is Java's methodWeightMap entry for one service key and method.
type keyState struct {
	mu      sync.Mutex
	entries map[string]*entry
	fast    atomic.Pointer[rotation]
	// lastSlow is the bound of the previous walk: a rotation starts on the
	// second consecutive walk of one routed list, so lists that alternate
	// keep Java's O(n) walk instead of re-planning every call.
	lastSlow *bound
}

// rotation is the O(1) form of a state whose n providers share one weight
// w > 0 and whose currents spread less than n*w: Java's walk then picks
// them in a fixed order (current descending, index ascending), each once
// every n calls, and returns to the starting currents after n calls (each
// provider gains n*w and loses n*w once). counter calls were made since
// base was taken.
type rotation struct {
	owner   *bound
	table   *weight.Table
	n       int64
	w       int32
	order   []int32 // pick order (provider indexes)
	rank    []int32 // rank[i]: position of provider i in order
	base    []int64 // currents when the rotation began
	counter atomic.Int64
	last    atomic.Int64 // ms of the last call (Java's lastUpdate of every entry)
}

// bound is one plan's providers resolved to one key's entries.
type bound struct {
	ks      *keyState
	entries []*entry
	ids     []string
	dups    bool // two providers share an identity (and so an entry): never a rotation
}

// Plan is the round-robin view of one routed provider list.
type Plan struct {
	b       *Balancer
	set     *weight.Set
	methods listcache.ByMethod[*bound]
}

// Plan makes the plan of a routed provider list; build it once per list.
func (b *Balancer) Plan(set *weight.Set) *Plan {
	return &Plan{b: b, set: set}
}

func (p *Plan) bound(method string) *bound {
	return p.methods.Get(method, func(map[string]*bound) *bound { return p.bind(method) })
}

// bind resolves the plan's providers to method's entries.
func (p *Plan) bind(method string) *bound {
	ps := p.set.Providers()
	svc := ""
	if len(ps) > 0 {
		svc = ps[0].ServiceKey
	}
	p.b.mu.Lock()
	byMethod := p.b.keys[svc]
	if byMethod == nil {
		byMethod = map[string]*keyState{}
		p.b.keys[svc] = byMethod
	}
	ks := byMethod[method]
	if ks == nil {
		ks = &keyState{entries: map[string]*entry{}}
		byMethod[method] = ks
	}
	p.b.mu.Unlock()
	bd := &bound{ks: ks, entries: make([]*entry, len(ps)), ids: make([]string, len(ps))}
	seen := make(map[string]bool, len(ps))
	for i, pr := range ps {
		bd.ids[i] = pr.Identity
		if seen[pr.Identity] {
			bd.dups = true
		}
		seen[pr.Identity] = true
	}
	return bd
}

// Pick returns the index Java's RoundRobinLoadBalance.doSelect picks for
// method (the real method name of a generic call).
func (p *Plan) Pick(method string) int {
	n := p.set.Len()
	if n <= 1 {
		return 0
	}
	bd := p.bound(method)
	t := p.set.Table(method)
	ks := bd.ks
	if f := ks.fast.Load(); f != nil && f.owner == bd && f.table == t {
		c := f.counter.Add(1) - 1
		f.last.Store(p.set.Clock()())
		return int(f.order[c%f.n])
	}
	return p.slow(bd, t)
}

func (p *Plan) slow(bd *bound, t *weight.Table) int {
	ks := bd.ks
	now := p.set.Clock()()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.materialize()
	n := len(bd.entries)
	if w := t.Weights[0]; !bd.dups && t.Same && w > 0 && ks.lastSlow == bd {
		if f := ks.tryRotation(bd, t, w, now); f != nil {
			ks.fast.Store(f)
			ks.lastSlow = nil
			return int(f.order[0])
		}
	}
	ks.lastSlow = bd
	// Java's walk, literally (an entry two providers share is reset and
	// increased by each in turn, as in Java).
	var total int64
	best, sel := int64(math.MinInt64), -1
	for i := range bd.entries {
		w := t.Weights[i]
		e := ks.resolve(bd, i, w)
		if e.weight != w {
			e.weight, e.current = w, 0
		}
		e.current += int64(w)
		e.lastUpdate = now
		if e.current > best {
			best, sel = e.current, i
		}
		total += int64(w)
	}
	if n != len(ks.entries) {
		for id, e := range ks.entries {
			if now-e.lastUpdate > RecyclePeriod {
				e.removed = true
				delete(ks.entries, id)
			}
		}
	}
	if sel < 0 {
		return 0
	}
	bd.entries[sel].current -= total
	return sel
}

// resolve returns provider i's entry, creating it (Java's computeIfAbsent
// with the weight) when missing or recycled.
func (ks *keyState) resolve(bd *bound, i int, w int32) *entry {
	e := bd.entries[i]
	if e == nil || e.removed {
		e = ks.entries[bd.ids[i]]
		if e == nil {
			e = &entry{weight: w}
			ks.entries[bd.ids[i]] = e
		}
		bd.entries[i] = e
	}
	return e
}

// tryRotation starts a rotation at the current state when Java's walk
// would rotate from it (ks.mu held); this call is its first step. It
// applies Java's newcomer creation and weight-change resets first.
func (ks *keyState) tryRotation(bd *bound, t *weight.Table, w int32, now int64) *rotation {
	n := len(bd.entries)
	vals := make([]int64, n)
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range bd.entries {
		e := bd.entries[i]
		if e == nil || e.removed {
			e = ks.entries[bd.ids[i]]
		}
		var v int64
		if e != nil && e.weight == w {
			v = e.current
		}
		vals[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi-lo >= int64(n)*int64(w) {
		return nil
	}
	f := &rotation{owner: bd, table: t, n: int64(n), w: w, order: make([]int32, n), rank: make([]int32, n), base: vals}
	for i := range f.order {
		f.order[i] = int32(i)
	}
	sort.SliceStable(f.order, func(a, b int) bool { return vals[f.order[a]] > vals[f.order[b]] })
	for r, i := range f.order {
		f.rank[i] = int32(r)
	}
	for i := range bd.entries {
		e := ks.resolve(bd, i, w)
		e.weight, e.current, e.lastUpdate = w, vals[i], now
	}
	if len(ks.entries) != n { // Java's cleanup on this call
		for id, e := range ks.entries {
			if now-e.lastUpdate > RecyclePeriod {
				e.removed = true
				delete(ks.entries, id)
			}
		}
	}
	f.counter.Store(1)
	f.last.Store(now)
	return f
}

// materialize turns a running rotation back into entries (ks.mu held),
// and drops what Java's cleanup would have dropped meanwhile: with more
// entries than providers, every call removes entries idle for more than
// RecyclePeriod, and the last call was at f.last.
func (ks *keyState) materialize() {
	f := ks.fast.Swap(nil)
	if f == nil {
		return
	}
	c, last := f.counter.Load(), f.last.Load()
	q, r := c/f.n, c%f.n
	w := int64(f.w)
	for i, e := range f.owner.entries {
		k := q
		if int64(f.rank[i]) < r {
			k++
		}
		e.current = f.base[i] + w*(c-f.n*k)
		e.lastUpdate = last
	}
	if len(ks.entries) != len(f.owner.entries) {
		for id, e := range ks.entries {
			if last-e.lastUpdate > RecyclePeriod {
				e.removed = true
				delete(ks.entries, id)
			}
		}
	}
}
