package strategies

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/cluster/directory"
	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/cluster/mock"
	"github.com/dubboroute/dubboroute/cluster/retry"
	"github.com/dubboroute/dubboroute/cluster/strategy"
	"github.com/dubboroute/dubboroute/extension/balancers"
)

// Routing is implemented by a directory dubboroute bound (extension's
// consumer installation): its snapshot (which holds the configured consumer
// URL), and the routed providers of a call or a *cluster.NoProviderError
// carrying the call's trace. A directory without it (a join of
// registries) is listed through dubbo-go's List.
type Routing interface {
	Snapshot() *cluster.Snapshot
	Routed(inv base.Invocation) ([]base.Invoker, error)
}

// invoker is one reference's cluster invoker: mock around a strategy.
type invoker struct {
	strategy string
	dir      directory.Directory
	sel      *strategy.Selector[base.Invoker]
	fb       *strategy.Failback
	iface    string

	health    *health // provider connections (nil for zone-aware)
	res       resil   // outlier ejection and retry policy (resilience.go)
	invalidMu sync.Mutex
	invalid   map[base.Invoker]struct{} // Java's invalidated invokers (unavailable picks)
}

func newInvoker(name string, dir directory.Directory) *invoker {
	i := &invoker{strategy: name, dir: dir, sel: strategy.NewSelector[base.Invoker](), fb: &strategy.Failback{}}
	if u := dir.GetURL(); u != nil {
		// cluster.availablecheck is read from the directory (registry) URL.
		i.sel.AvailableCheck = !strings.EqualFold(u.GetParam("cluster.availablecheck", "true"), "false")
		ref := u
		if u.SubURL != nil {
			ref = u.SubURL
		}
		i.iface = ref.GetParam(constant.InterfaceKey, ref.Service())
	}
	i.res.iface = i.iface
	i.sel.Invalidate = i.invalidate
	if name != "zone-aware" {
		// Zone-aware selects among registries' cluster invokers, not
		// providers: their availability is their directory's.
		i.health = connHealth
		i.sel.Avail = connHealth.available
	}
	return i
}

// GetURL implements common.Node.
func (i *invoker) GetURL() *common.URL { return i.dir.GetURL() }

// IsAvailable implements common.Node.
func (i *invoker) IsAvailable() bool { return i.dir.IsAvailable() }

// Destroy implements common.Node.
func (i *invoker) Destroy() { resils.Delete(&i.res); i.dir.Destroy() }

func (i *invoker) invalidate(ivk base.Invoker) {
	i.invalidMu.Lock()
	if i.invalid == nil {
		i.invalid = map[base.Invoker]struct{}{}
	}
	i.invalid[ivk] = struct{}{}
	i.invalidMu.Unlock()
}

// params is the configured consumer URL of the call (chain snapshot), or
// the reference URL.
type params struct {
	snap *cluster.Snapshot
	ref  *common.URL
}

func (p params) Param(k string) string {
	if p.snap != nil && p.snap.Consumer != nil {
		v, _ := p.snap.Consumer.Params.Get(k)
		return v
	}
	if p.ref != nil {
		return p.ref.GetParam(k, "")
	}
	return ""
}

func (p params) method(m, k string) string {
	for _, key := range [...]string{m + "." + k, "methods." + m + "." + k, k} {
		if v := p.Param(key); v != "" {
			return v
		}
	}
	return ""
}

func (p params) int(k string, def int) int {
	if n, err := strconv.Atoi(strings.TrimSpace(p.Param(k))); err == nil {
		return n
	}
	return def
}

func (i *invoker) params() params {
	if r, ok := i.dir.(Routing); ok {
		return params{snap: r.Snapshot()}
	}
	u := i.dir.GetURL()
	if u != nil && u.SubURL != nil {
		u = u.SubURL
	}
	return params{ref: u}
}

// Invoke implements base.Invoker: Java's MockClusterInvoker around the
// strategy.
func (i *invoker) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	p := i.params()
	method := inv.ActualMethodName()
	call := &dgCall{i: i, ctx: ctx, inv: inv}
	run := func() result.Result { return i.run(call, p, method) }
	value := mock.ValueOf(p, method)
	if value == "" || p.snap == nil {
		// No mock, or a join of registries (each registry's own cluster
		// invoker mocks).
		return run()
	}
	r, mode, mocked := mockInvoke(value, call, run, func(cause error) result.Result {
		return i.degrade(value, cause, inv)
	})
	if mocked {
		outcome := "value"
		switch Classify(r.Error()) {
		case strategy.Business:
			outcome = "business"
		case strategy.OK:
		default:
			outcome = "error"
		}
		countMocked(i.iface, method, mode.String(), outcome)
		logger.Debugf("[dubboroute] %s.%s mocked (%s, %s): %s", i.iface, method, mode, value, outcome)
		if r.Attachments() == nil {
			r.SetAttachments(map[string]any{})
		}
		r.AddAttachment(MockedAttachment, mode.String())
	}
	return r
}

