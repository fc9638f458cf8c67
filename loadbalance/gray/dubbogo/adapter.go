package dubbogo

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/loadbalance/listcache"
	"github.com/dubboroute/dubboroute/router"
)

// RetryAttribute is the invocation attribute (per call, never sent on the
// wire) in which LoadBalance remembers a call's gray classification, so
// that failover retries reuse it instead of drawing again.
const RetryAttribute = "dubboroute.request"

// maxStatusMethods bounds the per-plan cache of dubbo-go RPCStatus lookups
// for leastactive and p2c; beyond it lookups go to dubbo-go each time.
const maxStatusMethods = 256

// LoadBalance is the gray balancer as a dubbo-go
// cluster/loadbalance.LoadBalance. Register it with
// extension.SetLoadbalance("gray", func() loadbalance.LoadBalance { return lb })
// (the extension package does). It is safe for concurrent use.
type LoadBalance struct {
	opts  gray.Options
	rules atomic.Pointer[ruleSet]
	mu    sync.Mutex // serialises rule writers
	// cache holds the plan of each routed list (listcache: keyed by the
	// list's identity, listcache.Slots entries).
	cache listcache.Cache[*cacheEntry]
	// compiles counts plan compilations (cache misses), for tests and metrics.
	compiles atomic.Uint64
	// stamp: write percentage decisions into the call's attachments.
	stamp atomic.Bool
	// sign, when set, is called after a decision is stamped (see
	// SetDecisionSigner).
	sign atomic.Pointer[func(inv base.Invocation, decision string)]
}

type ruleSet struct {
	gen   uint64
	byApp map[string]*gray.Rule
	// keys are the attachments the rules (and the default user list) read.
	keys []string
}

type cacheEntry struct {
	firstURL *common.URL
	gen      uint64 // the rule set's generation the plan was compiled with
	plan     *gray.Plan
	fail     *failInvoker // lazily built, see failFor
	failMu   sync.Mutex
}

// New makes a LoadBalance with the given options (the zero Options are
// seed 002's defaults).
func New(opts gray.Options) *LoadBalance {
	lb := &LoadBalance{opts: opts.WithDefaults()}
	lb.rules.Store(&ruleSet{byApp: map[string]*gray.Rule{}, keys: []string{lb.opts.UserKey}})
	return lb
}

// SetStampDecisions turns on (or off) writing percentage decisions into
// the calls: when a request rule with a percentage strictly between 0 and
// 100 classifies a call, the attachment Options.DecisionKey ("gray" or
// "normal") is set on it, so that it travels to the provider and, with a
// full-link lane, to every later hop, whose gray balancers honour it
// instead of deciding again. Off by default; the extension package turns it
// on with its lanes.
func (lb *LoadBalance) SetStampDecisions(on bool) { lb.stamp.Store(on) }

// SetDecisionSigner installs a function called with every decision the
// balancer stamps into a call (after it is set), e.g. to add a signature
// attachment; nil removes it.
func (lb *LoadBalance) SetDecisionSigner(f func(inv base.Invocation, decision string)) {
	if f == nil {
		lb.sign.Store(nil)
		return
	}
	lb.sign.Store(&f)
}

// StampsDecisions reports whether SetStampDecisions is on.
func (lb *LoadBalance) StampsDecisions() bool { return lb.stamp.Load() }

// Options are the balancer's options, defaults filled in.
func (lb *LoadBalance) Options() gray.Options { return lb.opts }

// RuleAttachmentKeys are the attachments the rules in force classify on:
// those named by any application's request rules plus the user key of the
// default user list, sorted. The slice is shared: do not modify it.
func (lb *LoadBalance) RuleAttachmentKeys() []string { return lb.rules.Load().keys }

// SetRule installs the gray rule of a provider application (the value of
// <app>.gray-router); nil removes it, returning the app to the defaults.
// Plans compiled under the previous rules are dropped lazily.
func (lb *LoadBalance) SetRule(app string, r *gray.Rule) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	old := lb.rules.Load()
	next := &ruleSet{gen: old.gen + 1, byApp: make(map[string]*gray.Rule, len(old.byApp)+1)}
	for k, v := range old.byApp {
		next.byApp[k] = v
	}
	if r == nil {
		delete(next.byApp, app)
	} else {
		next.byApp[app] = r
	}
	seen := map[string]bool{lb.opts.UserKey: true}
	next.keys = []string{lb.opts.UserKey}
	for _, rule := range next.byApp {
		for _, k := range rule.AttachmentKeys() {
			if !seen[k] {
				seen[k] = true
				next.keys = append(next.keys, k)
			}
		}
	}
	sort.Strings(next.keys)
	lb.rules.Store(next)
}

// SetRuleText parses content and installs it for app. Blank content (the
// config-center node was deleted or emptied) removes the rule. A rule that
// fails to parse is rejected whole: the error names the key and line, and
// the previous rule stays in force.
func (lb *LoadBalance) SetRuleText(app, content string) error {
	if strings.TrimSpace(content) == "" {
		lb.SetRule(app, nil)
		return nil
	}
	r, err := gray.ParseRule(content)
	if err != nil {
		return fmt.Errorf("%s.gray-router: %w (previous rule kept)", app, err)
	}
	lb.SetRule(app, r)
	return nil
}

