package listcache

import (
	"sync/atomic"
	"unsafe"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
)

// Slots is the number of entries of a Cache.
const Slots = 64

// Key is the identity of a non-empty invoker list.
type Key struct {
	ptr              *base.Invoker
	n                int
	first, mid, last *common.URL
}

// KeyOf returns the identity of list; the zero Key for an empty list.
func KeyOf(list []base.Invoker) Key {
	n := len(list)
	if n == 0 {
		return Key{}
	}
	return Key{ptr: &list[0], n: n, first: urlOf(list[0]), mid: urlOf(list[n/2]), last: urlOf(list[n-1])}
}

// First is the URL of the list's first invoker (nil for a nil invoker).
func (k Key) First() *common.URL { return k.first }

// slot is the key's entry in a Cache. The length goes in before the
// multiply: a prefix of a slice (same pointer, other length) must land in
// another slot.
func (k Key) slot() int {
	h := (uint64(uintptr(unsafe.Pointer(k.ptr))) ^ uint64(k.n)*0xbf58476d1ce4e5b9) * 0x9e3779b97f4a7c15
	return int(h>>32) & (Slots - 1)
}

func urlOf(ivk base.Invoker) *common.URL {
	if ivk == nil {
		return nil
	}
	return ivk.GetURL()
}

type entry[T any] struct {
	key Key
	// pin keeps the backing array alive while its plan is cached, so its
	// address cannot be reused by another list.
	pin []base.Invoker
	val T
}

// Cache maps invoker lists to the values planned for them. The zero Cache
// is empty and ready; it is safe for concurrent use, and Get allocates
// nothing.
type Cache[T any] struct {
	slots [Slots]atomic.Pointer[entry[T]]
}

// Get returns the value stored for a list with the same identity, if the
// list's slot still holds it.
func (c *Cache[T]) Get(list []base.Invoker) (v T, ok bool) {
	if len(list) == 0 {
		return v, false
	}
	k := KeyOf(list)
	if e := c.slots[k.slot()].Load(); e != nil && e.key == k {
		return e.val, true
	}
	return v, false
}

// Put stores the value planned for list, evicting whatever held its slot.
// An empty list is not stored.
func (c *Cache[T]) Put(list []base.Invoker, v T) {
	if len(list) == 0 {
		return
	}
	k := KeyOf(list)
	c.slots[k.slot()].Store(&entry[T]{key: k, pin: list, val: v})
}
