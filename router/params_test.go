package router

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// randomParams is a provider-like parameter map: shared keys and values,
// a unique pid and timestamp, sometimes odd keys, empty values and bytes a
// varint could be confused with.
func randomParams(r *rand.Rand, i int) map[string]string {
	m := map[string]string{
		"application": "demo-provider",
		"interface":   "org.example.BookFacade",
		"methods":     "queryAll,queryByName",
		"pid":         fmt.Sprint(1000 + i),
		"timestamp":   fmt.Sprint(1700000000000 + int64(i)*7919),
		"region":      []string{"hangzhou", "beijing", "shanghai"}[r.IntN(3)],
	}
	if r.IntN(2) == 0 {
		m["dubbo.tag"] = "gray"
	}
	if r.IntN(5) == 0 {
		m["empty"] = ""
	}
	if r.IntN(7) == 0 {
		m[string([]byte{0x80, 0xff, 'k'})] = string([]byte{0x81, 0x01})
	}
	if r.IntN(9) == 0 {
		m[fmt.Sprintf("k%d", r.IntN(200))] = string(make([]byte, r.IntN(300)))
	}
	return m
}

func kvsOf(m map[string]string) []KV {
	var kvs []KV
	for k, v := range m {
		kvs = append(kvs, KV{k, v})
	}
	return kvs
}

// checkSame fails unless p reads exactly as m.
func checkSame(t *testing.T, p Params, m map[string]string) {
	t.Helper()
	if p.Len() != len(m) {
		t.Fatalf("Len %d, want %d", p.Len(), len(m))
	}
	var keys []string
	for k, v := range p.All() {
		keys = append(keys, k)
		if w, ok := m[k]; !ok || w != v {
			t.Fatalf("All yields %q=%q, map has %q (%v)", k, v, w, ok)
		}
	}
	if !slices.IsSorted(keys) || len(keys) != len(m) {
		t.Fatalf("All yields keys %q: want each of the %d keys once, in order", keys, len(m))
	}
	for k, v := range m {
		if got, ok := p.Get(k); !ok || got != v {
			t.Fatalf("Get(%q) = %q, %v; want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"", "a", "zzz", "pi", "pidx", "region2"} {
		if _, in := m[k]; in {
			continue
		}
		if v, ok := p.Get(k); ok || v != "" {
			t.Fatalf("Get(%q) = %q, %v for an absent key", k, v, ok)
		}
	}
	if !maps.Equal(p.Map(), m) {
		t.Fatalf("Map %v, want %v", p.Map(), m)
	}
}

// TestParamsPackedReadsAsMap packs thousands of provider-like parameter
// sets over one table (past its per-key and total budgets) and without a
// table, and checks every read against the map they came from.
func TestParamsPackedReadsAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tab := NewParamTable()
	var packed []Params
	var want []map[string]string
	for i := 0; i < 3000; i++ {
		m := randomParams(r, i)
		want = append(want, m)
		p := tab.Pack(kvsOf(m))
		if !p.Packed() && len(m) > 0 {
			t.Fatal("Pack returned a map")
		}
		packed = append(packed, p)
		checkSame(t, (*ParamTable)(nil).Pack(kvsOf(m)), m)
		checkSame(t, ParamsOf(maps.Clone(m)), m)
	}
	// Earlier Params stay valid while the table grows.
	for i, p := range packed {
		checkSame(t, p, want[i])
	}
	if n := tab.Strings(); n > MaxTableStrings || n < 20 {
		t.Fatalf("table holds %d strings", n)
	}
	// pid and timestamp stop being interned at the per-key budget: the
	// table stays far below one entry per provider.
	if n := tab.Strings(); n > 1000 {
		t.Fatalf("table holds %d strings for 3,000 providers", n)
	}
}

// TestParamsSetCopiesPacked: Set and Delete on a copy of a packed Params
// leave the original (and the table) as they were.
func TestParamsSetCopiesPacked(t *testing.T) {
	tab := NewParamTable()
	m := map[string]string{"a": "1", "b": "2", "c": "3"}
	p := tab.Pack(kvsOf(m))
	q := p
	q.Set("b", "20")
	q.Delete("c")
	q.Delete("absent")
	checkSame(t, p, m)
	checkSame(t, q, map[string]string{"a": "1", "b": "20"})
	if q.Packed() {
		t.Fatal("a changed Params is still packed")
	}
	c := q.Clone()
	c.Set("a", "x")
	if q.Value("a") != "1" {
		t.Fatal("Clone shares its map")
	}
	var z Params
	if z.Len() != 0 || z.Has("a") {
		t.Fatal("zero Params not empty")
	}
	z.Set("k", "v")
	checkSame(t, z, map[string]string{"k": "v"})
}

// TestParamsConcurrentPackAndRead packs on several goroutines while others
// read what was packed before (run with -race).
func TestParamsConcurrentPackAndRead(t *testing.T) {
	tab := NewParamTable()
	r := rand.New(rand.NewPCG(3, 4))
	m0 := randomParams(r, 0)
	p0 := tab.Pack(kvsOf(m0))
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for i := 0; i < 500; i++ {
				m := randomParams(r, g*1000+i)
				checkSame(t, tab.Pack(kvsOf(m)), m)
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				checkSame(t, p0, m0)
			}
		}()
	}
	wg.Wait()
}

