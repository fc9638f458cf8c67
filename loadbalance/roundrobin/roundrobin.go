package roundrobin

import (
	"math"
	"sync"
	"sync/atomic"

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
}

// rotation is the O(1) form of a state: n providers of equal weight w,
// entries all 0 when it began; counter calls made since.
type rotation struct {
	owner   *bound
	table   *weight.Table
	n       int64
	w       int32
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
	methods atomic.Pointer[map[string]*bound]
	mu      sync.Mutex
}

// Plan makes the plan of a routed provider list; build it once per list.
func (b *Balancer) Plan(set *weight.Set) *Plan {
	p := &Plan{b: b, set: set}
	m := map[string]*bound{}
	p.methods.Store(&m)
	return p
}

func (p *Plan) bound(method string) *bound {
	if bd, ok := (*p.methods.Load())[method]; ok {
		return bd
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := *p.methods.Load()
	if bd, ok := old[method]; ok {
		return bd
	}
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
	next := make(map[string]*bound, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[method] = bd
	p.methods.Store(&next)
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
		if f.w <= 0 {
			return 0
		}
		return int(c % f.n)
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
	if !bd.dups && t.Same {
		// Fresh-equivalent (every entry at 0 once Java's weight-change resets
		// ran, and no other entries): run as a rotation from here, this call
		// being its first step (index 0).
		ok, newcomers := true, 0
		for i, e := range bd.entries {
			if e == nil || e.removed {
				if e = ks.entries[bd.ids[i]]; e == nil {
					newcomers++
					continue
				}
			}
			if e.current != 0 && e.weight == t.Weights[i] {
				ok = false
				break
			}
		}
		if ok && len(ks.entries)+newcomers == n {
			for i := range bd.entries {
				e := ks.resolve(bd, i, t.Weights[i])
				e.weight, e.current, e.lastUpdate = t.Weights[i], 0, now
			}
			f := &rotation{owner: bd, table: t, n: int64(n), w: t.Weights[0]}
			f.counter.Store(1)
			f.last.Store(now)
			ks.fast.Store(f)
			return 0
		}
	}
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

// materialize turns a running rotation back into entries (ks.mu held).
func (ks *keyState) materialize() {
	f := ks.fast.Swap(nil)
	if f == nil {
		return
	}
	c, last := f.counter.Load(), f.last.Load()
	q, r := c/f.n, c%f.n
	for i, e := range f.owner.entries {
		k := q
		if int64(i) < r {
			k++
		}
		if f.w > 0 {
			e.current = int64(f.w) * (c - f.n*k)
		} else {
			e.current = 0
		}
		e.lastUpdate = last
	}
}
