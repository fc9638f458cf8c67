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
// caller, after s.Grow), without reading any value through a function:
// a first pass over the dense values finds the least, how many hold it
// and the first holder; when one provider holds it that is the pick, when
// every provider does Java's draw is the table's own (uniform, or the
// prefix sums by binary search), otherwise a second pass collects the
// holders, their total weight and whether the weights are equal, and the
// draw walks the holders. It picks exactly what PickBy picks for the same
// values and draws.
func PickValues(t *weight.Table, s *Scratch, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	vals := s.Values[:n]
	least, count, first := vals[0], 0, 0
	for i, a := range vals {
		if a < least {
			least, count, first = a, 0, i
		}
		if a == least {
			count++
		}
	}
	switch {
	case count == 1:
		return first
	case count == n: // every provider holds the least: the table is the holders
		if t.Same || t.Total <= 0 {
			return rnd(n)
		}
		return t.Search(int64(rnd(int(t.Total))))
	}
	holders, ws := s.holders[:count], t.Weights[:n]
	firstW := ws[first]
	var total int64
	same := true
	k := 0
	for i := first; k < count; i++ {
		if vals[i] != least {
			continue
		}
		w := ws[i]
		total += int64(w)
		if w != firstW {
			same = false
		}
		holders[k] = int32(i)
		k++
	}
	if same || total <= 0 {
		return int(holders[rnd(count)])
	}
	off := int64(rnd(int(total)))
	for _, h := range holders {
		off -= int64(ws[h])
		if off < 0 {
			return int(h)
		}
	}
	return int(holders[count-1])
}