// TestParamsURL: a URL with packed parameters renders and reads as the
// parsed one.
func TestParamsURL(t *testing.T) {
	u := MustParseURL("dubbo://10.0.0.1:20880/org.example.Svc?version=1.0&interface=org.example.Svc&dubbo.tag=gray&b=&a=x")
	p := *u
	p.Params = NewParamTable().Pack(kvsOf(u.Params.Map()))
	if p.Params.String() != "a=x&b=&dubbo.tag=gray&interface=org.example.Svc&version=1.0" || p.Params.String() != u.Params.String() {
		t.Fatalf("Params.String: packed %q, parsed %q", p.Params.String(), u.Params.String())
	}
	if p.String() != u.String() || p.ServiceKey() != u.ServiceKey() || p.Param("dubbo.tag") != "gray" {
		t.Fatalf("packed %s / %s, parsed %s / %s", p.String(), p.ServiceKey(), u.String(), u.ServiceKey())
	}
	for _, k := range []string{"a", "b", "address", "port", "host", "interface", "nope"} {
		gv, gok := p.Get(k)
		wv, wok := u.Get(k)
		if gv != wv || gok != wok {
			t.Fatalf("Get(%q): packed %q %v, parsed %q %v", k, gv, gok, wv, wok)
		}
	}
}

// TestParamsReadAllocs: reading a packed Params allocates nothing.
func TestParamsReadAllocs(t *testing.T) {
	tab := NewParamTable()
	p := tab.Pack(kvsOf(randomParams(rand.New(rand.NewPCG(5, 6)), 1)))
	if a := testing.AllocsPerRun(100, func() {
		if _, ok := p.Get("region"); !ok {
			t.Fatal("region missing")
		}
		for range p.All() {
		}
	}); a != 0 {
		t.Fatalf("%v allocs per read", a)
	}
}

// BenchmarkParamsGet is one lookup in a provider-sized packed Params.
func BenchmarkParamsGet(b *testing.B) {
	tab := NewParamTable()
	m := randomParams(rand.New(rand.NewPCG(7, 8)), 1)
	p := tab.Pack(kvsOf(m))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := p.Get("region"); !ok {
			b.Fatal("region missing")
		}
	}
}

// TestURLSize: a URL (what a chain keeps of each provider, with packed
// parameters) stays within 112 bytes; growing it costs every provider of
// every snapshot a size class.
func TestURLSize(t *testing.T) {
	if s := unsafe.Sizeof(URL{}); s > 112 {
		t.Fatalf("URL is %d bytes", s)
	}
}

// TestURLRaw: a parsed URL keeps its text through Set (it lives with the
// parameters); URLs built in code and packed parameters have none.
func TestURLRaw(t *testing.T) {
	const text = "dubbo://10.0.0.1:20880/S?a=1"
	u := MustParseURL(text)
	u.Params.Set("b", "2")
	u.Params.Delete("a")
	if u.Raw() != text {
		t.Fatalf("Raw %q after Set, want %q", u.Raw(), text)
	}
	if v := MustParseURL("dubbo://h/S"); v.Raw() != "dubbo://h/S" {
		t.Fatalf("Raw %q of a URL without parameters", v.Raw())
	}
	p := URL{Host: "h", Params: NewParamTable().Pack([]KV{{"a", "1"}})}
	if p.Raw() != "" || (&URL{}).Raw() != "" {
		t.Fatal("a URL built in code has a Raw")
	}
}
