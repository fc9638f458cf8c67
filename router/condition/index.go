package condition

import (
	"math/bits"
	"slices"
	"strconv"

	"github.com/dubboroute/dubboroute/router"
)

// ProviderIndex groups the providers of one snapshot by their value of each
// key a then-part names, as Compile needs them. Evaluating a then-part
// provider by provider costs O(conditions × providers) map lookups on
// scattered URL maps (and, for port and address, a string allocation per
// provider and condition), which stops being linear in practice once the
// provider maps no longer fit in the CPU cache. Instead each key is read
// once, value → providers, and a pattern is evaluated once per distinct
// value (an exact pattern is a single lookup).
//
// Rules compiled against the same snapshot can share one index (see
// CompileOptions.Index) so that a key they have in common is read once. An
// index is filled lazily by the Compile calls that use it and is not safe
// for concurrent use; it holds nothing consumer-specific.
type ProviderIndex struct {
	u         *router.Universe
	providers []*router.URL // as given, for the same-snapshot check
	n         int           // members that can have a provider
	words     int           // words of a set of u

	live []uint64             // members with a non-nil provider
	keys map[string]*keyIndex // lazily, per then-part key

	// prev and prevPos, when set, carry the keys of the index of the
	// previous snapshot: providers[i] is prev.providers[prevPos[i]] when
	// prevPos[i] >= 0, so its value is taken from prev without reading the
	// URL again.
	prev    *ProviderIndex
	prevPos []int32

	// addr, when set, may give the address (host:port) text of a member
	// (see UseAddresses).
	addr func(i int) string
}

// UseAddresses offers the index the address of its members as text the
// caller already holds (addr(i) for providers[i], "" for none; dubbo-go's
// URL.Location): when the index reads a provider's key address, a text
// equal to it is kept instead of a new string, so an index kept between
// snapshots does not hold a copy of every provider's address. addr is
// called only for providers whose URL the index reads, and each text is
// checked (URL.IsAddress); a wrong or missing one is read from the URL as
// usual. The index keeps addr until UseAddresses(nil).
func (x *ProviderIndex) UseAddresses(addr func(i int) string) { x.addr = addr }

