package router

import (
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// Set is an immutable set of provider indexes within one Universe (one
// provider snapshot). Sets made by a Universe are interned: equal contents
// give the same *Set, so pointer equality is set equality, and every
// operation between interned sets is computed once and then looked up.
type Set struct {
	id    uint32 // 0 = transient (not interned, operations not memoised)
	count int
	words []uint64

	payload atomic.Value
}

// Len is the number of providers in the set.
func (s *Set) Len() int { return s.count }

// Empty reports whether the set has no member.
func (s *Set) Empty() bool { return s.count == 0 }

// Has reports whether provider index i is in the set.
func (s *Set) Has(i int) bool {
	w := i >> 6
	return i >= 0 && w < len(s.words) && s.words[w]&(1<<(uint(i)&63)) != 0
}

// ForEach calls f for each member in ascending (registry) order.
func (s *Set) ForEach(f func(i int)) {
	for w, word := range s.words {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			f(w<<6 + b)
			word &= word - 1
		}
	}
}

// AppendMembers appends the members in ascending order to dst.
func (s *Set) AppendMembers(dst []int) []int {
	s.ForEach(func(i int) { dst = append(dst, i) })
	return dst
}

// Interned reports whether the set belongs to its universe's intern table.
func (s *Set) Interned() bool { return s.id != 0 }

// Payload returns the value stored with StorePayload, or nil. Owners use it
// to cache what a set materialises to (for example a []Invoker), so that
// handing a routed set back to dubbo-go does not allocate.
func (s *Set) Payload() any { return s.payload.Load() }

// StorePayload attaches v to the set. Later stores replace earlier ones;
// all stores for one set must use the same concrete type.
func (s *Set) StorePayload(v any) { s.payload.Store(v) }

// Universe is the index space of one provider snapshot: provider i of the
// snapshot is member i. It interns sets and memoises And, Or and AndNot.
// It is safe for concurrent use; lookups are lock-free.
type Universe struct {
	n     int
	words int

	all, empty *Set

	mu      sync.Mutex // serialises writers of the tables below
	nextID  uint32
	maxSets int
	byHash  map[uint64][]*Set // intern table (writers only, under mu)
	ops     opTable           // memoised operations, lock-free reads
}

// DefaultMaxSets bounds how many distinct sets one universe interns. Beyond
// it, operations still work but produce transient sets (and allocate).
const DefaultMaxSets = 8192

// maxInternBytes bounds the memory of interned bitsets per universe.
const maxInternBytes = 64 << 20

// NewUniverse makes the universe of n providers.
func NewUniverse(n int) *Universe {
	if n < 0 {
		n = 0
	}
	u := &Universe{n: n, words: (n + 63) >> 6, byHash: map[uint64][]*Set{}}
	u.maxSets = DefaultMaxSets
	if u.words > 0 {
		if m := maxInternBytes / (u.words * 8); m < u.maxSets {
			u.maxSets = m
		}
	}
	u.ops.init(u.maxSets * 2)
	u.empty = u.intern(make([]uint64, u.words))
	full := make([]uint64, u.words)
	for i := 0; i < n; i++ {
		full[i>>6] |= 1 << (uint(i) & 63)
	}
	u.all = u.intern(full)
	return u
}

// Size is the number of providers in the universe.
func (u *Universe) Size() int { return u.n }

// All is the set of every provider.
func (u *Universe) All() *Set { return u.all }

// None is the empty set.
func (u *Universe) None() *Set { return u.empty }

// Interned is the number of distinct sets the universe holds.
func (u *Universe) Interned() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return int(u.nextID)
}

