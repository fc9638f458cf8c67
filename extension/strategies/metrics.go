package strategies

import "github.com/prometheus/client_golang/prometheus"

var (
	mockedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "mocked_calls_total",
		Help: "Calls answered by service downgrade (mock), by mode (force, fail) and outcome (value, business, error).",
	}, []string{"service", "method", "mode", "outcome"})
	attemptsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "cluster_retries_total",
		Help: "Provider calls a cluster strategy made beyond the first of a call (failover retries, forks, broadcast calls).",
	}, []string{"service", "strategy"})
	unknownNamesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "unknown_extension_names_total",
		Help: "Lookups of a cluster or load balancer name dubbo-go has not registered, answered with Java's default (failover, random).",
	}, []string{"kind", "name"})
)

// Collectors are this package's Prometheus collectors.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{mockedTotal, attemptsTotal, unknownNamesTotal}
}
