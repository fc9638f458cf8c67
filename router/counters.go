package router

import (
	"slices"
	"sync/atomic"
	"time"
)

// Counters are the per-branch call counters of one compiled rule: a layout
// of labelled cells fixed when the rule is compiled (a router keeps the
// cell ids it needs next to what it routes with), each incremented on the
// call path with one atomic add (Inc: no allocation, no map, no string).
//
// A block belongs to one accepted rule version: its owner is the parsed
// rule, and a rule is parsed again for every accepted update. A router
// compiled for a new snapshot adopts the previous snapshot's block when the
// owner and the layout are the same (Adopt), so a provider change keeps
// counting into the same cells (calls still routed by the previous snapshot
// count too); a new rule version, or a change of the layout, starts from
// zero.
//
// Some cells are derived rather than counted, so that a call costs as few
// adds as possible: a condition that did not apply is the calls the rule
// saw minus those the condition decided, and the calls are those no
// condition decided plus those some condition decided first (a pair of
// cells counts a branch taken first in the call and taken later; Values
// shows their sum). Values computes them; as every cell is read on its own
// while calls go on, a derived value can be off by the calls in flight (it
// never goes below zero).
type Counters struct {
	owner  any
	layout *CounterLayout
	cells  []atomic.Uint64
	since  time.Time
}

// Counter branch codes that are not trace branches.
const (
	BranchCalls       Branch = "calls"       // every call the router routed with the rule
	BranchDestination Branch = "destination" // a destination (subset) was picked
)

// CounterValue is one cell: which part of the rule (Scope), what it did
// with the calls (Branch, a trace branch code where one exists), where a
// branch has several cells which one (Detail: a v3.1 destination, a dynamic
// tag, a mesh subset), and how many calls took it.
type CounterValue struct {
	Scope  string `json:"scope"`
	Branch Branch `json:"branch"`
	Detail string `json:"detail,omitempty"`
	Count  uint64 `json:"count"`
}

// CounterLayout is the layout of a Counters block, built while a rule is
// compiled (or once per rule, and shared: a built layout is never
// modified).
type CounterLayout struct {
	scopes []string
	labels []cellLabel  // one per shown cell (a pair is one)
	n      int32        // cells
	terms  [][2][]int32 // derived cells' plus and minus terms
}

// cellLabel labels one shown cell of a layout, kept small: a 100-condition
// rule has about 700.
type cellLabel struct {
	id     int32 // the cell
	scope  int32 // index into scopes
	branch Branch
	detail string
	pair   bool  // cell id+1 is counted and shown with this one
	terms  int32 // derived: index into terms; -1: counted
}

func (l *CounterLayout) add(scope string, br Branch, detail string, terms int32, pair bool) int32 {
	si := int32(len(l.scopes) - 1)
	if si < 0 || l.scopes[si] != scope {
		l.scopes = append(l.scopes, scope)
		si++
	}
	id := l.n
	l.labels = append(l.labels, cellLabel{id: id, scope: si, branch: br, detail: detail, terms: terms, pair: pair})
	l.n++
	if pair {
		l.n++
	}
	return id
}

// Add appends a counted cell and returns its id (for Counters.Inc).
func (l *CounterLayout) Add(scope string, br Branch) int32 {
	return l.add(scope, br, "", -1, false)
}

// AddDetail is Add for one of several cells of a branch.
func (l *CounterLayout) AddDetail(scope string, br Branch, detail string) int32 {
	return l.add(scope, br, detail, -1, false)
}

// AddPair appends two counted cells shown as one: id (a branch taken first
// in a call) and id+1 (taken after an earlier one), returning id.
func (l *CounterLayout) AddPair(scope string, br Branch, detail string) int32 {
	return l.add(scope, br, detail, -1, true)
}

// Derive appends a derived cell (its terms set by SetTerms, as the cells
// it depends on are often added after it) and returns its id. A derived
// cell may refer to derived cells before it.
func (l *CounterLayout) Derive(scope string, br Branch) int32 {
	l.terms = append(l.terms, [2][]int32{})
	return l.add(scope, br, "", int32(len(l.terms)-1), false)
}

// SetTerms sets a derived cell's value to the sum of the cells plus minus
// the sum of the cells minus (a counted cell by its own count, the hidden
// half of a pair included only when named; a derived cell by its value).
func (l *CounterLayout) SetTerms(id int32, plus, minus []int32) {
	var t int32
	for i := len(l.labels) - 1; i >= 0; i-- {
		if l.labels[i].id == id {
			t = l.labels[i].terms
			break
		}
	}
	l.terms[t] = [2][]int32{append([]int32(nil), plus...), append([]int32(nil), minus...)}
}

// Len is the number of cells so far.
func (l *CounterLayout) Len() int { return int(l.n) }

// Build makes a block of zero cells over the layout for owner (the parsed
// rule, or a comparable value naming what the layout was derived from; nil
// for a router without rule). The layout must not change afterwards.
func (l *CounterLayout) Build(owner any) *Counters {
	c := &Counters{owner: owner, layout: l, since: time.Now()}
	if l != nil {
		c.cells = make([]atomic.Uint64, l.n)
	}
	return c
}

