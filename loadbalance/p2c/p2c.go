package p2c

import "github.com/dubboroute/dubboroute/loadbalance/weight"

// Name is the gray balancer's delegate name.
const Name = "p2c"

// Pick returns the index of the provider the power of two choices picks
// from t's providers, active(i) being provider i's calls in flight.
func Pick(t *weight.Table, active func(i int) int64, rnd weight.Rand) int {
	n := len(t.Weights)
	if n <= 1 {
		return 0
	}
	i := rnd(n)
	j := rnd(n - 1)
	if j >= i {
		j++
	}
	wi, wj := t.Weights[i], t.Weights[j]
	switch {
	case wi <= 0 && wj > 0:
		return j
	case wj <= 0:
		return i
	}
	ai, aj := active(i)+1, active(j)+1
	// ai/wi > aj/wj  <=>  ai*wj > aj*wi (float to avoid overflow)
	if float64(ai)*float64(wj) > float64(aj)*float64(wi) {
		return j
	}
	return i
}
