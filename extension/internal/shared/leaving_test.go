package shared

import "testing"

type countingKeyer struct {
	key string
	n   int
}

func (k *countingKeyer) ServiceKey() string { k.n++; return k.key }

func TestLeavingSetCounts(t *testing.T) {
	var s LeavingSet
	a := LeavingKey{Addr: "127.0.0.1:1", Service: "S"}
	b := LeavingKey{Addr: "127.0.0.1:2", Service: "S"}
	if s.Any() || s.Has(a.Addr, a) {
		t.Fatal("empty set reports a mark")
	}
	s.Mark(a)
	s.Mark(a) // a second directory holds the same removal
	s.Mark(b)
	if !s.Has(a.Addr, a) || s.Has("127.0.0.1:3", a) {
		t.Fatalf("addresses: %v %v", s.Has(a.Addr, a), s.Has("127.0.0.1:3", a))
	}
	// The service key is asked for only while a key at the address is marked.
	asked := &countingKeyer{key: "S"}
	if s.Has("127.0.0.1:3", asked); asked.n != 0 {
		t.Fatalf("service key asked %d times at an address with no mark", asked.n)
	}
	if !s.Has(a.Addr, asked) || asked.n != 1 {
		t.Fatalf("service key at a marked address: asked %d times", asked.n)
	}
	if !s.Has(a.Addr, a) || !s.Has(b.Addr, b) || s.Has("127.0.0.1:1", LeavingKey{Service: "T"}) {
		t.Fatalf("marks: a %v b %v", s.Has(a.Addr, a), s.Has(b.Addr, b))
	}
	s.Unmark(a)
	if !s.Has(a.Addr, a) {
		t.Fatal("a unmarked by one of its two holders is no longer marked")
	}
	s.Unmark(a)
	s.Unmark(a) // one too many: ignored
	if s.Has(a.Addr, a) || !s.Has(b.Addr, b) || s.Has(a.Addr, b) {
		t.Fatalf("after unmarking a: a %v b %v, a's address %v", s.Has(a.Addr, a), s.Has(b.Addr, b), s.Has(a.Addr, b))
	}
	s.Unmark(b)
	if s.Any() {
		t.Fatal("set not empty after every mark was dropped")
	}
}
