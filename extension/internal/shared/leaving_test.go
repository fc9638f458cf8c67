package shared

import "testing"

func TestLeavingSetCounts(t *testing.T) {
	var s LeavingSet
	a := LeavingKey{Addr: "127.0.0.1:1", Service: "S"}
	b := LeavingKey{Addr: "127.0.0.1:2", Service: "S"}
	if s.Any() || s.Has(a) {
		t.Fatal("empty set reports a mark")
	}
	s.Mark(a)
	s.Mark(a) // a second directory holds the same removal
	s.Mark(b)
	if !s.HasAddr(a.Addr) || s.HasAddr("127.0.0.1:3") {
		t.Fatalf("addresses: %v %v", s.HasAddr(a.Addr), s.HasAddr("127.0.0.1:3"))
	}
	if !s.Has(a) || !s.Has(b) || s.Has(LeavingKey{Addr: "127.0.0.1:1", Service: "T"}) {
		t.Fatalf("marks: a %v b %v", s.Has(a), s.Has(b))
	}
	s.Unmark(a)
	if !s.Has(a) {
		t.Fatal("a unmarked by one of its two holders is no longer marked")
	}
	s.Unmark(a)
	s.Unmark(a) // one too many: ignored
	if s.Has(a) || !s.Has(b) || s.HasAddr(a.Addr) {
		t.Fatalf("after unmarking a: a %v b %v, a's address %v", s.Has(a), s.Has(b), s.HasAddr(a.Addr))
	}
	s.Unmark(b)
	if s.Any() {
		t.Fatal("set not empty after every mark was dropped")
	}
}
