package strategies

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/cluster/mock"
	"github.com/dubboroute/dubboroute/cluster/outlier"
	"github.com/dubboroute/dubboroute/cluster/retry"
	"github.com/dubboroute/dubboroute/cluster/strategy"
)

// Outlier ejection and the retry policy (docs/resilience.md), beyond Java
// and off unless configured: one resil per reference's cluster invoker, its
// state rebuilt (off the call path) when the chain publishes a snapshot, the
// detector kept across rebuilds while its configuration stays the same.
// This file keeps the state and outlier ejection; retrypolicy.go the retry
// policy's gates, outliers.go the report of both.

// resil is one reference's outlier detector and retry budgets.
type resil struct {
	iface string
	mu    sync.Mutex
	cur   atomic.Pointer[resilState]
}

// resilState is the resilience configuration of one snapshot.
type resilState struct {
	r      *resil
	snap   *cluster.Snapshot
	det    *outlier.Detector // nil: ejection off
	cfg    outlier.Config
	filter *outlier.Filter[base.Invoker]
	// retryOn: some dubboroute.retry.policy parameter is set (else every
	// method keeps Java's failover without looking further).
	retryOn  bool
	policies sync.Map // method → *methodPolicy
	budgets  map[string]*retry.Bucket
}

type methodPolicy struct {
	p      *retry.Policy // nil: Java's failover
	perTry time.Duration
}

func invokerAddr(ivk base.Invoker) string {
	if u := ivk.GetURL(); u != nil {
		return u.Location
	}
	return ""
}