// Rule returns the rule in force for app, or nil.
func (lb *LoadBalance) Rule(app string) *gray.Rule { return lb.rules.Load().byApp[app] }

// Plan compiles, outside the cache and without counting it in Compiles, the
// plan Select would use for invokers under the rules in force now: for
// explaining a pick (which providers are gray, which request rule matches)
// without touching the live balancer's state. Nil for an empty list.
func (lb *LoadBalance) Plan(invokers []base.Invoker) *gray.Plan {
	if len(invokers) == 0 {
		return nil
	}
	return lb.build(invokers, lb.rules.Load()).plan
}

// Compiles is the number of plans compiled so far (cache misses).
func (lb *LoadBalance) Compiles() uint64 { return lb.compiles.Load() }

// Select implements dubbo-go's loadbalance.LoadBalance. With a slice it
// has seen before (same backing array and length, same rules) it allocates
// nothing; with a new slice it compiles a plan first. It never returns nil
// for a non-empty list: when no provider may take the call (fallback: fail,
// or every provider gray for a normal request) it returns an invoker whose
// Invoke fails with the reason, because dubbo-go's cluster invokers call
// methods on whatever Select returns.
func (lb *LoadBalance) Select(invokers []base.Invoker, inv base.Invocation) base.Invoker {
	return lb.selectInto(invokers, inv, nil)
}

// Explain is Select that also returns the decision.
func (lb *LoadBalance) Explain(invokers []base.Invoker, inv base.Invocation) (base.Invoker, gray.Decision) {
	var d gray.Decision
	ivk := lb.selectInto(invokers, inv, &d)
	return ivk, d
}

func (lb *LoadBalance) selectInto(invokers []base.Invoker, inv base.Invocation, d *gray.Decision) base.Invoker {
	switch len(invokers) {
	case 0:
		if d != nil {
			*d = gray.Decision{Rule: -1, Bucket: -1, Draw: -1, Chosen: -1, Reason: "empty provider list"}
		}
		return nil
	case 1:
		// dubbo-go never calls a balancer with one invoker; Java returns it
		// without doSelect. Do the same when called directly.
		if d != nil {
			*d = gray.Decision{Rule: -1, Bucket: -1, Draw: -1, Chosen: 0, Shortcut: true, Reason: "single provider"}
		}
		return invokers[0]
	}
	e := lb.entry(invokers)
	var call router.Call
	isGray, prior := false, false
	if inv != nil {
		call = router.Call{Method: inv.ActualMethodName(), Args: realArguments(inv), Attachments: inv}
		if v, ok := inv.GetAttribute(RetryAttribute); ok {
			isGray, prior = v.(bool)
		}
	}
	if prior {
		if d != nil {
			*d = gray.Decision{Rule: -1, Bucket: -1, Draw: -1, Chosen: -1, Gray: isGray, Retry: true,
				Reason: "retry: classification of the first attempt reused"}
		}
	} else {
		var carry bool
		isGray, carry = e.plan.ClassifyLane(&call, d)
		if inv != nil {
			inv.SetAttribute(RetryAttribute, isGray)
			if carry && lb.stamp.Load() {
				v := gray.DecisionNormal
				if isGray {
					v = gray.DecisionGray
				}
				inv.SetAttachment(lb.opts.DecisionKey, v)
				if f := lb.sign.Load(); f != nil {
					(*f)(inv, v)
				}
			}
		}
	}
	i, err := e.plan.PickClass(isGray, &call, d)
	if err != nil {
		return e.failFor(err)
	}
	return invokers[i]
}

// realArguments are the arguments as Java's RpcUtils.getArguments sees
// them: for generic $invoke/$invokeAsync calls the third argument's list.
func realArguments(inv base.Invocation) []any {
	args := inv.Arguments()
	if m := inv.MethodName(); (m == "$invoke" || m == "$invokeAsync") && len(args) == 3 {
		if real, ok := args[2].([]any); ok {
			return real
		}
	}
	return args
}

// entry finds or compiles the plan for a slice (a plan compiled under an
// older rule set is compiled again).
func (lb *LoadBalance) entry(invokers []base.Invoker) *cacheEntry {
	rs := lb.rules.Load()
	if e, ok := lb.cache.Get(invokers); ok && e.gen == rs.gen {
		return e
	}
	e := lb.compile(invokers, rs)
	lb.cache.Put(invokers, e)
	return e
}

func (lb *LoadBalance) compile(invokers []base.Invoker, rs *ruleSet) *cacheEntry {
	lb.compiles.Add(1)
	return lb.build(invokers, rs)
}

