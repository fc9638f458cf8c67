package gray

import (
	"math"

	lbweight "github.com/dubboroute/dubboroute/loadbalance/weight"
	"github.com/dubboroute/dubboroute/router"
)

// Java's defaults (AbstractLoadBalance, cluster Constants).
const (
	// DefaultWeight is a provider's weight without a weight parameter.
	DefaultWeight = 100
	// DefaultWarmupMillis is the warm-up period without a warmup parameter:
	// 10 minutes, in milliseconds as Java publishes it.
	DefaultWarmupMillis = 10 * 60 * 1000
)

// WarmupWeight is Java 3.x's AbstractLoadBalance.getWeight after the weight
// lookup: given a configured weight, the provider's start timestamp and
// warm-up period (both in milliseconds; timestamp <= 0 means unknown) and the
// current time in milliseconds, the effective weight.
//
// uptime < 0 gives 1; 0 < uptime < warmup gives the linear warm-up weight
// (int)(uptime / ((float)warmup / weight)) clamped to [1, weight], computed
// in float32 exactly as Java does; otherwise the weight. Negative results
// become 0. (uptime == 0 keeps the full weight: Java's test is uptime > 0.)
func WarmupWeight(weight, timestamp, warmup, nowMillis int64) int64 {
	if weight >= math.MinInt32 && weight <= math.MaxInt32 && warmup >= 0 && warmup <= math.MaxInt32 {
		// One source of truth: Java's getWeight as loadbalance/weight has it.
		return int64(lbweight.Warm(int32(weight), timestamp, int32(warmup), nowMillis))
	}
	if weight > 0 && timestamp > 0 {
		uptime := nowMillis - timestamp
		if uptime < 0 {
			return 1
		}
		if uptime > 0 && uptime < warmup {
			ww := int64(float32(uptime) / (float32(warmup) / float32(weight)))
			if ww < 1 {
				return 1
			}
			if ww < weight {
				return ww
			}
			return weight
		}
	}
	if weight < 0 {
		return 0
	}
	return weight
}

// params are a provider URL's parameters as the loadbalance packages read
// them (weights, method weights, warm-up), with the start time and the
// warm-up period under the names Options gives them.
type params struct {
	u      *router.URL
	ts, wu string
}

// Get implements lbweight.Params.
func (p params) Get(key string) (string, bool) {
	switch key {
	case "timestamp":
		key = p.ts
	case "warmup":
		key = p.wu
	}
	return p.u.Params.Get(key)
}

// Range implements lbweight.Ranger (method-level weights are found so).
func (p params) Range(f func(key, value string) bool) {
	for k, v := range p.u.Params.All() {
		if !f(k, v) {
			return
		}
	}
}

// provider is the loadbalance view of one provider URL: its parameters,
// address and identity (the round-robin state's key).
func provider(u *router.URL, o Options) lbweight.Provider {
	addr := u.Address()
	return lbweight.Provider{
		Params:     params{u: u, ts: o.TimestampParam, wu: o.WarmupParam},
		Address:    addr,
		Identity:   u.Protocol + "://" + addr + "/" + u.Path,
		ServiceKey: u.ServiceKey(),
	}
}
