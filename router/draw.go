package router

import (
	"fmt"
	"strings"
)

// JavaDrawShares describes how Java 3.3 splits a weighted destination draw
// over candidates of effective weights ws (len >= 2): it draws r in [0, W)
// and takes the first candidate whose cumulative weight is >= r, so the
// first gets w+1 of the W draw values and the last w-1. It returns the
// per-candidate counts, W, and the shares in words ("the first gets a/W,
// the last b/W" or "the destinations get a/W, b/W, …") for lint findings.
func JavaDrawShares(ws []int64) (counts []int64, total int64, words string) {
	counts = append([]int64(nil), ws...)
	for _, w := range ws {
		total += w
	}
	if len(counts) < 2 {
		return counts, total, ""
	}
	counts[0]++
	counts[len(counts)-1]--
	var b strings.Builder
	if len(counts) == 2 {
		fmt.Fprintf(&b, "the first gets %d/%d, the last %d/%d", counts[0], total, counts[1], total)
	} else {
		b.WriteString("the destinations get ")
		for i, c := range counts {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d/%d", c, total)
		}
	}
	return counts, total, b.String()
}
