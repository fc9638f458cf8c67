package random

import "github.com/dubboroute/dubboroute/loadbalance/weight"

// Name is Java's extension name.
const Name = "random"

// Pick returns the index of the provider Java's RandomLoadBalance.doSelect
// picks from t's providers (len(t.Weights) >= 1), drawing with rnd.
func Pick(t *weight.Table, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	if !t.NeedWeight {
		return rnd(n)
	}
	return PickWeighted(t, rnd)
}

// PickWeighted is Pick without Java's needWeightLoadBalance shortcut:
// every weight counts whatever the first provider publishes (an offset in
// [0, total) against the running sums when the weights differ and their
// total is positive, else uniform). The gray balancer's random delegate
// draws so.
func PickWeighted(t *weight.Table, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	if t.Total > 0 && !t.Same {
		return t.Search(int64(rnd(int(t.Total))))
	}
	return rnd(n)
}