func (lb *LoadBalance) build(invokers []base.Invoker, rs *ruleSet) *cacheEntry {
	n := len(invokers)
	urls := make([]*router.URL, n)
	curls := make([]*common.URL, n)
	for i, ivk := range invokers {
		if ivk == nil {
			continue
		}
		if cu := ivk.GetURL(); cu != nil {
			curls[i] = cu
			urls[i] = toRouterURL(cu)
		}
	}
	var app string
	var consumer *router.URL
	for _, u := range urls {
		if u != nil {
			// In registry mode an invoker URL is the provider URL merged
			// with the reference URL: application is the provider app and
			// the consumer's own parameters (grayUserids) fill the gaps.
			app, consumer = u.Params.Value("application"), u
			break
		}
	}
	in := gray.Input{Rule: rs.byApp[app], Consumer: consumer, Providers: urls, Active: &statusCounter{urls: curls}}
	return &cacheEntry{
		firstURL: curls[0], gen: rs.gen, plan: gray.Compile(in, lb.opts),
	}
}

// toRouterURL converts a dubbo-go URL. dubbo-go's MergeURL marks a provider
// that published no timestamp with an empty remote.timestamp and copies the
// consumer's timestamp into timestamp; that one must not drive warm-up.
func toRouterURL(cu *common.URL) *router.URL {
	u := &router.URL{Protocol: cu.Protocol, Username: cu.Username, Password: cu.Password,
		Host: cu.Ip, Path: strings.TrimPrefix(cu.Path, "/")}
	port := cu.Port
	if u.Host == "" && cu.Location != "" {
		if h, p, err := net.SplitHostPort(cu.Location); err == nil {
			u.Host, port = h, p
		} else {
			u.Host = cu.Location
		}
	}
	if p, err := strconv.Atoi(port); err == nil && p > 0 && p <= 65535 {
		u.Port = p
	}
	for k, vs := range cu.CopyParams() {
		if len(vs) > 0 {
			u.Params.Set(k, vs[0])
		}
	}
	if rt, ok := u.Params.Get("remote.timestamp"); ok && rt == "" {
		u.Params.Delete("timestamp")
	}
	return u
}

// statusCounter reads dubbo-go's active counts (maintained by its "active"
// filter) for leastactive and p2c. base.GetMethodStatus builds a string key
// per lookup, so the *RPCStatus of every provider is cached per method the
// first time the method is seen. base.CleanAllStatus (tests only) makes the
// cached pointers stale.
type statusCounter struct {
	urls     []*common.URL
	byMethod atomic.Pointer[map[string][]*base.RPCStatus]
	mu       sync.Mutex
}

// Active implements ActiveCounter.
func (s *statusCounter) Active(i int, method string) int64 {
	if i < 0 || i >= len(s.urls) || s.urls[i] == nil {
		return 0
	}
	if m := s.byMethod.Load(); m != nil {
		if st, ok := (*m)[method]; ok {
			return int64(st[i].GetActive())
		}
	}
	return int64(s.statuses(method, i).GetActive())
}

func (s *statusCounter) statuses(method string, i int) *base.RPCStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	var old map[string][]*base.RPCStatus
	if m := s.byMethod.Load(); m != nil {
		if st, ok := (*m)[method]; ok {
			return st[i]
		}
		old = *m
	}
	if len(old) >= maxStatusMethods {
		return base.GetMethodStatus(s.urls[i], method)
	}
	st := make([]*base.RPCStatus, len(s.urls))
	for k, u := range s.urls {
		if u != nil {
			st[k] = base.GetMethodStatus(u, method)
		} else {
			st[k] = &base.RPCStatus{}
		}
	}
	next := make(map[string][]*base.RPCStatus, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[method] = st
	s.byMethod.Store(&next)
	return st[i]
}

// failInvoker is what Select returns when no provider may take the call:
// dubbo-go's cluster invokers dereference the selected invoker, so nil
// would panic them. It is available (so it is not blacklisted) and every
// Invoke fails with the reason.
type failInvoker struct {
	url *common.URL
	err error
}

func (e *cacheEntry) failFor(err error) base.Invoker {
	e.failMu.Lock()
	defer e.failMu.Unlock()
	if e.fail != nil && e.fail.err.Error() == err.Error() {
		return e.fail
	}
	path, iface := "", ""
	if u := e.firstURL; u != nil {
		path, iface = u.Path, u.GetParam("interface", "")
	}
	e.fail = &failInvoker{
		url: common.NewURLWithOptions(common.WithProtocol("gray-unavailable"), common.WithIp("0.0.0.0"),
			common.WithPort("0"), common.WithPath(path), common.WithParamsValue("interface", iface)),
		err: err,
	}
	return e.fail
}

// GetURL implements common.Node.
func (f *failInvoker) GetURL() *common.URL { return f.url }

// IsAvailable implements common.Node; true so the cluster invoker reports
// the reason instead of blacklisting a placeholder.
func (f *failInvoker) IsAvailable() bool { return true }

// Destroy implements common.Node.
func (f *failInvoker) Destroy() {}

// Invoke fails with the reason no provider was picked.
func (f *failInvoker) Invoke(context.Context, base.Invocation) result.Result {
	return &result.RPCResult{Err: f.err}
}
