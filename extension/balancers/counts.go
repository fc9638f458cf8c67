package balancers

import (
	"runtime"
	"strings"
	"sync"
	"weak"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/loadbalance/status"
)

// activesKey is Java's actives parameter, which activates its consumer's
// ActiveLimitFilter (its RpcStatus counting).
const activesKey = "actives"

// counts are the per-provider, per-method call counters leastactive and
// shortestresponse read, by provider invoker URL. Package state because
// Java's are (RpcStatus is static: every reference of the process counts a
// provider's calls together) and because the cluster invoker that counts
// and the balancer that reads meet only through dubbo-go's registries. An
// entry goes with its URL (a weak key, removed by a cleanup).
var counts countTable

type countTable struct{ m sync.Map } // weak.Pointer[common.URL] -> *urlCounts

// urlCounts are one provider's counters by method, and whether calls to
// it are counted at all.
type urlCounts struct {
	counted bool
	mu      sync.RWMutex
	m       map[string]*status.Status
}

func (c *countTable) of(u *common.URL) *urlCounts {
	k := weak.Make(u)
	if v, ok := c.m.Load(k); ok {
		return v.(*urlCounts)
	}
	v, loaded := c.m.LoadOrStore(k, &urlCounts{counted: countsCalls(u), m: map[string]*status.Status{}})
	if !loaded {
		runtime.AddCleanup(u, func(k weak.Pointer[common.URL]) { c.m.Delete(k) }, k)
	}
	return v.(*urlCounts)
}

func (uc *urlCounts) method(m string) *status.Status {
	uc.mu.RLock()
	s := uc.m[m]
	uc.mu.RUnlock()
	if s != nil {
		return s
	}
	uc.mu.Lock()
	defer uc.mu.Unlock()
	if s = uc.m[m]; s == nil {
		s = &status.Status{}
		uc.m[m] = s
	}
	return s
}

// statusOf is the counters of calls of method to the provider whose
// invoker URL is u (made on first use).
func statusOf(u *common.URL, method string) *status.Status {
	if u == nil {
		return &status.Status{}
	}
	return counts.of(u).method(method)
}

// countsCalls reports whether calls to the provider of invoker URL u are
// counted: as Java, where its consumer's ActiveLimitFilter (activated by
// an actives parameter, of the service or of a method) counts them, and as
// dubbo-go, where its active filter does when the reference lists it.
// Uncounted, every provider has 0 active calls and no history: leastactive
// and shortestresponse draw among all of them by weight, as both do.
func countsCalls(u *common.URL) bool {
	if u.GetParam(activesKey, "") != "" {
		return true
	}
	counted := false
	u.RangeParams(func(k, v string) bool {
		if v != "" && strings.HasSuffix(k, "."+activesKey) {
			counted = true
		}
		return !counted
	})
	if counted {
		return true
	}
	for _, f := range strings.Split(u.GetParam(constant.ReferenceFilterKey, ""), ",") {
		if strings.TrimSpace(f) == constant.ActiveFilterKey {
			return true
		}
	}
	return false
}

// Counted returns the counters a call of method to ivk (a routed invoker,
// dubboroute's views of it unwrapped) counts into, or nil when its calls
// are not counted (countsCalls). The cluster invoker calls Begin on it
// before the call and End after.
func Counted(ivk base.Invoker, method string) *status.Status {
	u := urlOf(unwrap(ivk))
	if u == nil {
		return nil
	}
	uc := counts.of(u)
	if !uc.counted {
		return nil
	}
	return uc.method(method)
}

// BeginCount counts a call of method to the provider of invoker URL u
// starting, whether or not its calls are counted (for tools and the
// oracle, which set counters up as Java's RpcStatus.beginCount does).
func BeginCount(u *common.URL, method string) { statusOf(u, method).Begin() }

// EndCount counts that call ending after elapsed ms (Java's
// RpcStatus.endCount).
func EndCount(u *common.URL, method string, elapsed int64, succeeded bool) {
	statusOf(u, method).End(elapsed, succeeded)
}

// ResetCounts sets every counter back to zero (Java's RpcStatus has no
// such thing; for tests and the oracle, between cases).
func ResetCounts() {
	counts.m.Range(func(_, v any) bool {
		uc := v.(*urlCounts)
		uc.mu.RLock()
		for _, s := range uc.m {
			s.Reset()
		}
		uc.mu.RUnlock()
		return true
	})
}
