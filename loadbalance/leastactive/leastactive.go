package leastactive

import "github.com/dubboroute/dubboroute/loadbalance/weight"

// Name is Java's extension name.
const Name = "leastactive"

// Actives reports the active calls of provider i for the call's method.
type Actives interface {
	// Active is provider i's active count.
	Active(i int) int64
}

// stackCap bounds the actives remembered between the two passes without
// allocating; beyond it the second pass reads them again.
const stackCap = 128

// Pick returns the index Java's LeastActiveLoadBalance.doSelect picks.
func Pick(t *weight.Table, act Actives, rnd weight.Rand) int {
	return PickBy(t, func(i int) int64 { return act.Active(i) }, rnd)
}

// PickBy is Pick over a function; shortestresponse uses it with estimated
// response times (Java's ShortestResponseLoadBalance selects the same way,
// with the minimum starting at Long.MAX_VALUE instead of -1: the same
// result for non-negative values).
func PickBy(t *weight.Table, value func(i int) int64, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	var buf [stackCap]int64
	least, count, first := int64(0), 0, -1
	var total int64
	var firstW int32
	same := true
	for i := 0; i < n; i++ {
		a := value(i)
		if i < stackCap {
			buf[i] = a
		}
		w := t.Weights[i]
		switch {
		case first < 0 || a < least:
			least, count, first, total, firstW, same = a, 1, i, int64(w), w, true
		case a == least:
			count++
			total += int64(w)
			if same && w != firstW {
				same = false
			}
		}
	}
	if count == 1 {
		return first
	}
	at := func(i int) int64 {
		if i < stackCap {
			return buf[i]
		}
		return value(i)
	}
	last := first
	if !same && total > 0 {
		off := int64(rnd(int(total)))
		for i := first; i < n; i++ {
			if at(i) != least {
				continue
			}
			last = i
			off -= int64(t.Weights[i])
			if off < 0 {
				return i
			}
		}
		return last
	}
	k := rnd(count)
	for i := first; i < n; i++ {
		if at(i) != least {
			continue
		}
		last = i
		if k == 0 {
			return i
		}
		k--
	}
	return last
}

// Scratch is the memory of one PickValues call over up to Cap providers:
// the values to compare and the indices of the providers holding the
// least. It is not safe for concurrent use; keep one per goroutine or
// behind a lock (extension/balancers keeps a few per balancer set).
type Scratch struct {
	// Values are the providers' values (active counts, estimates); the
	// caller fills Values[:n] before PickValues.
	Values  []int64
	holders []int32
}

// Grow makes the scratch hold at least n providers (it allocates only
// when n exceeds every size asked before).
func (s *Scratch) Grow(n int) {
	if cap(s.Values) < n {
		s.Values = make([]int64, n)
		s.holders = make([]int32, n)
	}
	s.Values = s.Values[:n]
	s.holders = s.holders[:n]
}

// PickValues is PickBy over s.Values[:len(t.Weights)] (filled by the
// caller, after s.Grow): one pass over the dense values collects the
// least and its holders, then Java's draw lands in the holders (a prefix
// sum search over the table when every provider holds the least, a walk
// over the holders otherwise), without reading any value twice. It picks
// exactly what PickBy picks for the same values and draws.
func PickValues(t *weight.Table, s *Scratch, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	vals, holders, ws := s.Values[:n], s.holders[:n], t.Weights[:n]
	least := vals[0]
	firstW := ws[0]
	total := int64(firstW)
	same := true
	holders[0] = 0
	count := 1
	for i := 1; i < n; i++ {
		a := vals[i]
		if a > least {
			continue
		}
		w := ws[i]
		if a < least {
			least, firstW, total, same, count = a, w, int64(w), true, 0
		} else {
			total += int64(w)
			if w != firstW {
				same = false
			}
		}
		holders[count] = int32(i)
		count++
	}
	if count == 1 {
		return int(holders[0])
	}
	if !same && total > 0 {
		off := int64(rnd(int(total)))
		if count == n { // every provider holds the least: the table's prefix sums are the walk
			return t.Search(off)
		}
		for _, h := range holders[:count] {
			off -= int64(ws[h])
			if off < 0 {
				return int(h)
			}
		}
		return int(holders[count-1])
	}
	return int(holders[rnd(count)])
}
