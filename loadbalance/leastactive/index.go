package leastactive

import (
	"math"
	"sync"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

// Index is PickBy kept up to date: a tournament tree over the providers'
// values (active counts, estimates) whose every node holds the least value
// of its leaves, how many hold it, their total weight and whether their
// weights are equal. A change of one value costs O(log n) (Update), a pick
// O(log n) (Pick), whatever the number of providers, and it picks exactly
// what PickBy picks for the same values, table and draws: one provider
// holding the least is picked without a draw; otherwise one draw, by
// weight among the holders when their weights differ (and total more than
// 0), uniform among them when not, the holders walked in provider order.
//
// An Index is safe for concurrent use (a mutex: an update or a pick holds
// it for one walk of the tree).
type Index struct {
	mu    sync.Mutex
	n     int
	leaf  int // first leaf's position in nodes (a power of two)
	value func(i int) int64
	table *weight.Table
	nodes []node
}

// node is one subtree's summary; count 0 is an empty subtree (padding).
type node struct {
	least int64
	total int64
	count int32
	// w is the holders' common weight, or mixed.
	w int32
}

// mixed marks holders whose weights differ.
const mixed = math.MinInt32

// NewIndex makes the index of n providers whose value value(i) reads
// (concurrently with other calls: it must be safe to call at any time).
// The weights come from the table of the first Pick (and of every later
// one whose table differs).
func NewIndex(n int, value func(i int) int64) *Index {
	leaf := 1
	for leaf < n {
		leaf <<= 1
	}
	return &Index{n: n, leaf: leaf, value: value, nodes: make([]node, 2*leaf)}
}

// Len is the number of providers.
func (x *Index) Len() int { return x.n }

// Update reads provider i's value again (call it after it changed).
func (x *Index) Update(i int) {
	if i < 0 || i >= x.n {
		return
	}
	x.mu.Lock()
	if x.table != nil {
		x.set(i)
		for p := (x.leaf + i) >> 1; p >= 1; p >>= 1 {
			x.nodes[p] = merge(x.nodes[2*p], x.nodes[2*p+1])
		}
	}
	x.mu.Unlock()
}

// Refresh reads every value again (after a change of all of them, as a
// shortestresponse window sliding): O(n).
func (x *Index) Refresh() {
	x.mu.Lock()
	if x.table != nil {
		x.rebuild(x.table)
	}
	x.mu.Unlock()
}

func (x *Index) set(i int) {
	w := int32(0)
	if i < len(x.table.Weights) {
		w = x.table.Weights[i]
	}
	x.nodes[x.leaf+i] = node{least: x.value(i), count: 1, total: int64(w), w: w}
}

func (x *Index) rebuild(t *weight.Table) {
	x.table = t
	for i := 0; i < x.n; i++ {
		x.set(i)
	}
	for p := x.leaf - 1; p >= 1; p-- {
		x.nodes[p] = merge(x.nodes[2*p], x.nodes[2*p+1])
	}
}

func merge(a, b node) node {
	switch {
	case b.count == 0 || a.count != 0 && a.least < b.least:
		return a
	case a.count == 0 || b.least < a.least:
		return b
	}
	w := a.w
	if w != b.w {
		w = mixed
	}
	return node{least: a.least, count: a.count + b.count, total: a.total + b.total, w: w}
}

// Pick returns the index PickBy(t, value, rnd) returns (t's weights are
// the providers'; a table other than the last one's rebuilds the index).
func (x *Index) Pick(t *weight.Table, rnd weight.Rand) int {
	if x.n <= 1 {
		return 0
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if t != x.table {
		x.rebuild(t)
	}
	root := x.nodes[1]
	if root.count == 1 {
		return x.descend(func(l node) bool { return true })
	}
	if root.w == mixed && root.total > 0 {
		return x.descendNth(int64(rnd(int(root.total))), func(l node) int64 { return l.total })
	}
	return x.descendNth(int64(rnd(int(root.count))), func(l node) int64 { return int64(l.count) })
}

// descendNth walks to the holder of the least that owns unit k, a
// subtree's holders owning size(subtree) units in leaf order: by weight
// when the least differ in weight, one each otherwise.
func (x *Index) descendNth(k int64, size func(node) int64) int {
	return x.descend(func(l node) bool {
		n := size(l)
		if k < n {
			return true
		}
		k -= n
		return false
	})
}

// descend walks from the root to a holder of the least: where both
// children hold it, left says whether to go left (given the left child).
func (x *Index) descend(left func(l node) bool) int {
	least := x.nodes[1].least
	p := 1
	for p < x.leaf {
		l, r := x.nodes[2*p], x.nodes[2*p+1]
		lh := l.count != 0 && l.least == least
		rh := r.count != 0 && r.least == least
		switch {
		case lh && (!rh || left(l)):
			p = 2 * p
		case rh:
			p = 2*p + 1
		default: // cannot happen: a node's least is one of its children's
			p = 2 * p
		}
	}
	i := p - x.leaf
	if i >= x.n {
		return x.n - 1
	}
	return i
}