// Inc counts one call in cell id. A nil block, or an id outside the
// layout (-1: no such cell), counts nothing.
func (c *Counters) Inc(id int32) {
	if c != nil && uint32(id) < uint32(len(c.cells)) {
		c.cells[id].Add(1)
	}
}

// Adopt returns prev when it has the same owner and layout as c (the cells
// go on counting), else c.
func (c *Counters) Adopt(prev *Counters) *Counters {
	if c == nil || prev == nil || c == prev || c.owner != prev.owner || !c.layout.same(prev.layout) {
		return c
	}
	return prev
}

// same reports whether two layouts have the same cells.
func (l *CounterLayout) same(o *CounterLayout) bool {
	switch {
	case l == o:
		return true
	case l == nil || o == nil || l.n != o.n || len(l.labels) != len(o.labels) || len(l.terms) != len(o.terms):
		return false
	}
	for i := range l.labels {
		a, b := &l.labels[i], &o.labels[i]
		if a.id != b.id || l.scopes[a.scope] != o.scopes[b.scope] || a.branch != b.branch || a.detail != b.detail || a.pair != b.pair || a.terms != b.terms {
			return false
		}
	}
	for i := range l.terms {
		if !slices.Equal(l.terms[i][0], o.terms[i][0]) || !slices.Equal(l.terms[i][1], o.terms[i][1]) {
			return false
		}
	}
	return true
}

// Since is when the block was made (when its rule version was first
// compiled in this process, or its layout last changed).
func (c *Counters) Since() time.Time {
	if c == nil {
		return time.Time{}
	}
	return c.since
}

// Values reads every shown cell in layout order (derived cells computed,
// the two cells of a pair shown as one).
func (c *Counters) Values() []CounterValue {
	if c == nil || c.layout == nil {
		return nil
	}
	l := c.layout
	v := make([]uint64, len(c.cells))
	for i := range c.cells {
		v[i] = c.cells[i].Load()
	}
	for _, cl := range l.labels {
		if cl.terms < 0 {
			continue
		}
		var plus, minus uint64
		for _, p := range l.terms[cl.terms][0] {
			plus += v[p]
		}
		for _, m := range l.terms[cl.terms][1] {
			minus += v[m]
		}
		if minus > plus {
			minus = plus
		}
		v[cl.id] = plus - minus
	}
	out := make([]CounterValue, 0, len(l.labels))
	for _, cl := range l.labels {
		n := v[cl.id]
		if cl.pair {
			n += v[cl.id+1]
		}
		out = append(out, CounterValue{Scope: l.scopes[cl.scope], Branch: cl.branch, Detail: cl.detail, Count: n})
	}
	return out
}

// Count is the sum of the cells labelled scope and br (of every detail).
// It reads the whole block; it is meant for tests and tools.
func (c *Counters) Count(scope string, br Branch) uint64 {
	var n uint64
	for _, v := range c.Values() {
		if v.Scope == scope && v.Branch == br {
			n += v.Count
		}
	}
	return n
}

// CountDetail is the value of the cell labelled scope, br and detail.
func (c *Counters) CountDetail(scope string, br Branch, detail string) uint64 {
	for _, v := range c.Values() {
		if v.Scope == scope && v.Branch == br && v.Detail == detail {
			return v.Count
		}
	}
	return 0
}

// Counted is embedded (by value) by every compiled router: its branch
// counters, which it counts into on the call path, the chain reads
// (Counters) and carries over a rebuild that kept the rule
// (AdoptCounters). A compiled router hands it out through a nil-safe
// accessor (Cells: nil for no rule).
type Counted struct{ cnt *Counters }

// Counters are the branch counters (nil for a nil Counted, or none).
func (c *Counted) Counters() *Counters {
	if c == nil {
		return nil
	}
	return c.cnt
}

// Took records that a call took branch br: a call routed without a step
// (the call path; explain and what-if do not count) counts in cell id, a
// traced one names br in step. It reports whether step is there to take the
// branch's detail, so that the caller formats it only then:
//
//	if c.Took(step, id, router.BranchStatic) {
//		step.Detail = fmt.Sprintf(...)
//	}
func (c *Counted) Took(step *Step, id int32, br Branch) bool {
	if step == nil {
		c.Counters().Inc(id)
		return false
	}
	step.Branch = br
	return true
}

// SetCounters makes cnt the counters (at compile time).
func (c *Counted) SetCounters(cnt *Counters) { c.cnt = cnt }

// AdoptCounters makes c count into prev's cells when both were compiled
// from the same rule (the same accepted version, or both without a rule)
// with the same layout: counters survive a snapshot rebuild for a provider
// change and start again with a new rule version. It must be called
// before c is used.
func (c *Counted) AdoptCounters(prev *Counted) {
	if c == nil || prev == nil {
		return
	}
	c.cnt = c.cnt.Adopt(prev.cnt)
}
