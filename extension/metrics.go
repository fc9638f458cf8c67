package extension

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension/strategies"
)

var (
	routedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "routed_total",
		Help: "Calls seen by each router of the chain, by outcome (kept: all input providers kept; filtered: a non-empty subset; empty: none left).",
	}, []string{"service", "router", "outcome"})
	emptyRoutesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "empty_routes_total",
		Help: "Calls for which routing left no provider.",
	}, []string{"service"})
	ruleChangesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "rule_changes_total",
		Help: "Rule change events per config-center key, by outcome (accepted, deleted, rejected).",
	}, []string{"key", "outcome"})
	rebuildsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "snapshot_rebuilds_total",
		Help: "Routing snapshots compiled and published.",
	}, []string{"service"})
	rebuildSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "dubboroute", Name: "snapshot_rebuild_seconds",
		Help:    "Time to compile and publish a routing snapshot.",
		Buckets: prometheus.ExponentialBuckets(0.00001, 4, 10),
	}, []string{"service"})
	grayPicksTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "gray_picks_total",
		Help: "Picks of the gray load balancer by request class (gray, normal) and by shortcut (single: one candidate, balancer not consulted).",
	}, []string{"class"})
)

// Collectors returns every dubboroute collector, for
// prometheus.MustRegister(extension.Collectors()...).
func Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{routedTotal, emptyRoutesTotal, ruleChangesTotal, rebuildsTotal, rebuildSeconds, grayPicksTotal}, strategies.Collectors()...)
}

// chainMetrics is a cluster.Observer with every counter resolved up front,
// so observing a call does not allocate.
type chainMetrics struct {
	routed   [len(cluster.RouterNames)][3]prometheus.Counter
	empty    prometheus.Counter
	rebuilds prometheus.Counter
	seconds  prometheus.Observer
}

func newChainMetrics(service string) *chainMetrics {
	m := &chainMetrics{
		empty:    emptyRoutesTotal.WithLabelValues(service),
		rebuilds: rebuildsTotal.WithLabelValues(service),
		seconds:  rebuildSeconds.WithLabelValues(service),
	}
	for r, name := range cluster.RouterNames {
		for o := cluster.OutcomeKept; o <= cluster.OutcomeEmpty; o++ {
			m.routed[r][o] = routedTotal.WithLabelValues(service, name, o.String())
		}
	}
	return m
}

// Routed implements cluster.Observer.
func (m *chainMetrics) Routed(r int, o cluster.Outcome) {
	m.routed[r][o].Inc()
	if o == cluster.OutcomeEmpty {
		m.empty.Inc()
	}
}

// Rebuilt implements cluster.Observer.
func (m *chainMetrics) Rebuilt(_ int, seconds float64) {
	m.rebuilds.Inc()
	m.seconds.Observe(seconds)
}
