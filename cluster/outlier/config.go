package outlier

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Envoy's defaults (DetectorConfig; envoy.config.cluster.v3.OutlierDetection).
const (
	DefaultConsecutive         = 5
	DefaultInterval            = 10 * time.Second
	DefaultBaseEjectionTime    = 30 * time.Second
	DefaultMaxEjectionTime     = 300 * time.Second
	DefaultMaxEjectionPercent  = 10
	DefaultSuccessRateMinHosts = 5
	DefaultSuccessRateVolume   = 100
	DefaultSuccessRateStdev    = 1900 // stdev factor × 1000
	DefaultFailurePctThreshold = 85
	DefaultFailurePctMinHosts  = 5
	DefaultFailurePctVolume    = 50
)

// Config is one reference's outlier detection. A zero threshold turns its
// detector off; the zero Config detects nothing (Enabled is false). Every
// enabled detector is enforced (Envoy's enforcing_* at 100%).
type Config struct {
	// Consecutive5xx ejects after this many consecutive failures of any
	// origin (Envoy consecutive_5xx; Istio consecutive5xxErrors).
	Consecutive5xx int
	// ConsecutiveGateway ejects after this many consecutive gateway
	// failures: connect failures and timeouts (Envoy
	// consecutive_gateway_failure; a server error resets it).
	ConsecutiveGateway int
	// ConsecutiveLocalOrigin ejects after this many consecutive
	// local-origin failures (connect failures, timeouts); read only with
	// SplitExternalLocalOrigin.
	ConsecutiveLocalOrigin int
	// SplitExternalLocalOrigin counts local-origin failures apart (Envoy
	// split_external_local_origin_errors): they no longer count in
	// Consecutive5xx, ConsecutiveGateway or the success-rate buckets.
	SplitExternalLocalOrigin bool
	// Interval is the sweep period (uneject, success rate, backoff decay).
	Interval time.Duration
	// BaseEjectionTime is the first ejection's length; each ejection while
	// the backoff has not decayed lasts a multiple of it.
	BaseEjectionTime time.Duration
	// MaxEjectionTime caps an ejection's length.
	MaxEjectionTime time.Duration
	// MaxJitter adds a random [0, MaxJitter] to each ejection.
	MaxJitter time.Duration
	// MaxEjectionPercent caps the providers ejected at once:
	// 100 × (ejected + 1) / providers must not exceed it.
	MaxEjectionPercent int
	// AlwaysEjectOne lets one provider be ejected whatever the cap.
	AlwaysEjectOne bool
	// SuccessRate enables the success-rate detector (Envoy's statistics:
	// mean − stdev × StdevFactor/1000) with its minimum hosts and request
	// volume.
	SuccessRate                                   bool
	SuccessRateMinHosts, SuccessRateRequestVolume int
	SuccessRateStdevFactor                        int
	// FailurePercentage ejects a provider whose failures in the last
	// interval reach this percentage (0: off), with its minimum hosts and
	// request volume.
	FailurePercentage                                         int
	FailurePercentageMinHosts, FailurePercentageRequestVolume int
	// MinHealthPercent is the panic floor: when fewer than this percentage
	// of a call's routed providers are left after ejection (and always when
	// none is left), the routed providers are used as they are.
	MinHealthPercent int
	// Source says where the configuration came from ("params",
	// "MESHAPPRULE"), for explain and the console.
	Source string
}

// Enabled reports whether any detector is on.
func (c Config) Enabled() bool {
	return c.Consecutive5xx > 0 || c.ConsecutiveGateway > 0 || c.SplitExternalLocalOrigin && c.ConsecutiveLocalOrigin > 0 ||
		c.SuccessRate || c.FailurePercentage > 0
}

