package router

import (
	"encoding/binary"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Params are the parameters of one URL. The zero value is empty and ready
// to use.
//
// A Params is either a map (ParamsOf, or the first Set) or packed: an
// immutable, sorted byte encoding that refers to the strings of a
// ParamTable (ParamTable.Pack). A provider fleet's URLs share most of their
// keys and values, so a packed Params costs a few bytes per parameter
// instead of a map's ~60. Reading never allocates; Set and Delete turn a
// packed Params into a map first (a copy: other holders of the packed value
// are not affected). Copying a map-backed Params shares its map, as copying
// a map does.
type Params struct {
	m   map[string]string
	tab *ParamTable // packed: the table enc refers to (nil: literals only)
	enc string      // packed entries, sorted by key (see ParamTable.Pack)
}

// ParamsOf wraps m (not copied; nil is empty).
func ParamsOf(m map[string]string) Params { return Params{m: m} }

// Get returns a parameter and whether it is present.
func (p Params) Get(key string) (string, bool) {
	if p.m != nil || p.enc == "" {
		v, ok := p.m[key]
		return v, ok
	}
	for i := 0; i < len(p.enc); {
		var k, v string
		k, i = p.ref(i)
		if k > key {
			break
		}
		v, i = p.ref(i)
		if k == key {
			return v, true
		}
	}
	return "", false
}

// Value returns a parameter, "" when absent.
func (p Params) Value(key string) string {
	v, _ := p.Get(key)
	return v
}

// Has reports whether the parameter is present.
func (p Params) Has(key string) bool {
	_, ok := p.Get(key)
	return ok
}

// Len is the number of parameters.
func (p Params) Len() int {
	if p.m != nil || p.enc == "" {
		return len(p.m)
	}
	n := 0
	for i := 0; i < len(p.enc); n++ {
		_, i = p.ref(i)
		_, i = p.ref(i)
	}
	return n
}

// All yields the parameters in key order.
func (p Params) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if p.m != nil || p.enc == "" {
			for _, k := range slices.Sorted(maps.Keys(p.m)) {
				if !yield(k, p.m[k]) {
					return
				}
			}
			return
		}
		for i := 0; i < len(p.enc); {
			var k, v string
			k, i = p.ref(i)
			v, i = p.ref(i)
			if !yield(k, v) {
				return
			}
		}
	}
}

// Map returns the parameters as a new map.
func (p Params) Map() map[string]string {
	if p.m != nil || p.enc == "" {
		return maps.Clone(p.m)
	}
	out := make(map[string]string, p.Len())
	for k, v := range p.All() {
		out[k] = v
	}
	return out
}

// Clone returns Params that do not share a map with p (a packed Params is
// immutable and is returned as it is).
func (p Params) Clone() Params {
	if p.m == nil {
		return p
	}
	return Params{m: maps.Clone(p.m)}
}

// Set sets a parameter (a packed Params becomes a map first).
func (p *Params) Set(key, value string) {
	p.unpack()
	if p.m == nil {
		p.m = map[string]string{}
	}
	p.m[key] = value
}

// Delete removes a parameter (a packed Params becomes a map first).
func (p *Params) Delete(key string) {
	if !p.Has(key) {
		return
	}
	p.unpack()
	delete(p.m, key)
}

// Packed reports whether p is in the packed form.
func (p Params) Packed() bool { return p.m == nil && p.enc != "" }

func (p *Params) unpack() {
	if p.m == nil && p.enc != "" {
		*p = Params{m: p.Map()}
	}
}

// ref decodes the string reference at enc[i] and returns it with the
// offset after it.
func (p Params) ref(i int) (string, int) {
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if i >= len(p.enc) || shift > 63 {
			return "", len(p.enc) // not produced by Pack
		}
		b := p.enc[i]
		i++
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			break
		}
	}
	if x&1 == 0 {
		return p.tab.str(uint32(x >> 1)), i
	}
	if x>>1 > uint64(len(p.enc)-i) {
		return "", len(p.enc)
	}
	end := i + int(x>>1)
	return p.enc[i:end], end
}