func mockInvoke(value string, c *dgCall, run func() result.Result, degrade func(error) result.Result) (result.Result, mock.Mode, bool) {
	return mock.Invoke(value, c.Kind, c.Err, run, degrade)
}

// MockedAttachment is the result attachment that marks a mocked call
// (value "force" or "fail").
const MockedAttachment = "dubboroute.mocked"

// degrade answers a call from its mock.
func (i *invoker) degrade(value string, cause error, inv base.Invocation) result.Result {
	var typ reflect.Type
	reply := inv.Reply()
	rv := reflect.ValueOf(reply)
	if reply != nil && rv.Kind() == reflect.Pointer && !rv.IsNil() {
		typ = rv.Elem().Type()
	}
	o := mock.Run(value, cause, mock.Call{Interface: i.iface, Method: inv.MethodName(), Args: inv.Arguments(), Type: typ})
	if o.Err != nil {
		return &result.RPCResult{Err: o.Err}
	}
	if !o.Value.Null && typ != nil && o.Value.V != nil {
		v := reflect.ValueOf(o.Value.V)
		switch {
		case v.Type().AssignableTo(typ):
			rv.Elem().Set(v)
		case v.Type().ConvertibleTo(typ):
			rv.Elem().Set(v.Convert(typ))
		case v.Kind() == reflect.Pointer && v.Elem().Type().AssignableTo(typ):
			rv.Elem().Set(v.Elem())
		default:
			return &result.RPCResult{Err: &mock.Error{Msg: fmt.Sprintf("mock value %T does not fit the reply %v", o.Value.V, typ), Invoke: cause}}
		}
	}
	return &result.RPCResult{Rest: reply}
}

// run is AbstractClusterInvoker.invoke: route, then the strategy.
func (i *invoker) run(c *dgCall, p params, method string) result.Result {
	c.rs = i.res.state(p.snap)
	invokers, err := c.List()
	if err != nil {
		return &result.RPCResult{Err: err}
	}
	defer func() {
		if c.redirects > 0 {
			met.redirectsTotal.WithLabelValues(i.iface).Add(float64(c.redirects))
		}
	}()
	c.lb = LoadBalance(lbName(invokers[0], p, method))
	sticky := strings.EqualFold(p.method(method, constant.StickyKey), "true") ||
		(p.method(method, constant.StickyKey) == "" && invokers[0].GetURL() != nil && invokers[0].GetURL().GetParamBool(constant.StickyKey, false))
	switch i.strategy {
	case "failfast":
		return strategy.Failfast(c, i.sel, invokers, sticky)
	case "failsafe":
		return strategy.Failsafe(c, i.sel, invokers, sticky)
	case "failback":
		i.fb.Retries = p.int(constant.RetriesKey, strategy.DefaultFailbackTimes)
		i.fb.Tasks = p.int("failbacktasks", strategy.DefaultFailbackTasks)
		c.detach = true
		r, _ := strategy.FailbackInvoke(i.fb, c, i.sel, invokers, sticky)
		return r
	case "forking":
		timeout := time.Duration(p.int(constant.TimeoutKey, strategy.DefaultForkTimeout)) * time.Millisecond
		if d, err := time.ParseDuration(p.Param(constant.TimeoutKey)); err == nil {
			timeout = d // dubbo-go writes durations ("3s")
		}
		r := strategy.Forking(c, i.sel, invokers, p.int("forks", strategy.DefaultForks), timeout, sticky, nil)
		met.attemptsTotal.WithLabelValues(i.iface, "forking").Add(float64(max(len(invokers)-1, 0)))
		return r
	case "broadcast":
		return strategy.Broadcast(c, invokers, p.int("broadcast.fail.percent", strategy.DefaultFailPercent))
	case "available":
		return strategy.Available(c, i.sel, invokers)
	case "mergeable":
		return strategy.Mergeable(c, invokers, mergerOf(p, c.inv.MethodName()))
	case "zone-aware":
		zone, force := zoneOf(c.inv)
		return strategy.ZoneAware(c, i.sel, invokers, zoneInfo, zone, force, sticky)
	}
	retries := strategy.DefaultRetries
	if v := p.method(method, constant.RetriesKey); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			retries = n
		}
	}
	n, attached := retriesAttachment(c.inv)
	attempts := strategy.Attempts(retries, n, attached)
	c.startRetry(p, method)
	r := strategy.Failover(c, i.sel, invokers, attempts, sticky)
	c.doneRetry(r)
	if c.calls > 1 {
		met.attemptsTotal.WithLabelValues(i.iface, "failover").Add(float64(c.calls - 1))
	}
	var se *strategy.Error
	if err := r.Error(); err != nil && errors.As(err, &se) && se.Strategy == "failover" && se.Tried > 0 {
		// dubbo-go's failover log line, so that existing log readers keep
		// working (retries = attempts - 1).
		logger.Errorf("[Cluster][Failover] invoke failed after retries, method=%s service=%s retries=%d providers=%d/%d lastErr=%v",
			method, i.iface, se.Tried-1, se.Providers, se.Of, se.Cause)
	}
	return r
}