// state is the resilience state of snap (nil snap: a join of registries,
// where each registry's own cluster invoker decides: off here).
func (rs *resil) state(snap *cluster.Snapshot) *resilState {
	if snap == nil {
		return nil
	}
	if s := rs.cur.Load(); s != nil && s.snap == snap {
		return s
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	prev := rs.cur.Load()
	if prev != nil && prev.snap == snap {
		return prev
	}
	s := &resilState{r: rs, snap: snap, budgets: map[string]*retry.Bucket{}}
	get := func(k string) string {
		if snap.Consumer == nil {
			return ""
		}
		v, _ := snap.Consumer.Params.Get(k)
		return v
	}
	cfg, ok, err := outlier.FromParams(get)
	if err != nil {
		logOnce("outlier:"+rs.iface+err.Error(), "[dubboroute] %s: outlier ejection stays off: %v", rs.iface, err)
		ok = false
	}
	if !ok {
		cfg = outlier.Config{}
		if o := meshOutlier(snap); o != nil {
			cfg = outlier.FromIstio(*o)
		}
	}
	s.cfg = cfg
	if cfg.Enabled() {
		if prev != nil && prev.det != nil && prev.cfg == cfg {
			s.det, s.filter = prev.det, prev.filter
		} else {
			s.det = outlier.New(cfg)
			s.det.OnEvent = rs.event
			s.filter = &outlier.Filter[base.Invoker]{Addr: invokerAddr}
		}
		addrs := make([]string, 0, len(snap.Invokers))
		for _, ivk := range snap.Invokers {
			addrs = append(addrs, invokerAddr(ivk))
		}
		s.det.Sync(addrs)
	}
	if snap.Consumer != nil {
		for k := range snap.Consumer.Params.All() {
			if strings.HasSuffix(k, retry.ParamPolicy) {
				s.retryOn = true
				break
			}
		}
	}
	if prev != nil {
		s.budgets = prev.budgets // budgets are per reference, kept across rebuilds
	}
	rs.cur.Store(s)
	registerResil(rs)
	return s
}

// meshOutlier is the outlierDetection of the mesh rules in force (the first
// DestinationRule carrying one, in the rules' order).
func meshOutlier(snap *cluster.Snapshot) *outlier.Istio {
	for _, ar := range snap.Rules[cluster.SlotMesh].Mesh {
		if o := ar.Rule.OutlierOf(); o != nil {
			return o
		}
	}
	return nil
}

// event logs and counts an ejection, an uneject or an overflow.
func (rs *resil) event(e outlier.Event) {
	switch {
	case e.Overflow:
		met.outlierOverflow.WithLabelValues(rs.iface).Inc()
		logger.Warnf("[dubboroute] %s: provider %s detected (%s) but not ejected: max ejection percent reached", rs.iface, e.Addr, e.Reason)
	case e.Ejected:
		met.outlierEjections.WithLabelValues(rs.iface, e.Reason.String()).Inc()
		met.outlierEjected.WithLabelValues(rs.iface, e.Addr).Set(1)
		logger.Warnf("[dubboroute] %s: provider %s ejected (%s) at %s until %s (backoff %d)", rs.iface, e.Addr, e.Reason,
			e.At.UTC().Format(time.RFC3339Nano), e.Until.UTC().Format(time.RFC3339Nano), e.Backoff)
	default:
		met.outlierEjected.WithLabelValues(rs.iface, e.Addr).Set(0)
		logger.Warnf("[dubboroute] %s: provider %s back in service at %s (was ejected for %s)", rs.iface, e.Addr, e.At.UTC().Format(time.RFC3339Nano), e.Reason)
	}
}

// filter is the step after routing and before the load balancer.
func (s *resilState) filterList(list []base.Invoker) []base.Invoker {
	if s == nil || s.det == nil {
		return list
	}
	out, panicked := s.filter.Apply(s.det, list)
	if panicked {
		met.outlierPanics.WithLabelValues(s.r.iface).Inc()
	}
	return out
}

// outcome maps one attempt's result to the detector's and the retry
// policy's views (docs/resilience.md, "What counts").
func outcome(r result.Result, notSent bool) (outlier.Result, retry.Category) {
	err := r.Error()
	if err == nil {
		return outlier.Success, retry.None
	}
	switch Classify(err) {
	case strategy.OK, strategy.Business:
		return outlier.Success, retry.None
	case strategy.ResultRPC:
		// A status the provider answered (triple wire status, a Java
		// RpcException in the body): never retried (Java), counts as a
		// server error for ejection.
		return outlier.ServerError, retry.None
	case strategy.ThrownBiz:
		return outlier.Success, retry.None
	}
	var np *cluster.NoProviderError
	var me *mock.Error
	var se *strategy.Error
	if errors.As(err, &np) || errors.As(err, &me) || errors.As(err, &se) || errors.Is(err, context.Canceled) {
		return outlier.Ignored, retry.None
	}
	if notSent {
		if strings.Contains(err.Error(), providerClosingText) {
			return outlier.Ignored, retry.Connect // a graceful shutdown, not an outlier
		}
		return outlier.ConnectFailed, retry.Connect
	}
	if codeOf(err) == strategy.CodeTimeout {
		return outlier.Timeout, retry.Timeout
	}
	if strings.HasPrefix(err.Error(), "java exception:") {
		return outlier.ServerError, retry.Server
	}
	if NotSent(err) {
		return outlier.ConnectFailed, retry.Connect
	}
	return outlier.ServerError, retry.Server
}

// record counts one attempt in the detector and the retry budget.
func (c *dgCall) record(ivk base.Invoker, r result.Result, notSent bool) {
	s := c.rs
	if s == nil || s.det == nil && (c.mp == nil || c.mp.p == nil) {
		return // both off: nothing to classify
	}
	o, cat := outcome(r, notSent)
	if s.det != nil {
		s.det.Record(invokerAddr(ivk), o)
	}
	if c.mp != nil && c.mp.p != nil && cat != retry.None {
		c.lastCat = cat
		if !notSent {
			c.mp.p.Failed(cat)
		}
	}
}

// logged are the keys of the warnings logOnce has logged. Package state
// because the invokers that warn are made by dubbo-go's cluster registry,
// which passes no context, and a warning is once per process.
var logged sync.Map // key → true

// logOnce logs a warning the first time its key is seen in the process.
func logOnce(key, format string, a ...any) {
	if _, dup := logged.LoadOrStore(key, true); !dup {
		logger.Warnf(format, a...)
	}
}