// withDefaults fills the timing, cap and statistics fields left zero (or
// set negative).
func (c Config) withDefaults() Config {
	c.Interval = positiveOr(c.Interval, DefaultInterval)
	c.BaseEjectionTime = positiveOr(c.BaseEjectionTime, DefaultBaseEjectionTime)
	c.MaxEjectionTime = max(positiveOr(c.MaxEjectionTime, DefaultMaxEjectionTime), c.BaseEjectionTime)
	c.MaxEjectionPercent = min(positiveOr(c.MaxEjectionPercent, DefaultMaxEjectionPercent), 100)
	c.SuccessRateMinHosts = positiveOr(c.SuccessRateMinHosts, DefaultSuccessRateMinHosts)
	c.SuccessRateRequestVolume = positiveOr(c.SuccessRateRequestVolume, DefaultSuccessRateVolume)
	c.SuccessRateStdevFactor = positiveOr(c.SuccessRateStdevFactor, DefaultSuccessRateStdev)
	c.FailurePercentageMinHosts = positiveOr(c.FailurePercentageMinHosts, DefaultFailurePctMinHosts)
	c.FailurePercentageRequestVolume = positiveOr(c.FailurePercentageRequestVolume, DefaultFailurePctVolume)
	return c
}

// positiveOr is v, or def when v is not positive.
func positiveOr[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Param names (consumer URL parameters: dubbo-go YAML params, client.WithParam,
// configurators). All start with ParamPrefix.
const (
	ParamPrefix                  = "dubboroute.outlier."
	ParamConsecutiveErrors       = ParamPrefix + "consecutive-errors"
	ParamConsecutiveGateway      = ParamPrefix + "consecutive-gateway-errors"
	ParamConsecutiveLocal        = ParamPrefix + "consecutive-local-origin-failures"
	ParamSplit                   = ParamPrefix + "split-external-local-origin"
	ParamInterval                = ParamPrefix + "interval"
	ParamBaseEjectionTime        = ParamPrefix + "base-ejection-time"
	ParamMaxEjectionTime         = ParamPrefix + "max-ejection-time"
	ParamJitter                  = ParamPrefix + "jitter"
	ParamMaxEjectionPercent      = ParamPrefix + "max-ejection-percent"
	ParamAlwaysEjectOne          = ParamPrefix + "always-eject-one"
	ParamSuccessRate             = ParamPrefix + "success-rate"
	ParamSuccessRateMinHosts     = ParamPrefix + "success-rate-min-hosts"
	ParamSuccessRateVolume       = ParamPrefix + "success-rate-request-volume"
	ParamSuccessRateStdev        = ParamPrefix + "success-rate-stdev-factor"
	ParamFailurePercentage       = ParamPrefix + "failure-percentage"
	ParamFailurePercentageHosts  = ParamPrefix + "failure-percentage-min-hosts"
	ParamFailurePercentageVolume = ParamPrefix + "failure-percentage-request-volume"
	ParamMinHealthPercent        = ParamPrefix + "min-health-percent"
)

// Params lists every parameter name this package reads (for lint).
var Params = []string{
	ParamConsecutiveErrors, ParamConsecutiveGateway, ParamConsecutiveLocal, ParamSplit, ParamInterval,
	ParamBaseEjectionTime, ParamMaxEjectionTime, ParamJitter, ParamMaxEjectionPercent, ParamAlwaysEjectOne,
	ParamSuccessRate, ParamSuccessRateMinHosts, ParamSuccessRateVolume, ParamSuccessRateStdev,
	ParamFailurePercentage, ParamFailurePercentageHosts, ParamFailurePercentageVolume, ParamMinHealthPercent,
}

// FromParams reads a Config from consumer URL parameters (get returns ""
// for an absent key). ok is false when no outlier parameter is set. A
// value that does not parse is an error naming the key; the caller keeps
// the feature off for that configuration.
func FromParams(get func(string) string) (c Config, ok bool, err error) {
	r := paramReader{get: get}
	for _, f := range []struct {
		key string
		dst *int
	}{
		{ParamConsecutiveErrors, &c.Consecutive5xx}, {ParamConsecutiveGateway, &c.ConsecutiveGateway},
		{ParamConsecutiveLocal, &c.ConsecutiveLocalOrigin}, {ParamMaxEjectionPercent, &c.MaxEjectionPercent},
		{ParamSuccessRateMinHosts, &c.SuccessRateMinHosts}, {ParamSuccessRateVolume, &c.SuccessRateRequestVolume},
		{ParamSuccessRateStdev, &c.SuccessRateStdevFactor}, {ParamFailurePercentage, &c.FailurePercentage},
		{ParamFailurePercentageHosts, &c.FailurePercentageMinHosts}, {ParamFailurePercentageVolume, &c.FailurePercentageRequestVolume},
		{ParamMinHealthPercent, &c.MinHealthPercent},
	} {
		readParam(&r, f.key, f.dst, parseCount)
	}
	for _, f := range []struct {
		key string
		dst *time.Duration
	}{
		{ParamInterval, &c.Interval}, {ParamBaseEjectionTime, &c.BaseEjectionTime},
		{ParamMaxEjectionTime, &c.MaxEjectionTime}, {ParamJitter, &c.MaxJitter},
	} {
		readParam(&r, f.key, f.dst, ParseDuration)
	}
	for _, f := range []struct {
		key string
		dst *bool
	}{{ParamSplit, &c.SplitExternalLocalOrigin}, {ParamAlwaysEjectOne, &c.AlwaysEjectOne}, {ParamSuccessRate, &c.SuccessRate}} {
		readParam(&r, f.key, f.dst, parseSwitch)
	}
	if r.err != nil {
		return Config{}, true, r.err
	}
	c.Source = "params"
	return c, r.found, nil
}

// paramReader reads URL parameters into a Config: found is whether any
// was set, err the first that did not parse.
type paramReader struct {
	get   func(string) string
	found bool
	err   error
}

// readParam sets *dst from parameter key, if set, with parse; after an
// error it reads nothing more.
func readParam[T any](r *paramReader, key string, dst *T, parse func(string) (T, error)) {
	v := strings.TrimSpace(r.get(key))
	if v == "" || r.err != nil {
		return
	}
	r.found = true
	x, err := parse(v)
	if err != nil {
		r.err = fmt.Errorf("outlier parameter %s=%q: %w", key, v, err)
		return
	}
	*dst = x
}

func parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errors.New("want a non-negative integer")
	}
	return n, nil
}