// ParamTable interns the parameter strings of the URLs packed with it, so
// that a key or value common to many URLs is stored once. Strings are
// interned up to a budget: at most MaxTableStrings in all and
// MaxValuesPerKey distinct values per key; past it (a pid or timestamp
// differs for every provider) values are stored in the packed URL itself,
// which for short unique values is smaller than an interned entry. A table
// only grows, within that budget, so a long-lived one (a chain's, shared by
// all its snapshots) keeps every Params packed with it valid. It is safe for
// concurrent use.
type ParamTable struct {
	mu     sync.Mutex
	ids    map[string]uint32 // interned string -> id
	perKey map[uint32]int    // key id -> distinct values interned for it
	n      uint32
	buf    []byte
	// chunks of the interned strings by id; readers load the slice
	// without the lock (an id is only read after its Params, packed after
	// the string was written, was handed over).
	chunks atomic.Pointer[[]*[tableChunk]string]
}

// Table budgets (see ParamTable).
const (
	MaxTableStrings = 4096
	MaxValuesPerKey = 64
	tableChunk      = 256
)

// NewParamTable makes an empty table.
func NewParamTable() *ParamTable {
	return &ParamTable{ids: map[string]uint32{}, perKey: map[uint32]int{}}
}

func (t *ParamTable) str(id uint32) string {
	if t == nil {
		return ""
	}
	cs := *t.chunks.Load()
	return cs[id/tableChunk][id%tableChunk]
}

// Strings is the number of strings interned.
func (t *ParamTable) Strings() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return int(t.n)
}

// KV is one parameter.
type KV struct{ Key, Value string }

// Pack encodes kvs (sorted in place by key; keys must be distinct) as a
// packed Params over t. A nil t stores every string in the Params itself.
// The result holds one allocation: its encoding.
func (t *ParamTable) Pack(kvs []KV) Params {
	if len(kvs) == 0 {
		return Params{}
	}
	slices.SortFunc(kvs, func(a, b KV) int { return strings.Compare(a.Key, b.Key) })
	if t == nil {
		var buf []byte
		for _, kv := range kvs {
			buf = appendLiteral(buf, kv.Key)
			buf = appendLiteral(buf, kv.Value)
		}
		return Params{enc: string(buf)}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := t.buf[:0]
	for _, kv := range kvs {
		kid, ok := t.intern(kv.Key)
		if ok {
			buf = binary.AppendUvarint(buf, uint64(kid)<<1)
		} else {
			buf = appendLiteral(buf, kv.Key)
		}
		vid, vok := uint32(0), false
		if ok {
			if vid, vok = t.ids[kv.Value]; !vok && t.perKey[kid] < MaxValuesPerKey {
				if vid, vok = t.intern(kv.Value); vok {
					t.perKey[kid]++
				}
			}
		}
		if vok {
			buf = binary.AppendUvarint(buf, uint64(vid)<<1)
		} else {
			buf = appendLiteral(buf, kv.Value)
		}
	}
	t.buf = buf
	return Params{tab: t, enc: string(buf)}
}

// intern returns s's id, adding it if the budget allows; t.mu is held.
func (t *ParamTable) intern(s string) (uint32, bool) {
	if id, ok := t.ids[s]; ok {
		return id, true
	}
	if t.n >= MaxTableStrings {
		return 0, false
	}
	id := t.n
	var cs []*[tableChunk]string
	if p := t.chunks.Load(); p != nil {
		cs = *p
	}
	if int(id/tableChunk) == len(cs) {
		cs = append(slices.Clip(cs), new([tableChunk]string))
		t.chunks.Store(&cs)
	}
	cs[id/tableChunk][id%tableChunk] = s
	t.ids[s] = id
	t.n++
	return id, true
}

func appendLiteral(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s))<<1|1)
	return append(buf, s...)
}