// Build makes the set of indexes i < Size() for which keep(i) is true. It is
// meant for compile time (it scans every provider).
func (u *Universe) Build(keep func(i int) bool) *Set {
	w := make([]uint64, u.words)
	for i := 0; i < u.n; i++ {
		if keep(i) {
			w[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return u.intern(w)
}

// Of makes the set of the given indexes (out-of-range indexes are ignored).
func (u *Universe) Of(idx ...int) *Set {
	w := make([]uint64, u.words)
	for _, i := range idx {
		if i >= 0 && i < u.n {
			w[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return u.intern(w)
}

const (
	opAnd uint64 = iota + 1
	opOr
	opAndNot
)

// And is a ∩ b.
func (u *Universe) And(a, b *Set) *Set {
	switch {
	case a == b:
		return a
	case a == u.all:
		return b
	case b == u.all:
		return a
	case a.count == 0:
		return a
	case b.count == 0:
		return b
	}
	if a.id > b.id { // commutative: one cache entry
		a, b = b, a
	}
	return u.op(opAnd, a, b)
}

// Or is a ∪ b.
func (u *Universe) Or(a, b *Set) *Set {
	switch {
	case a == b, b.count == 0:
		return a
	case a.count == 0:
		return b
	case a == u.all || b == u.all:
		return u.all
	}
	if a.id > b.id {
		a, b = b, a
	}
	return u.op(opOr, a, b)
}

// AndNot is a \ b.
func (u *Universe) AndNot(a, b *Set) *Set {
	switch {
	case a.count == 0 || b.count == 0:
		return a
	case a == b || b == u.all:
		return u.empty
	}
	return u.op(opAndNot, a, b)
}

func (u *Universe) op(op uint64, a, b *Set) *Set {
	if a.id != 0 && b.id != 0 {
		key := op<<56 | uint64(a.id)<<28 | uint64(b.id)
		if s := u.ops.get(key); s != nil {
			return s
		}
		s := u.intern(compute(op, a, b))
		if s.id != 0 {
			u.mu.Lock()
			u.ops.put(key, s)
			u.mu.Unlock()
		}
		return s
	}
	return u.intern(compute(op, a, b))
}

func compute(op uint64, a, b *Set) []uint64 {
	w := make([]uint64, len(a.words))
	for i := range w {
		switch op {
		case opAnd:
			w[i] = a.words[i] & b.words[i]
		case opOr:
			w[i] = a.words[i] | b.words[i]
		case opAndNot:
			w[i] = a.words[i] &^ b.words[i]
		}
	}
	return w
}

// intern returns the canonical set with these words (taking ownership of w).
func (u *Universe) intern(w []uint64) *Set {
	h := hashWords(w)
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, s := range u.byHash[h] {
		if slices.Equal(s.words, w) {
			return s
		}
	}
	s := &Set{words: w, count: popcount(w)}
	if int(u.nextID) < u.maxSets && u.nextID < 1<<28-1 {
		u.nextID++
		s.id = u.nextID
		u.byHash[h] = append(u.byHash[h], s)
	}
	return s
}

func popcount(w []uint64) int {
	c := 0
	for _, x := range w {
		c += bits.OnesCount64(x)
	}
	return c
}

func hashWords(w []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, x := range w {
		h ^= x
		h *= 1099511628211
		h ^= h >> 29
	}
	return h
}

// opTable is an insert-only open-addressing hash table from operation keys to
// sets that grows by doubling. Readers never lock: they load the current
// table with one atomic read, and within a table a slot's value is published
// before its key, so a reader that sees the key sees the value. Writers hold
// Universe.mu; growing copies the entries into a table twice the size and
// publishes it with one atomic store (readers of the old table still get
// correct, if possibly stale-miss, answers). Starting small keeps the cost
// of a universe with few distinct sets (most of them) to a few kilobytes.
type opTable struct {
	cur   atomic.Pointer[opSlots]
	limit int // most entries ever kept
}

type opSlots struct {
	mask uint64
	keys []atomic.Uint64
	vals []atomic.Pointer[Set]
	used int
}

const opTableInitialSlots = 64

func newOpSlots(size int) *opSlots {
	return &opSlots{mask: uint64(size - 1), keys: make([]atomic.Uint64, size), vals: make([]atomic.Pointer[Set], size)}
}

func (t *opTable) init(limit int) {
	t.limit = limit
	t.cur.Store(newOpSlots(opTableInitialSlots))
}

func mix(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	return k
}

func (t *opTable) get(key uint64) *Set {
	sl := t.cur.Load()
	for i := mix(key) & sl.mask; ; i = (i + 1) & sl.mask {
		k := sl.keys[i].Load()
		if k == key {
			return sl.vals[i].Load()
		}
		if k == 0 {
			return nil
		}
	}
}

// put adds an entry; callers hold Universe.mu.
func (t *opTable) put(key uint64, s *Set) {
	sl := t.cur.Load()
	if sl.used >= t.limit {
		return
	}
	if (sl.used+1)*2 > len(sl.keys) {
		grown := newOpSlots(len(sl.keys) * 2)
		for i := range sl.keys {
			if k := sl.keys[i].Load(); k != 0 {
				grown.insert(k, sl.vals[i].Load())
			}
		}
		t.cur.Store(grown)
		sl = grown
	}
	sl.insert(key, s)
}

func (sl *opSlots) insert(key uint64, s *Set) {
	for i := mix(key) & sl.mask; ; i = (i + 1) & sl.mask {
		k := sl.keys[i].Load()
		if k == key {
			return
		}
		if k == 0 {
			sl.vals[i].Store(s)
			sl.keys[i].Store(key)
			sl.used++
			return
		}
	}
}
