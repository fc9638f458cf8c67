package strategies

import "github.com/prometheus/client_golang/prometheus"

var (
	outlierEjections = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "outlier_ejections_total",
		Help: "Providers ejected by outlier detection, by service and detector type (consecutive-5xx, consecutive-gateway, consecutive-local-origin, success-rate, failure-percentage).",
	}, []string{"service", "type"})
	outlierEjected = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "dubboroute", Name: "outlier_ejected",
		Help: "1 while a provider is ejected by outlier detection, 0 once it is back in service.",
	}, []string{"service", "address"})
	outlierOverflow = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "outlier_overflow_total",
		Help: "Outlier detections not enforced because max ejection percent was reached.",
	}, []string{"service"})
	outlierPanics = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "outlier_panic_total",
		Help: "Calls routed to every routed provider because ejection left none (or fewer than min-health-percent).",
	}, []string{"service"})
	retryAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "retry_attempts_total",
		Help: "Retries the retry policy allowed, by service, method and the failure's category (connect, timeout, server).",
	}, []string{"service", "method", "category"})
	retryDenied = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "dubboroute", Name: "retry_denied_total",
		Help: "Retries the retry policy did not make, by reason (not-retryable, non-idempotent, chain-stop, budget, deadline).",
	}, []string{"service", "reason"})
)

var resilCollectors = []prometheus.Collector{outlierEjections, outlierEjected, outlierOverflow, outlierPanics, retryAttempts, retryDenied}
