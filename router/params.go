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
	// x holds the map (enc == "") or the table enc refers to (x.tab; nil
	// x or tab: enc holds literals only). One pointer for both (and for
	// URL.Raw) keeps a URL at 112 bytes.
	x   *paramsX
	enc string // packed entries, sorted by key (see ParamTable.Pack)
}

type paramsX struct {
	m   map[string]string
	tab *ParamTable
	raw string // URL.Raw of a parsed URL
}

// ParamsOf wraps m (not copied; nil is empty).
func ParamsOf(m map[string]string) Params {
	if m == nil {
		return Params{}
	}
	return Params{x: &paramsX{m: m}}
}

// mp is the map of a map-backed Params (nil for an empty or packed one).
func (p Params) mp() map[string]string {
	if p.enc != "" || p.x == nil {
		return nil
	}
	return p.x.m
}

// tab is the table of a packed Params.
func (p Params) tab() *ParamTable {
	if p.x == nil {
		return nil
	}
	return p.x.tab
}

// Get returns a parameter and whether it is present.
func (p Params) Get(key string) (string, bool) {
	if p.enc == "" {
		v, ok := p.mp()[key]
		return v, ok
	}
	c := p.cursor()
	for {
		k, ok := c.key()
		if !ok || k > key {
			return "", false
		}
		if k == key {
			return c.value(), true
		}
		c.skip()
	}
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
	if p.enc == "" {
		return len(p.mp())
	}
	n := 0
	for c := p.cursor(); ; n++ {
		if _, ok := c.key(); !ok {
			return n
		}
		c.skip()
	}
}

// All yields the parameters in key order.
func (p Params) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if p.enc == "" {
			m := p.mp()
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if !yield(k, m[k]) {
					return
				}
			}
			return
		}
		for c := p.cursor(); ; {
			k, ok := c.key()
			if !ok || !yield(k, c.value()) {
				return
			}
		}
	}
}

// Map returns the parameters as a new map.
func (p Params) Map() map[string]string {
	if p.enc == "" {
		return maps.Clone(p.mp())
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
	if p.enc != "" || p.x == nil {
		return p
	}
	return ParamsOf(maps.Clone(p.x.m))
}

// Set sets a parameter (a packed Params becomes a map first).
func (p *Params) Set(key, value string) {
	p.unpack()
	if p.x == nil {
		p.x = &paramsX{}
	}
	if p.x.m == nil {
		p.x.m = map[string]string{}
	}
	p.x.m[key] = value
}

// Delete removes a parameter (a packed Params becomes a map first).
func (p *Params) Delete(key string) {
	if !p.Has(key) {
		return
	}
	p.unpack()
	delete(p.x.m, key)
}

// String renders the parameters as k=v&k2=v2, in key order (as URL.String
// writes them).
func (p Params) String() string {
	var b strings.Builder
	for k, v := range p.All() {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
	return b.String()
}

// Packed reports whether p is in the packed form.
func (p Params) Packed() bool { return p.enc != "" }

func (p *Params) unpack() {
	if p.enc != "" {
		*p = ParamsOf(p.Map())
	}
}

// The packed encoding (see ParamTable.Pack) is a varint h, then:
//   - h = 0: entries key, value, each a string reference;
//   - h > 0: the value references of the keys of shape h-1, in order. A
//     shape is a table string holding the varint ids of a sorted key list:
//     a fleet's URLs share a handful of key sets, so most of them store
//     values only.
//
// A string reference is a varint x: x even, table string x/2; x odd, the
// x/2 bytes that follow.

// cursor walks the entries of a packed Params.
type cursor struct {
	cs    chunkList
	enc   string
	i     int    // next reference in enc
	shape string // key ids, when shaped
	j     int    // next key id in shape
}

func (p Params) cursor() cursor {
	c := cursor{cs: p.tab().strings(), enc: p.enc}
	var h uint64
	h, c.i = uvarint(p.enc, 0)
	if h > 0 {
		c.shape = c.cs.at(h - 1)
		if c.shape == "" {
			c.i = len(c.enc) // not produced by Pack: no entries
		}
	}
	return c
}

// key returns the next entry's key (false after the last entry).
func (c *cursor) key() (string, bool) {
	if c.shape != "" {
		if c.j >= len(c.shape) || c.i >= len(c.enc) {
			return "", false
		}
		var id uint64
		id, c.j = uvarint(c.shape, c.j)
		return c.cs.at(id), true
	}
	if c.i >= len(c.enc) {
		return "", false
	}
	return c.ref(), true
}

// value returns the entry's value, after key.
func (c *cursor) value() string { return c.ref() }

// skip passes over the entry's value, after key.
func (c *cursor) skip() {
	var x uint64
	if x, c.i = uvarint(c.enc, c.i); x&1 == 1 {
		_, c.i = literal(c.enc, c.i, x)
	}
}

func (c *cursor) ref() string {
	var x uint64
	if x, c.i = uvarint(c.enc, c.i); x&1 == 0 {
		return c.cs.at(x >> 1)
	}
	var s string
	s, c.i = literal(c.enc, c.i, x)
	return s
}

// uvarint decodes the varint at enc[i] (len(enc) when it is not one).
func uvarint(enc string, i int) (uint64, int) {
	if i < len(enc) && enc[i] < 0x80 {
		return uint64(enc[i]), i + 1
	}
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if i >= len(enc) || shift > 63 {
			return 1, len(enc) // not produced by Pack: an empty literal at the end
		}
		b := enc[i]
		i++
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, i
		}
	}
}

