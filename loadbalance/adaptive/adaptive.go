package adaptive

import "github.com/dubboroute/dubboroute/loadbalance/weight"

// Name is Java's extension name; P2CName is dubbo-go's nearest balancer.
const (
	Name    = "adaptive"
	P2CName = "p2c"
)

// Pick returns the index Java's AdaptiveLoadBalance.doSelect picks when
// every load is equal.
func Pick(t *weight.Table, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	a, b := 0, 1
	if n > 2 {
		a = rnd(n)
		b = rnd(n - 1)
		if b >= a {
			b++
		}
	}
	w1, w2 := t.Weights[a], t.Weights[b]
	if total := int64(w1) + int64(w2); total > 0 {
		if int64(rnd(int(total))) < int64(w1) {
			return a
		}
		return b
	}
	if rnd(2) == 0 {
		return a
	}
	return b
}