// retriesAttachment is Java's numeric client attachment retries (a Go
// integer in the call's attachments; strings are ignored, as Java does),
// removed so that it is not sent.
func retriesAttachment(inv base.Invocation) (int, bool) {
	atts := inv.Attachments()
	v, ok := atts[constant.RetriesKey]
	if !ok {
		return 0, false
	}
	var n int
	switch x := v.(type) {
	case int:
		n = x
	case int32:
		n = int(x)
	case int64:
		n = int(x)
	case uint:
		n = int(x)
	case float64:
		n = int(x)
	default:
		return 0, false
	}
	delete(atts, constant.RetriesKey)
	return n, true
}

func mergerOf(p params, rawMethod string) string {
	v := p.method(rawMethod, "merger")
	if mock.IsEmpty(v) {
		return ""
	}
	return v
}

// lbName is Java's initLoadBalance: the first invoker's method parameter
// loadbalance (dubbo-go's URL: the consumer's name applied by the
// binding), default random.
func lbName(first base.Invoker, p params, method string) string {
	if u := first.GetURL(); u != nil {
		if v := u.GetParam("methods."+method+"."+constant.LoadbalanceKey, ""); v != "" {
			return v
		}
		if v := u.GetParam(method+"."+constant.LoadbalanceKey, ""); v != "" {
			return v
		}
		if v := u.GetParam(constant.LoadbalanceKey, ""); v != "" {
			return v
		}
	}
	if v := p.method(method, constant.LoadbalanceKey); v != "" {
		return v
	}
	return constant.LoadBalanceKeyRandom
}

// zoneInfo is how the zone-aware strategy reads a dubbo-go invoker's
// preference and zone. Stateless: a variable only because Go has no
// constants of struct type.
var zoneInfo = strategy.ZoneInfo[base.Invoker]{
	Preferred: func(ivk base.Invoker) bool {
		u := ivk.GetURL()
		return u != nil && (u.GetParamBool("preferred", false) || u.GetParamBool("registry.preferred", false))
	},
	Zone: func(ivk base.Invoker) string {
		u := ivk.GetURL()
		if u == nil {
			return ""
		}
		if z := u.GetParam("zone", ""); z != "" {
			return z
		}
		return u.GetParam("registry.zone", "")
	},
}

// zoneOf reads the call's zone: Java's registry_zone / registry_zone_force
// attachments, or dubbo-go's registry.zone / registry.zone.force.
func zoneOf(inv base.Invocation) (string, bool) {
	zone := inv.GetAttachmentWithDefaultValue("registry_zone", "")
	if zone == "" {
		zone = inv.GetAttachmentWithDefaultValue("registry.zone", "")
	}
	force := inv.GetAttachmentWithDefaultValue("registry_zone_force", "")
	if force == "" {
		force = inv.GetAttachmentWithDefaultValue("registry.zone.force", "")
	}
	return zone, strings.EqualFold(force, "true")
}

// dgCall is strategy.Call over dubbo-go.
type dgCall struct {
	i         *invoker
	ctx       context.Context
	inv       base.Invocation
	lb        loadbalance.LoadBalance
	detach    bool // failback: retries run after the caller returned
	calls     int
	redirects int // attempts that were not sent

	rs      *resilState   // nil: no snapshot (a join of registries)
	mp      *methodPolicy // the method's retry policy (nil: Java's failover)
	retried bool          // the served request was a retry (chain stop)
	lastCat retry.Category
}

