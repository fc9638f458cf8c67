package strategies

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
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

// policy is the retry policy of method (nil: Java's failover).
func (s *resilState) policy(p params, method string) *methodPolicy {
	if s == nil || !s.retryOn {
		return nil
	}
	if v, ok := s.policies.Load(method); ok {
		return v.(*methodPolicy)
	}
	mp := &methodPolicy{}
	cfg, err := retry.FromParams(func(k string) string { return p.method(method, k) })
	if err != nil {
		logOnce("retry:"+s.r.iface+method+err.Error(), "[dubboroute] %s.%s: retry policy off (Java's failover): %v", s.r.iface, method, err)
	} else if cfg.Enabled {
		pol := &retry.Policy{On: cfg.On, Idempotent: cfg.Idempotent, ChainStop: cfg.ChainStop, BackoffBase: cfg.BackoffBase, BackoffMax: cfg.BackoffMax}
		s.r.mu.Lock()
		b, ok := s.budgets[cfg.Budget]
		if !ok {
			b, _ = retry.ParseBudget(cfg.Budget) // validated by FromParams
			s.budgets[cfg.Budget] = b
		}
		s.r.mu.Unlock()
		pol.Budget = b
		mp.p = pol
		if t := p.method(method, constant.TimeoutKey); t != "" {
			if d, err := outlier.ParseDuration(t); err == nil {
				mp.perTry = d
			}
		}
	}
	v, _ := s.policies.LoadOrStore(method, mp)
	return v.(*methodPolicy)
}

// RetryGate implements strategy.RetryGate: the retry policy's gates before
// failover's retry n. Without a policy every retry is made (Java).
func (c *dgCall) RetryGate(n int, last result.Result) error {
	if c.mp == nil || c.mp.p == nil {
		return nil
	}
	cat := retry.None
	if Classify(last.Error()) == strategy.Thrown {
		cat = c.lastCat
	}
	a := retry.Attempt{Category: cat, Retried: c.retried, N: n, Remaining: -1, PerTry: c.mp.perTry}
	if dl, ok := c.ctx.Deadline(); ok {
		a.Remaining = max(time.Until(dl), 0)
	}
	wait, d := c.mp.p.Gate(a, nil)
	if d != retry.Allowed {
		met.retryDenied.WithLabelValues(c.i.iface, string(d)).Inc()
		return &retry.Error{Reason: d, Cause: c.Err(last)}
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			met.retryDenied.WithLabelValues(c.i.iface, string(retry.Deadline)).Inc()
			return &retry.Error{Reason: retry.Deadline, Cause: c.Err(last)}
		}
	}
	met.retryAttempts.WithLabelValues(c.i.iface, c.inv.MethodName(), cat.String()).Inc()
	// dubbo-go's dubbo invoker rewrites the call's timeout attachment as
	// bare milliseconds ("300"), which its own next attempt cannot parse
	// (it then waits its 3 s default): give the retry the first attempt's
	// timeout, as Java does.
	if v, ok := c.inv.GetAttachment(constant.TimeoutKey); ok {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			c.inv.SetAttachment(constant.TimeoutKey, v+"ms")
		}
	}
	// Chain stop: the retry carries its index, a lane key, so the hops it
	// reaches make no retries of their own.
	c.inv.SetAttachment(retry.ChainKey, strconv.Itoa(n))
	return nil
}

// startRetry reads the call's retry policy and whether the request being
// served was itself a retry (before this call's own retries mark it).
func (c *dgCall) startRetry(p params, method string) {
	c.mp = c.rs.policy(p, method)
	if c.mp == nil || c.mp.p == nil {
		return
	}
	c.retried = c.inv.GetAttachmentWithDefaultValue(retry.ChainKey, "") != ""
}

// doneRetry feeds the call's outcome to the budget: a success (OK or a
// business exception) gives tokens back.
func (c *dgCall) doneRetry(r result.Result) {
	if c.mp == nil || c.mp.p == nil {
		return
	}
	k := Classify(r.Error())
	c.mp.p.Done(k == strategy.OK || k == strategy.Business)
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