// NewProviderIndex makes an empty index over a snapshot: providers[i] is
// member i of u, as in Compile.
func NewProviderIndex(u *router.Universe, providers []*router.URL) *ProviderIndex {
	x := &ProviderIndex{u: u, providers: providers, n: min(u.Size(), len(providers)), words: (u.Size() + 63) >> 6}
	x.live = make([]uint64, x.words)
	for i, p := range providers[:x.n] {
		if p != nil {
			x.live[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	return x
}

// NewProviderIndexFrom is NewProviderIndex for a snapshot that shares most
// providers with the one prev was made for: prevPos[i] is the member of
// prev's snapshot holding the same *router.URL as providers[i], or -1 for a
// provider prev has not seen. A key prev indexed is then built from prev's
// values, reading only the new providers' URLs (URLs are immutable after
// parse, so an unchanged pointer has unchanged values). prev may be nil;
// a prevPos of the wrong length is ignored. Only the keys the previous
// Compile calls asked for are carried over, and the new index does not keep
// prev once the keys are built.
func NewProviderIndexFrom(u *router.Universe, providers []*router.URL, prev *ProviderIndex, prevPos []int32) *ProviderIndex {
	x := NewProviderIndex(u, providers)
	if prev == nil || len(prevPos) < x.n || len(prev.keys) == 0 {
		return x
	}
	x.prev, x.prevPos = prev, prevPos[:x.n]
	for key, ki := range prev.keys {
		if ki.used {
			x.key(key).used = false
		}
	}
	x.prev, x.prevPos = nil, nil
	return x
}

// indexes reports whether x was made for this snapshot.
func (x *ProviderIndex) indexes(u *router.Universe, providers []*router.URL) bool {
	return x.u == u && len(x.providers) == len(providers) && (len(providers) == 0 || &x.providers[0] == &providers[0])
}

// keyIndex groups the providers by their value of one key: the members with
// value values[v] are members[start[v]:start[v+1]], in ascending order.
type keyIndex struct {
	values  []string
	byValue map[string]int32
	start   []int32
	members []int32
	present []uint64 // members that have the key
	ids     []int32  // value of each member (-1: key absent or no provider)
	used    bool     // asked for by a Compile (not only carried over)
}

// key returns the index of one key, building it with one pass over the
// providers (URL.Get, as matchValues reads them) the first time.
func (x *ProviderIndex) key(key string) *keyIndex {
	if ki := x.keys[key]; ki != nil {
		ki.used = true
		if ki.byValue == nil { // trimmed
			ki.regroup(x.words)
		}
		return ki
	}
	if x.keys == nil {
		x.keys = map[string]*keyIndex{}
	}
	ki := &keyIndex{byValue: map[string]int32{}, present: make([]uint64, x.words), ids: make([]int32, x.n), used: true}
	ids := ki.ids
	var counts []int32
	// Values carried over from the previous snapshot's index: old value
	// id -> new value id (-1: not seen yet).
	var old *keyIndex
	var remap []int32
	if x.prev != nil {
		if old = x.prev.keys[key]; old != nil {
			remap = make([]int32, len(old.values))
			for i := range remap {
				remap[i] = -1
			}
		}
	}
	// Get formats the port for every provider; the handful of distinct
	// ports are formatted once instead.
	var ports map[int]string
	for i, p := range x.providers[:x.n] {
		ids[i] = -1
		if p == nil {
			continue
		}
		if old != nil {
			if j := x.prevPos[i]; j >= 0 && int(j) < len(old.ids) {
				oid := old.ids[j]
				if oid < 0 {
					continue
				}
				id := remap[oid]
				if id < 0 {
					v := old.values[oid]
					var seen bool
					if id, seen = ki.byValue[v]; !seen {
						id = int32(len(ki.values))
						ki.byValue[v] = id
						ki.values = append(ki.values, v)
						counts = append(counts, 0)
					}
					remap[oid] = id
				}
				ids[i] = id
				counts[id]++
				ki.present[i>>6] |= 1 << (uint(i) & 63)
				continue
			}
		}
		var v string
		var ok bool
		if key == "port" && p.Port > 0 {
			v, ok = ports[p.Port]
			if !ok {
				v, ok = p.Get(key)
				if ports == nil {
					ports = map[int]string{}
				}
				ports[p.Port] = v
			}
		} else if a := x.offered(key, i, p); a != "" {
			v, ok = a, true
		} else {
			v, ok = p.Get(key)
		}
		if !ok {
			continue
		}
		id, seen := ki.byValue[v]
		if !seen {
			id = int32(len(ki.values))
			ki.byValue[v] = id
			ki.values = append(ki.values, v)
			counts = append(counts, 0)
		}
		ids[i] = id
		counts[id]++
		ki.present[i>>6] |= 1 << (uint(i) & 63)
	}
	ki.group(counts)
	x.keys[key] = ki
	return ki
}

// offered is the address text offered for member i (see UseAddresses) if
// key is address and the text is p's address, else "".
func (x *ProviderIndex) offered(key string, i int, p *router.URL) string {
	if key != "address" || x.addr == nil {
		return ""
	}
	if a := x.addr(i); a != "" && p.IsAddress(a) {
		return a
	}
	return ""
}

// Trim drops what only Compile reads, keeping each key's values by member:
// what NewProviderIndexFrom carries over to the next snapshot's index (a
// key like address has a value per provider, so the groups and the lookup
// map would double what a chain keeps between rebuilds). A trimmed key is
// regrouped, without reading a URL, if a Compile asks for it again.
func (x *ProviderIndex) Trim() {
	for _, ki := range x.keys {
		ki.byValue, ki.start, ki.members, ki.present = nil, nil, nil, nil
		ki.ids = slices.Clip(ki.ids)
		ki.values = slices.Clip(ki.values)
	}
}

// regroup rebuilds a trimmed key from its values and ids.
func (ki *keyIndex) regroup(words int) {
	ki.byValue = make(map[string]int32, len(ki.values))
	for v, s := range ki.values {
		ki.byValue[s] = int32(v)
	}
	ki.present = make([]uint64, words)
	counts := make([]int32, len(ki.values))
	for i, id := range ki.ids {
		if id >= 0 {
			counts[id]++
			ki.present[i>>6] |= 1 << (uint(i) & 63)
		}
	}
	ki.group(counts)
}

// group sorts the members by value (counts[v]: members with value v; the
// slice is reused).
func (ki *keyIndex) group(counts []int32) {
	// Counting sort of the members by value: one flat slice instead of one
	// slice per value (a key like address has a value per provider).
	ki.start = make([]int32, len(ki.values)+1)
	for v, c := range counts {
		ki.start[v+1] = ki.start[v] + c
	}
	ki.members = make([]int32, ki.start[len(ki.values)])
	next := counts // reused as the fill position of each value
	copy(next, ki.start[:len(ki.values)])
	for i, id := range ki.ids {
		if id >= 0 {
			ki.members[next[id]] = int32(i)
			next[id]++
		}
	}
}

// thenIndex evaluates the then-parts of one Compile over a ProviderIndex.
// Sets are combined as word slices and interned once per distinct
// then-part.
//
// The result is, member for member, what matchValues over router.URL.Get
// gives for each provider: a term matches the providers that have the key
// (Get ok), whose value matches no "!=" pattern and, when there are "="
// patterns, matches one of them.
type thenIndex struct {
	*ProviderIndex

	// Memos for this Compile only: $x patterns resolve against its consumer.
	scanned  map[string][]uint64 // key+pattern -> members, for patterns tested value by value
	parts    map[string]*router.Set
	members  []int    // scratch for interning
	partKey  []byte   // scratch for the part memo key
	patKey   []byte   // scratch for the pattern memo key
	tmpWords []uint64 // scratch for "!=" sets
}

func (ki *keyIndex) orValue(dst []uint64, v int32) {
	for _, i := range ki.members[ki.start[v]:ki.start[v+1]] {
		dst[i>>6] |= 1 << (uint(i) & 63)
	}
}

func orWords(dst, src []uint64) {
	for i := range dst {
		dst[i] |= src[i]
	}
}

// orPattern adds to dst the providers whose value of key matches p (as
// matchValues tests one then-part pattern: when is false).
func (x *thenIndex) orPattern(dst []uint64, key string, ki *keyIndex, p *pattern) {
	if !p.isRange {
		switch p.glob.kind {
		case globAny:
			orWords(dst, ki.present)
			return
		case globExact, globEmpty:
			// globExact never has an empty a; globEmpty matches only "".
			if v, ok := ki.byValue[p.glob.a]; ok {
				ki.orValue(dst, v)
			}
			return
		}
	}
	// Globs with a "*" and ranges: test each distinct value once. The same
	// pattern on the same key recurs across conditions (e.g. address=*:20880),
	// so the set is kept for the rest of the Compile. p.raw identifies the
	// pattern: a $ref resolves against the one consumer of this Compile.
	x.patKey = appendField(append(x.patKey[:0], key...), p.raw)
	if w, ok := x.scanned[string(x.patKey)]; ok {
		orWords(dst, w)
		return
	}
	w := make([]uint64, x.words)
	for v, s := range ki.values {
		if p.match(s, false) {
			ki.orValue(w, int32(v))
		}
	}
	if x.scanned == nil {
		x.scanned = map[string][]uint64{}
	}
	x.scanned[string(x.patKey)] = w
	orWords(dst, w)
}

// appendField appends a length-prefixed field, so that concatenated fields
// cannot be confused whatever bytes they hold.
func appendField(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

type thenTerm struct {
	kind            keyKind
	key             string
	match, mismatch []pattern
}

// part is the interned set of providers matching every term (thenSet's
// non-empty case).
func (x *thenIndex) part(terms []thenTerm) *router.Set {
	x.partKey = x.partKey[:0]
	for i := range terms {
		t := &terms[i]
		x.partKey = appendField(x.partKey, t.key)
		x.partKey = strconv.AppendInt(x.partKey, int64(len(t.match)), 10)
		for j := range t.match {
			x.partKey = appendField(x.partKey, t.match[j].raw)
		}
		x.partKey = strconv.AppendInt(x.partKey, int64(len(t.mismatch)), 10)
		for j := range t.mismatch {
			x.partKey = appendField(x.partKey, t.mismatch[j].raw)
		}
	}
	if s, ok := x.parts[string(x.partKey)]; ok {
		return s
	}
	memo := string(x.partKey)
	s := x.computePart(terms)
	if x.parts == nil {
		x.parts = map[string]*router.Set{}
	}
	x.parts[memo] = s
	return s
}

func (x *thenIndex) computePart(terms []thenTerm) *router.Set {
	acc := make([]uint64, x.words)
	copy(acc, x.live)
	for i := range terms {
		t := &terms[i]
		switch t.kind {
		case keyArgument, keyAttachment, keySentinel:
			// No invocation in a then-part: Java's matcher fails and yields
			// the sentinel, the same value for every provider.
			if !matchValues(NotFoundValue, true, t.match, t.mismatch, false) {
				return x.u.None()
			}
			continue
		}
		if len(t.match) == 0 && len(t.mismatch) == 0 {
			return x.u.None() // matchValues: no pattern matches nothing
		}
		ki := x.key(t.key)
		m := make([]uint64, x.words)
		if len(t.match) == 0 {
			copy(m, ki.present)
		}
		for j := range t.match {
			x.orPattern(m, t.key, ki, &t.match[j])
		}
		if len(t.mismatch) > 0 {
			if x.tmpWords == nil {
				x.tmpWords = make([]uint64, x.words)
			}
			clear(x.tmpWords)
			for j := range t.mismatch {
				x.orPattern(x.tmpWords, t.key, ki, &t.mismatch[j])
			}
			for w := range m {
				m[w] &^= x.tmpWords[w]
			}
		}
		for w := range acc {
			acc[w] &= m[w]
		}
	}
	x.members = x.members[:0]
	for w, word := range acc {
		for word != 0 {
			x.members = append(x.members, w<<6+bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
	return x.u.Of(x.members...)
}
