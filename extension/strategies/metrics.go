package strategies

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension/internal/metrics"
)

var (
	mockedTotal = metrics.CounterVec("mocked_calls_total",
		"Calls answered by service downgrade (mock), by mode (force, fail) and outcome (value, business, error).",
		"service", "method", "mode", "outcome")
	attemptsTotal = metrics.CounterVec("cluster_retries_total",
		"Provider calls a cluster strategy made beyond the first of a call (failover retries, forks, broadcast calls).",
		"service", "strategy")
	redirectsTotal = metrics.CounterVec("cluster_redirects_total",
		"Attempts that failed before their request was sent (connection closed or refused, provider closing); failover, failfast, failsafe, failback and available then send the call to another routed provider while there is one.",
		"service")
	connDown = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "provider_connections_down_total",
		Help: "Times a provider address was found down by a call that could not be sent to it (it is then not picked while another routed provider is available).",
	})
	connUp = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "provider_connections_up_total",
		Help: "Times a provider address that was down accepted a probe connection again.",
	})
	providersClosing = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "providers_closing_total",
		Help: "Provider invokers that announced their graceful shutdown (the closing result attachment); not picked again while another routed provider is available.",
	})
	unknownNamesTotal = metrics.CounterVec("unknown_extension_names_total",
		"Lookups of a cluster or load balancer name dubbo-go has not registered, answered with Java's default (failover, random).",
		"kind", "name")
)

// Collectors are this package's Prometheus collectors.
func Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{mockedTotal, attemptsTotal, redirectsTotal, connDown, connUp, providersClosing, unknownNamesTotal}, resilCollectors...)
}

// mockedCounts mirrors mocked_calls_total for the console.
var mockedCounts sync.Map // "<service>.<method> <mode>/<outcome>" → *atomic.Uint64

func countMocked(service, method, mode, outcome string) {
	mockedTotal.WithLabelValues(service, method, mode, outcome).Inc()
	k := service + "." + method + " " + mode + "/" + outcome
	v, ok := mockedCounts.Load(k)
	if !ok {
		v, _ = mockedCounts.LoadOrStore(k, new(atomic.Uint64))
	}
	v.(*atomic.Uint64).Add(1)
}

// Mocked returns the calls answered by service downgrade since start, by
// "<service>.<method> <mode>/<outcome>" (mode force or fail; outcome
// value, business or error).
func Mocked() map[string]uint64 {
	out := map[string]uint64{}
	mockedCounts.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Uint64).Load()
		return true
	})
	return out
}
