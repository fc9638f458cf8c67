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
