package router

import (
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
	labels []CounterLabel
	cells  []atomic.Uint64
	since  time.Time
}

// Counter branch codes that are not trace branches.
const (
	BranchCalls       Branch = "calls"       // every call the router routed with the rule
	BranchDestination Branch = "destination" // a destination (subset) was picked
)

// CounterLabel names one cell: which part of the rule (Scope), what it did
// with the call (Branch, a trace branch code where one exists) and, where a
// branch has several cells, which one (Detail: a v3.1 destination, a
// dynamic tag, a mesh subset).
type CounterLabel struct {
	Scope  string `json:"scope"`
	Branch Branch `json:"branch"`
	Detail string `json:"detail,omitempty"`
	// A derived cell is the sum of the cells plus minus the cells minus
	// (counted cells by their own count, derived cells by their value).
	derived     bool
	plus, minus []int32
	// A hidden cell is counted but shown added to cell into.
	hidden bool
	into   int32
}

// CounterValue is a cell's label and its count.
type CounterValue struct {
	Scope  string `json:"scope"`
	Branch Branch `json:"branch"`
	Detail string `json:"detail,omitempty"`
	Count  uint64 `json:"count"`
}

// CounterLayout builds the layout of a Counters block while a rule is
// compiled.
type CounterLayout struct {
	labels []CounterLabel
}

// Add appends a counted cell and returns its id (for Counters.Inc).
func (l *CounterLayout) Add(scope string, br Branch) int32 {
	return l.AddDetail(scope, br, "")
}

// AddDetail is Add for one of several cells of a branch.
func (l *CounterLayout) AddDetail(scope string, br Branch, detail string) int32 {
	l.labels = append(l.labels, CounterLabel{Scope: scope, Branch: br, Detail: detail})
	return int32(len(l.labels) - 1)
}

// AddPair appends two counted cells shown as one: id (a branch taken first
// in a call) and id+1 (taken after an earlier one), returning id.
func (l *CounterLayout) AddPair(scope string, br Branch, detail string) int32 {
	id := l.AddDetail(scope, br, detail)
	l.labels = append(l.labels, CounterLabel{Scope: scope, Branch: br, Detail: detail, hidden: true, into: id})
	return id
}

// Derive appends a derived cell (its terms set by SetTerms, as the cells
// it depends on are often added after it) and returns its id. A derived
// cell may refer to derived cells before it.
func (l *CounterLayout) Derive(scope string, br Branch) int32 {
	l.labels = append(l.labels, CounterLabel{Scope: scope, Branch: br, derived: true})
	return int32(len(l.labels) - 1)
}

// SetTerms sets a derived cell's value to the sum of plus minus the sum of
// minus.
func (l *CounterLayout) SetTerms(id int32, plus, minus []int32) {
	l.labels[id].plus = append([]int32(nil), plus...)
	l.labels[id].minus = append([]int32(nil), minus...)
}

// Len is the number of cells so far.
func (l *CounterLayout) Len() int { return len(l.labels) }

// Build makes the block for owner (the parsed rule; it may be nil for a
// router without rule). A nil layout makes an empty block.
func (l *CounterLayout) Build(owner any) *Counters {
	c := &Counters{owner: owner, since: time.Now()}
	if l != nil {
		c.labels = l.labels
	}
	c.cells = make([]atomic.Uint64, len(c.labels))
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
	if c == nil || prev == nil || c == prev || c.owner != prev.owner || len(c.labels) != len(prev.labels) {
		return c
	}
	for i := range c.labels {
		a, b := &c.labels[i], &prev.labels[i]
		if a.Scope != b.Scope || a.Branch != b.Branch || a.Detail != b.Detail || a.derived != b.derived || a.hidden != b.hidden ||
			a.into != b.into || !equalIDs(a.plus, b.plus) || !equalIDs(a.minus, b.minus) {
			return c
		}
	}
	return prev
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
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
// hidden cells added to the cell they belong to).
func (c *Counters) Values() []CounterValue {
	if c == nil {
		return nil
	}
	v := make([]uint64, len(c.cells))
	for i := range c.cells {
		v[i] = c.cells[i].Load()
	}
	for i, l := range c.labels {
		if !l.derived {
			continue
		}
		var plus, minus uint64
		for _, p := range l.plus {
			plus += v[p]
		}
		for _, m := range l.minus {
			minus += v[m]
		}
		if minus > plus {
			minus = plus
		}
		v[i] = plus - minus
	}
	shown := append([]uint64(nil), v...)
	for i, l := range c.labels {
		if l.hidden {
			shown[l.into] += v[i]
		}
	}
	out := make([]CounterValue, 0, len(c.labels))
	for i, l := range c.labels {
		if !l.hidden {
			out = append(out, CounterValue{Scope: l.Scope, Branch: l.Branch, Detail: l.Detail, Count: shown[i]})
		}
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
