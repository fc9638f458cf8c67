package listcache

import (
	"fmt"
	"sync"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
)

func invokers(t testing.TB, n int) []base.Invoker {
	t.Helper()
	out := make([]base.Invoker, n)
	for i := range out {
		u, err := common.NewURL(fmt.Sprintf("dubbo://127.0.0.1:%d/svc", 20000+i))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = base.NewBaseInvoker(u)
	}
	return out
}

func TestGetFindsWhatPutStored(t *testing.T) {
	var c Cache[int]
	l := invokers(t, 5)
	if _, ok := c.Get(l); ok {
		t.Fatal("empty cache found a value")
	}
	c.Put(l, 7)
	if v, ok := c.Get(l); !ok || v != 7 {
		t.Fatalf("Get = %d, %v; want 7, true", v, ok)
	}
	c.Put(l, 8)
	if v, _ := c.Get(l); v != 8 {
		t.Fatalf("Get after a second Put = %d, want 8", v)
	}
}

func TestOtherListsMiss(t *testing.T) {
	var c Cache[string]
	l := invokers(t, 6)
	c.Put(l, "whole")
	// A prefix shares the backing array but is another list.
	if v, ok := c.Get(l[:4]); ok {
		t.Fatalf("prefix found %q", v)
	}
	// A copy has another backing array.
	cp := append([]base.Invoker(nil), l...)
	if v, ok := c.Get(cp); ok {
		t.Fatalf("copy found %q", v)
	}
	// The owner rewrote the array in place: first, middle or last.
	other := invokers(t, 1)[0]
	for _, i := range []int{0, 3, 5} {
		saved := l[i]
		l[i] = other
		if v, ok := c.Get(l); ok {
			t.Errorf("list with position %d replaced found %q", i, v)
		}
		l[i] = saved
	}
	if v, ok := c.Get(l); !ok || v != "whole" {
		t.Fatalf("restored list: Get = %q, %v", v, ok)
	}
	if _, ok := c.Get(nil); ok {
		t.Fatal("empty list found a value")
	}
	c.Put(nil, "none") // not stored, no panic
}

func TestKeyOf(t *testing.T) {
	l := invokers(t, 3)
	k := KeyOf(l)
	if k.First() != l[0].GetURL() {
		t.Fatalf("First = %v, want %v", k.First(), l[0].GetURL())
	}
	if KeyOf(l) != k || KeyOf(l[:2]) == k {
		t.Fatal("KeyOf is not the list's identity")
	}
	if (KeyOf(nil) != Key{}) {
		t.Fatal("KeyOf(nil) is not the zero Key")
	}
	withNil := []base.Invoker{nil, l[1]}
	if KeyOf(withNil).First() != nil {
		t.Fatal("a nil invoker's URL is not nil")
	}
}

func TestGetAllocatesNothing(t *testing.T) {
	var c Cache[*int]
	l := invokers(t, 100)
	v := 1
	c.Put(l, &v)
	if a := testing.AllocsPerRun(1000, func() {
		if _, ok := c.Get(l); !ok {
			t.Fatal("miss")
		}
	}); a != 0 {
		t.Fatalf("Get allocates %.1f per call", a)
	}
}

func TestConcurrentUse(t *testing.T) {
	var c Cache[int]
	lists := make([][]base.Invoker, 16)
	for i := range lists {
		lists[i] = invokers(t, 2+i)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 2000; k++ {
				i := k % len(lists)
				if v, ok := c.Get(lists[i]); ok && v != len(lists[i]) {
					t.Errorf("list of %d found %d", len(lists[i]), v)
					return
				}
				c.Put(lists[i], len(lists[i]))
			}
		}()
	}
	wg.Wait()
}

func BenchmarkGet(b *testing.B) {
	var c Cache[int]
	l := invokers(b, 1000)
	c.Put(l, 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := c.Get(l); !ok {
			b.Fatal("miss")
		}
	}
}