// literal is the literal string of reference x starting at enc[i], and the
// offset after it.
func literal(enc string, i int, x uint64) (string, int) {
	if x>>1 > uint64(len(enc)-i) {
		return "", len(enc)
	}
	end := i + int(x>>1)
	return enc[i:end], end
}

// ParamTable interns the parameter strings of the URLs packed with it, so
// that a key or value common to many URLs is stored once. Strings are
// interned up to a budget: at most MaxTableStrings in all (key sets,
// "shapes", count too: at most MaxShapes of them) and MaxValuesPerKey
// distinct values per key; past it (a pid or timestamp
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
	shapes int // shapes interned
	buf    []byte
	shape  []byte
	// chunks of the interned strings by id; readers load the slice
	// without the lock (an id is only read after its Params, packed after
	// the string was written, was handed over).
	chunks atomic.Pointer[chunkList]
	x      paramsX // what a Params packed over t points to
}

// Table budgets (see ParamTable).
const (
	MaxTableStrings = 4096
	MaxValuesPerKey = 32
	MaxShapes       = 64
	tableChunk      = 256
)

// NewParamTable makes an empty table.
func NewParamTable() *ParamTable {
	t := &ParamTable{ids: map[string]uint32{}, perKey: map[uint32]int{}}
	t.x.tab = t
	return t
}

// chunkList is the table's strings by id, as loaded by one read.
type chunkList []*[tableChunk]string

func (t *ParamTable) strings() chunkList {
	if t == nil {
		return nil
	}
	if p := t.chunks.Load(); p != nil {
		return *p
	}
	return nil
}

// at is string id ("" for an id the table does not have: not produced by
// Pack).
func (cs chunkList) at(id uint64) string {
	if id/tableChunk >= uint64(len(cs)) {
		return ""
	}
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
		buf := []byte{0}
		for _, kv := range kvs {
			buf = appendLiteral(buf, kv.Key)
			buf = appendLiteral(buf, kv.Value)
		}
		return Params{enc: string(buf)}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// The shape: the key ids, if every key is interned.
	shape := t.shape[:0]
	for _, kv := range kvs {
		kid, ok := t.intern(kv.Key)
		if !ok {
			shape = nil
			break
		}
		shape = binary.AppendUvarint(shape, uint64(kid))
	}
	sid, shaped := uint32(0), false
	if shape != nil {
		t.shape = shape
		if sid, shaped = t.ids[string(shape)]; !shaped && t.shapes < MaxShapes {
			if sid, shaped = t.intern(string(shape)); shaped {
				t.shapes++
			}
		}
	}
	buf := t.buf[:0]
	if shaped {
		buf = binary.AppendUvarint(buf, uint64(sid)+1)
	} else {
		buf = append(buf, 0)
	}
	for _, kv := range kvs {
		kid, ok := t.ids[kv.Key]
		if !shaped {
			if ok {
				buf = binary.AppendUvarint(buf, uint64(kid)<<1)
			} else {
				buf = appendLiteral(buf, kv.Key)
			}
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
	return Params{x: &t.x, enc: string(buf)}
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
	cs := t.strings()
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
