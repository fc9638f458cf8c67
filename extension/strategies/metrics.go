package strategies

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension/internal/metrics"
)

// met is this package's Prometheus collectors. Package state because
// collectors are registered once per process (extension.Collectors hands
// them to the application's registry) and every cluster invoker dubbo-go
// makes through its registry, which passes no context, counts into them.
var met = newCollectorSet()

// collectorSet is this package's collectors, made in one place: the
// cluster strategies' and availability's, then resilience's (outlier
// ejection and the retry policy, resilience.go and retrypolicy.go).
type collectorSet struct {
	mockedTotal       *prometheus.CounterVec
	attemptsTotal     *prometheus.CounterVec
	redirectsTotal    *prometheus.CounterVec
	connDown          prometheus.Counter
	connUp            prometheus.Counter
	providersClosing  prometheus.Counter
	unknownNamesTotal *prometheus.CounterVec

	outlierEjections *prometheus.CounterVec
	outlierEjected   *prometheus.GaugeVec
	outlierOverflow  *prometheus.CounterVec
	outlierPanics    *prometheus.CounterVec
	retryAttempts    *prometheus.CounterVec
	retryDenied      *prometheus.CounterVec

	// mocked mirrors mocked_calls_total for the console:
	// "<service>.<method> <mode>/<outcome>" → *atomic.Uint64.
	mocked sync.Map
}

func newCollectorSet() *collectorSet {
	return &collectorSet{
		mockedTotal: metrics.CounterVec("mocked_calls_total",
			"Calls answered by service downgrade (mock), by mode (force, fail) and outcome (value, business, error).",
			"service", "method", "mode", "outcome"),
		attemptsTotal: metrics.CounterVec("cluster_retries_total",
			"Provider calls a cluster strategy made beyond the first of a call (failover retries, forks, broadcast calls).",
			"service", "strategy"),
		redirectsTotal: metrics.CounterVec("cluster_redirects_total",
			"Attempts that failed before their request was sent (connection closed or refused, provider closing); failover, failfast, failsafe, failback and available then send the call to another routed provider while there is one.",
			"service"),
		connDown: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "dubboroute", Name: "provider_connections_down_total",
			Help: "Times a provider address was found down by a call that could not be sent to it (it is then not picked while another routed provider is available).",
		}),
		connUp: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "dubboroute", Name: "provider_connections_up_total",
			Help: "Times a provider address that was down accepted a probe connection again.",
		}),
		providersClosing: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "dubboroute", Name: "providers_closing_total",
			Help: "Provider invokers that announced their graceful shutdown (the closing result attachment); not picked again while another routed provider is available.",
		}),
		unknownNamesTotal: metrics.CounterVec("unknown_extension_names_total",
			"Lookups of a cluster or load balancer name dubbo-go has not registered, answered with Java's default (failover, random).",
			"kind", "name"),

		outlierEjections: metrics.CounterVec("outlier_ejections_total",
			"Providers ejected by outlier detection, by service and detector type (consecutive-5xx, consecutive-gateway, consecutive-local-origin, success-rate, failure-percentage).",
			"service", "type"),
		outlierEjected: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "dubboroute", Name: "outlier_ejected",
			Help: "1 while a provider is ejected by outlier detection, 0 once it is back in service.",
		}, []string{"service", "address"}),
		outlierOverflow: metrics.CounterVec("outlier_overflow_total",
			"Outlier detections not enforced because max ejection percent was reached.",
			"service"),
		outlierPanics: metrics.CounterVec("outlier_panic_total",
			"Calls routed to every routed provider because ejection left none (or fewer than min-health-percent).",
			"service"),
		retryAttempts: metrics.CounterVec("retry_attempts_total",
			"Retries the retry policy allowed, by service, method and the failure's category (connect, timeout, server).",
			"service", "method", "category"),
		retryDenied: metrics.CounterVec("retry_denied_total",
			"Retries the retry policy did not make, by reason (not-retryable, non-idempotent, chain-stop, budget, deadline).",
			"service", "reason"),
	}
}

// Collectors are this package's Prometheus collectors.
func Collectors() []prometheus.Collector {
	return []prometheus.Collector{met.mockedTotal, met.attemptsTotal, met.redirectsTotal, met.connDown, met.connUp, met.providersClosing, met.unknownNamesTotal,
		met.outlierEjections, met.outlierEjected, met.outlierOverflow, met.outlierPanics, met.retryAttempts, met.retryDenied}
}

func countMocked(service, method, mode, outcome string) {
	met.mockedTotal.WithLabelValues(service, method, mode, outcome).Inc()
	k := service + "." + method + " " + mode + "/" + outcome
	v, ok := met.mocked.Load(k)
	if !ok {
		v, _ = met.mocked.LoadOrStore(k, new(atomic.Uint64))
	}
	v.(*atomic.Uint64).Add(1)
}

// Mocked returns the calls answered by service downgrade since start, by
// "<service>.<method> <mode>/<outcome>" (mode force or fail; outcome
// value, business or error).
func Mocked() map[string]uint64 {
	out := map[string]uint64{}
	met.mocked.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Uint64).Load()
		return true
	})
	return out
}
