package listcache

import (
	"sync"
	"testing"
)

// ByMethod builds a method's value once, however many callers race for
// it, and shows the builder the values made before.
func TestByMethod(t *testing.T) {
	var b ByMethod[*int]
	var made sync.Map
	var wg sync.WaitGroup
	got := make([]*int, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = b.Get("m", func(map[string]*int) *int {
				if _, dup := made.LoadOrStore("m", true); dup {
					t.Error("m built twice")
				}
				return new(int)
			})
		}()
	}
	wg.Wait()
	for _, v := range got {
		if v != got[0] {
			t.Fatal("callers of one method got different values")
		}
	}
	var seen map[string]*int
	b.Get("n", func(m map[string]*int) *int { seen = m; return new(int) })
	if len(seen) != 1 || seen["m"] != got[0] {
		t.Errorf("n's builder saw %v, want m's value only", seen)
	}
	if b.Get("n", nil) == nil {
		t.Error("n not kept")
	}
}
