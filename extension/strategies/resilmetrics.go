package strategies

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension/internal/metrics"
)

var (
	outlierEjections = metrics.CounterVec("outlier_ejections_total",
		"Providers ejected by outlier detection, by service and detector type (consecutive-5xx, consecutive-gateway, consecutive-local-origin, success-rate, failure-percentage).",
		"service", "type")
	outlierEjected = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "dubboroute", Name: "outlier_ejected",
		Help: "1 while a provider is ejected by outlier detection, 0 once it is back in service.",
	}, []string{"service", "address"})
	outlierOverflow = metrics.CounterVec("outlier_overflow_total",
		"Outlier detections not enforced because max ejection percent was reached.",
		"service")
	outlierPanics = metrics.CounterVec("outlier_panic_total",
		"Calls routed to every routed provider because ejection left none (or fewer than min-health-percent).",
		"service")
	retryAttempts = metrics.CounterVec("retry_attempts_total",
		"Retries the retry policy allowed, by service, method and the failure's category (connect, timeout, server).",
		"service", "method", "category")
	retryDenied = metrics.CounterVec("retry_denied_total",
		"Retries the retry policy did not make, by reason (not-retryable, non-idempotent, chain-stop, budget, deadline).",
		"service", "reason")
)

var resilCollectors = []prometheus.Collector{outlierEjections, outlierEjected, outlierOverflow, outlierPanics, retryAttempts, retryDenied}