// List implements strategy.Call: dubboroute's chain, minus the
// invalidated invokers that are still unavailable.
func (c *dgCall) List() ([]base.Invoker, error) {
	var list []base.Invoker
	if r, ok := c.i.dir.(Routing); ok {
		var err error
		if list, err = r.Routed(c.inv); err != nil {
			return nil, err
		}
	} else {
		list = c.i.dir.List(c.inv)
	}
	if len(list) == 0 {
		return nil, &rpcError{err: fmt.Errorf("dubboroute: no provider available for %s.%s", c.i.iface, c.inv.MethodName()), code: strategy.CodeNoInvoker}
	}
	if c.i.strategy != "broadcast" {
		list = c.rs.filterList(list) // outlier ejection: after routing, before the balancer
	}
	c.i.invalidMu.Lock()
	defer c.i.invalidMu.Unlock()
	if len(c.i.invalid) == 0 {
		return list, nil
	}
	for ivk := range c.i.invalid {
		if ivk.IsAvailable() {
			delete(c.i.invalid, ivk) // Java's reconnect task revives it
		}
	}
	out := make([]base.Invoker, 0, len(list))
	for _, ivk := range list {
		if _, bad := c.i.invalid[ivk]; !bad {
			out = append(out, ivk)
		}
	}
	if len(out) == 0 {
		return nil, &rpcError{err: fmt.Errorf("dubboroute: no provider available for %s.%s: every routed provider is unavailable", c.i.iface, c.inv.MethodName()), code: strategy.CodeNoInvoker}
	}
	return out, nil
}

// Invoke implements strategy.Call.
func (c *dgCall) Invoke(ivk base.Invoker) result.Result {
	c.calls++
	ctx := c.ctx
	if c.detach && c.calls > 1 {
		ctx = context.WithoutCancel(ctx)
	}
	// Counted as Java's ActiveLimitFilter counts (leastactive and
	// shortestresponse read the counters): a business exception is a
	// success.
	st := balancers.Counted(ivk, balancers.Method(c.inv))
	var begin time.Time
	if st != nil {
		begin = time.Now()
		st.Begin()
	}
	r := ivk.Invoke(ctx, c.inv)
	if st != nil {
		ok := false
		if r != nil {
			k := Classify(r.Error())
			ok = k == strategy.OK || k == strategy.Business
		}
		st.End(time.Since(begin).Milliseconds(), ok)
	}
	if r == nil {
		return &result.RPCResult{Err: &rpcError{err: fmt.Errorf("provider %s returned no result", ivk.GetURL().Location), code: strategy.CodeUnknown}}
	}
	ns := false
	if c.i.health != nil {
		ns = c.notSent(r)
		if ns {
			c.redirects++
		}
		c.i.health.observe(ivk, r, ns)
	}
	c.record(ivk, r, ns)
	return r
}

func (c *dgCall) notSent(r result.Result) bool {
	err := r.Error()
	return err != nil && Classify(err) == strategy.Thrown && NotSent(err)
}

// NotSent implements strategy.Redirector: a call that failed before its
// request was sent is sent to another routed provider. Not for failback's
// background retries (detached) nor zone-aware (registries, not
// providers).
func (c *dgCall) NotSent(r result.Result) bool {
	if c.i.health == nil || c.detach && c.calls > 1 {
		return false
	}
	return c.notSent(r)
}

// Kind implements strategy.Call.
func (c *dgCall) Kind(r result.Result) strategy.Kind { return Classify(r.Error()) }

// Err implements strategy.Call: a failed call's error carries its Java code.
func (c *dgCall) Err(r result.Result) error {
	err := r.Error()
	if err == nil {
		return nil
	}
	var cd strategy.Coder
	if asCoder(err, &cd) {
		return err
	}
	return &rpcError{err: err, code: codeOf(err)}
}

// Pick implements strategy.Call.
func (c *dgCall) Pick(list []base.Invoker) base.Invoker {
	if len(list) == 1 {
		return list[0]
	}
	return c.lb.Select(list, c.inv)
}

// Fail implements strategy.Call.
func (c *dgCall) Fail(e *strategy.Error) result.Result {
	e.Msg = c.i.iface + "." + c.inv.MethodName() + ": " + e.Msg
	return &result.RPCResult{Err: e}
}

// Empty implements strategy.Call.
func (c *dgCall) Empty() result.Result { return &result.RPCResult{} }
