package gray

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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

// nextWeightChange is the first instant after now (ms) at which
// WarmupWeight(weight, ts, warmup, ·) differs from its value at now, or
// math.MaxInt64 when it never changes again. The function is monotone in
// time over (ts, ts+warmup), so a binary search finds the step exactly.
func nextWeightChange(weight, ts, warmup, now int64) int64 {
	if weight <= 0 || ts <= 0 {
		return math.MaxInt64
	}
	uptime := now - ts
	switch {
	case uptime < 0:
		return ts // weight 1 until the timestamp, then the full weight for 1 ms
	case uptime == 0:
		if warmup <= 1 {
			return math.MaxInt64
		}
		return ts + 1
	case uptime >= warmup:
		return math.MaxInt64
	}
	cur := WarmupWeight(weight, ts, warmup, now)
	// Find the smallest u in (uptime, warmup] with a different weight; at
	// u = warmup the weight is the full weight, so if cur == weight nothing
	// changes any more.
	if cur >= weight {
		return math.MaxInt64
	}
	lo, hi := uptime, warmup // weight(lo) == cur, weight(hi) != cur
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if WarmupWeight(weight, ts, warmup, ts+mid) == cur {
			lo = mid
		} else {
			hi = mid
		}
	}
	return ts + hi
}

// member is what a pool knows about one provider, fixed at compile time.
type member struct {
	index     int    // position in the provider list / invoker slice
	address   string // host:port, for explain
	weight    int64  // configured service-level weight
	timestamp int64  // ms, 0 = unknown (no warm-up)
	warmup    int64  // ms
}

// paramInt reads an integer parameter; absent or malformed gives ok=false
// (Java would throw on a malformed number and fail the call; falling back to
// the default keeps traffic flowing and lint reports it).
func paramInt(u *router.URL, key string) (int64, bool) {
	s, ok := u.Params.Get(key)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// methodWeightKeys lists the methods for which a provider has a
// method-level weight: Java's "<method>.weight" and dubbo-go's
// "methods.<method>.weight".
func methodWeightKeys(u *router.URL, into map[string]struct{}) {
	for k := range u.Params.All() {
		if m, ok := strings.CutSuffix(k, ".weight"); ok && m != "" {
			m = strings.TrimPrefix(m, "methods.")
			if m != "" {
				into[m] = struct{}{}
			}
		}
	}
}

// weightFor is a provider's configured weight for a method ("" = none),
// read as Java reads it (loadbalance/weight.MethodParam: <method>.weight
// unless the URL's methods parameter does not contain the method, then
// dubbo-go's methods.<method>.weight, then weight, then 100).
func weightFor(u *router.URL, method string) int64 {
	if v, ok := lbweight.MethodParam(u.Params, method, "weight"); ok {
		if w, ok := lbweight.ParseInt(v); ok {
			return int64(w)
		}
	}
	return DefaultWeight
}

// table is an immutable snapshot of a pool's effective weights, valid until
// validUntil (ms). Picks read it without locks.
type table struct {
	weights    []int64
	prefix     []int64 // prefix[i] = weights[0] + ... + weights[i]
	total      int64
	same       bool  // every weight equal (uniform pick)
	validUntil int64 // ms; math.MaxInt64 when no provider is warming up
	builtAt    int64 // ms; the instant the weights were computed for
	rr         rrState
}

// weighting is one weight scheme of a pool (service level, or one method
// with method-level weights): configured weights and the current table.
type weighting struct {
	members []member // the pool's members with this scheme's weights
	warming bool     // some member has a timestamp (needs the clock)
	cur     atomic.Pointer[table]
	mu      sync.Mutex // serialises rebuilds
}

func newWeighting(members []member, now int64) *weighting {
	w := &weighting{members: members}
	for i := range members {
		if members[i].timestamp > 0 && members[i].weight > 0 {
			w.warming = true
		}
	}
	w.cur.Store(w.build(now))
	return w
}

// get returns the table for now (ms), rebuilding it when a warm-up step
// passed or the clock went backwards past the build instant. Without any
// warming member the table never changes and now is ignored.
func (w *weighting) get(now int64) *table {
	t := w.cur.Load()
	if !w.warming || (now >= t.builtAt && now < t.validUntil) {
		return t
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t = w.cur.Load()
	if now >= t.builtAt && now < t.validUntil {
		return t
	}
	t = w.build(now)
	w.cur.Store(t)
	return t
}

func (w *weighting) build(now int64) *table {
	n := len(w.members)
	t := &table{weights: make([]int64, n), prefix: make([]int64, n), validUntil: math.MaxInt64, same: true}
	t.rr.init(n)
	var sum int64
	for i := range w.members {
		m := &w.members[i]
		wt := WarmupWeight(m.weight, m.timestamp, m.warmup, now)
		t.weights[i] = wt
		if sum > math.MaxInt64-wt {
			wt = 0 // absurd weights: keep the sums exact rather than overflow
			t.weights[i] = 0
		}
		sum += wt
		t.prefix[i] = sum
		if wt != t.weights[0] {
			t.same = false
		}
		if next := nextWeightChange(m.weight, m.timestamp, m.warmup, now); next < t.validUntil {
			t.validUntil = next
		}
	}
	t.total = sum
	t.builtAt = now
	return t
}