func parseSwitch(v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, errors.New("want true or false")
	}
	return b, nil
}

// ParseDuration reads a Go duration ("30s", "1m30s") or a whole number of
// milliseconds ("30000"), not negative.
func ParseDuration(v string) (time.Duration, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("want a non-negative duration")
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 30s or a number of milliseconds")
	}
	return d, nil
}

// Istio is Istio's OutlierDetection message (networking.istio.io
// DestinationRule trafficPolicy.outlierDetection) as a mesh rule carries
// it; nil pointers are absent fields.
type Istio struct {
	Consecutive5xxErrors           *int
	ConsecutiveGatewayErrors       *int
	ConsecutiveLocalOriginFailures *int
	SplitExternalLocalOriginErrors bool
	Interval, BaseEjectionTime     *time.Duration
	MaxEjectionPercent             *int
	MinHealthPercent               *int
}

// FromIstio maps Istio's fields as Istio's applyOutlierDetection writes
// Envoy's: a present message enables consecutive 5xx (5 when unset, off
// when set to 0); the gateway detector only when set above 0; local-origin
// with the split (5 when unset); success rate never; maxEjectionPercent 0
// is Envoy's 10.
func FromIstio(o Istio) Config {
	c := Config{Consecutive5xx: DefaultConsecutive, Source: "MESHAPPRULE"}
	if o.Consecutive5xxErrors != nil {
		c.Consecutive5xx = max(*o.Consecutive5xxErrors, 0)
	}
	if o.ConsecutiveGatewayErrors != nil {
		c.ConsecutiveGateway = max(*o.ConsecutiveGatewayErrors, 0)
	}
	if o.SplitExternalLocalOriginErrors {
		c.SplitExternalLocalOrigin = true
		c.ConsecutiveLocalOrigin = DefaultConsecutive
		if o.ConsecutiveLocalOriginFailures != nil && *o.ConsecutiveLocalOriginFailures > 0 {
			c.ConsecutiveLocalOrigin = *o.ConsecutiveLocalOriginFailures
		}
	}
	if o.Interval != nil {
		c.Interval = *o.Interval
	}
	if o.BaseEjectionTime != nil {
		c.BaseEjectionTime = *o.BaseEjectionTime
	}
	if o.MaxEjectionPercent != nil && *o.MaxEjectionPercent > 0 {
		c.MaxEjectionPercent = *o.MaxEjectionPercent
	}
	if o.MinHealthPercent != nil {
		c.MinHealthPercent = max(*o.MinHealthPercent, 0)
	}
	return c
}
