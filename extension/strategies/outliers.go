package strategies

import (
	"strconv"
	"sync"

	"github.com/dubboroute/dubboroute/cluster/outlier"
)

// This file reports the references' resilience state (outlier ejection,
// retry budgets) for the console and tools; resilience.go keeps it.

// OutlierReport is one reference's outlier ejection and retry state, for
// the console and tools.
type OutlierReport struct {
	// Config is the detection in force (zero: off); Source says where it
	// came from (params, MESHAPPRULE).
	Config outlier.Config `json:"config"`
	// Providers are every provider's state, ejected ones with reason,
	// since and until.
	Providers []outlier.HostState `json:"providers,omitempty"`
	// Overflow counts detections the cap kept in service; Panics the
	// calls routed to every routed provider because too few were left.
	Overflow uint64 `json:"overflow"`
	Panics   uint64 `json:"panics"`
	// Budgets are the retry budgets' tokens and capacity, by their
	// dubboroute.retry.budget spelling ("" is the default 10,0.1).
	Budgets map[string][2]float64 `json:"budgets,omitempty"`
}

// resils are the references' resilience states, for Outliers. Package
// state because the cluster invokers that hold them are made by dubbo-go's
// cluster registry, which passes no context.
var resils sync.Map // *resil → struct{}

func registerResil(rs *resil) { resils.LoadOrStore(rs, struct{}{}) }

// Outliers reports the outlier ejection and retry state of every
// reference with a call so far that has either feature configured, by
// interface (a second reference of the same interface as "<interface>#2",
// and so on). Off the call path.
func Outliers() map[string]OutlierReport {
	out := map[string]OutlierReport{}
	resils.Range(func(k, _ any) bool {
		rs := k.(*resil)
		rep, ok := rs.report()
		if !ok {
			return true
		}
		key := rs.iface
		for n := 2; ; n++ {
			if _, dup := out[key]; !dup {
				break
			}
			key = rs.iface + "#" + strconv.Itoa(n)
		}
		out[key] = rep
		return true
	})
	return out
}

// report is the reference's OutlierReport; ok is false when neither
// feature is configured.
func (rs *resil) report() (OutlierReport, bool) {
	s := rs.cur.Load()
	if s == nil {
		return OutlierReport{}, false
	}
	rep := OutlierReport{Config: s.cfg}
	if s.det != nil {
		rep.Config = s.det.Config() // defaults filled
		rep.Providers = s.det.State()
		rep.Overflow, rep.Panics = s.det.Overflows(), s.det.Panics()
	}
	rs.mu.Lock()
	for spec, b := range s.budgets {
		if b != nil {
			t, m := b.Tokens()
			if rep.Budgets == nil {
				rep.Budgets = map[string][2]float64{}
			}
			rep.Budgets[spec] = [2]float64{t, m}
		}
	}
	rs.mu.Unlock()
	return rep, rep.Config.Enabled() || len(rep.Budgets) > 0
}
