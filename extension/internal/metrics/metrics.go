package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dubboroute/dubboroute/cluster"
)

// set is the process's collectors. Package state because Prometheus
// collectors are registered once per process (extension.Collectors hands
// them to the application's registry) and every chain of the process
// counts into them.
var set = newCollectorSet()

// collectorSet is this package's collectors, made in one place.
type collectorSet struct {
	routedTotal         *prometheus.CounterVec
	emptyRoutesTotal    *prometheus.CounterVec
	ruleChangesTotal    *prometheus.CounterVec
	rebuildsTotal       *prometheus.CounterVec
	rebuildSeconds      *prometheus.HistogramVec
	dubboGoDiffersTotal *prometheus.CounterVec
	grayPicksTotal      *prometheus.CounterVec
	// grayPicks are grayPicksTotal's counters by class, resolved once.
	grayPicks map[string]interface{ Inc() }
}

func newCollectorSet() *collectorSet {
	s := &collectorSet{
		routedTotal: CounterVec("routed_total",
			"Calls seen by each router of the chain, by outcome (kept: all input providers kept; filtered: a non-empty subset; empty: none left).",
			"service", "router", "outcome"),
		emptyRoutesTotal: CounterVec("empty_routes_total",
			"Calls for which routing left no provider.",
			"service"),
		ruleChangesTotal: CounterVec("rule_changes_total",
			"Rule change events per config-center key, by outcome (accepted, deleted, rejected).",
			"key", "outcome"),
		rebuildsTotal: CounterVec("snapshot_rebuilds_total",
			"Routing snapshots compiled and published.",
			"service"),
		rebuildSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "dubboroute", Name: "snapshot_rebuild_seconds",
			Help:    "Time to compile and publish a routing snapshot.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 4, 10),
		}, []string{"service"}),
		dubboGoDiffersTotal: CounterVec("dubbogo_differs_total",
			"Rule contents dubboroute treats as Java Dubbo does where dubbo-go alone would have acted otherwise (e.g. a condition rule's configVersion above v3.1: ignored, dubbo-go applies it), by key and reason.",
			"key", "reason"),
		grayPicksTotal: CounterVec("gray_picks_total",
			"Picks of the gray load balancer by request class (gray, normal) and by shortcut (single: one candidate, balancer not consulted).",
			"class"),
	}
	s.grayPicks = map[string]interface{ Inc() }{}
	for _, class := range []string{"gray", "normal", "single"} {
		s.grayPicks[class] = s.grayPicksTotal.WithLabelValues(class)
	}
	return s
}

// RuleChange is the counter of rule change events of a config-center key
// with an outcome (accepted, deleted, rejected): rule_changes_total.
func RuleChange(key, outcome string) prometheus.Counter {
	return set.ruleChangesTotal.WithLabelValues(key, outcome)
}

// DubboGoDiffers is the counter of rule contents of a key that dubboroute
// treats as Java Dubbo does where dubbo-go alone would have acted
// otherwise, for a reason: dubbogo_differs_total.
func DubboGoDiffers(key, reason string) prometheus.Counter {
	return set.dubboGoDiffersTotal.WithLabelValues(key, reason)
}

// CounterVec is a dubboroute counter vector: namespace dubboroute, the
// metric's name and help, its labels.
func CounterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "dubboroute", Name: name, Help: help}, labels)
}

// Collectors returns the collectors of this package (extension.Collectors
// adds the balancers' and the strategies').
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{set.routedTotal, set.emptyRoutesTotal, set.ruleChangesTotal, set.rebuildsTotal, set.rebuildSeconds, set.grayPicksTotal, set.dubboGoDiffersTotal}
}

// ChainMetrics is a cluster.Observer with every counter resolved up front,
// so observing a call does not allocate.
type ChainMetrics struct {
	routed   [len(cluster.RouterNames)][3]prometheus.Counter
	empty    prometheus.Counter
	rebuilds prometheus.Counter
	seconds  prometheus.Observer
}

// NewChainMetrics resolves the counters of service.
func NewChainMetrics(service string) *ChainMetrics {
	m := &ChainMetrics{
		empty:    set.emptyRoutesTotal.WithLabelValues(service),
		rebuilds: set.rebuildsTotal.WithLabelValues(service),
		seconds:  set.rebuildSeconds.WithLabelValues(service),
	}
	for r, name := range cluster.RouterNames {
		for o := cluster.OutcomeKept; o <= cluster.OutcomeEmpty; o++ {
			m.routed[r][o] = set.routedTotal.WithLabelValues(service, name, o.String())
		}
	}
	return m
}

// Routed implements cluster.Observer.
func (m *ChainMetrics) Routed(r int, o cluster.Outcome) {
	m.routed[r][o].Inc()
	if o == cluster.OutcomeEmpty {
		m.empty.Inc()
	}
}

// Rebuilt implements cluster.Observer.
func (m *ChainMetrics) Rebuilt(_ int, seconds float64) {
	m.rebuilds.Inc()
	m.seconds.Observe(seconds)
}

// RoutedCount reads the counter of router r and outcome o (what Counters of a
// binding reports).
func (m *ChainMetrics) RoutedCount(r int, o cluster.Outcome) uint64 {
	return counterOf(m.routed[r][o])
}

// GrayPick is the pick counter of a class (gray, normal, single).
func GrayPick(class string) interface{ Inc() } { return set.grayPicks[class] }

// GrayPicks reads the gray balancer's pick counters by class (gray, normal,
// single), process-wide.
func GrayPicks() map[string]uint64 {
	out := map[string]uint64{}
	for class, c := range set.grayPicks {
		if m, ok := c.(interface{ Write(*dto.Metric) error }); ok {
			out[class] = metricValue(m)
		}
	}
	return out
}

func counterOf(c interface{ Write(*dto.Metric) error }) uint64 {
	if c == nil {
		return 0
	}
	return metricValue(c)
}

func metricValue(c interface{ Write(*dto.Metric) error }) uint64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return 0
	}
	return uint64(m.GetCounter().GetValue())
}
