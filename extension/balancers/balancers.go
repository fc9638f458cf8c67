package balancers

import (
	"net"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"github.com/dubbogo/gost/log/logger"
	"github.com/prometheus/client_golang/prometheus"

	// dubbo-go's balancers register first, so ours replace them whatever
	// the application imports, and their originals stay reachable for
	// side-by-side benchmarks (DubboGo).
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/aliasmethod"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/consistenthashing"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/iwrr"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/leastactive"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/p2c"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/random"
	_ "dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/roundrobin"

	"github.com/dubboroute/dubboroute/loadbalance/adaptive"
	"github.com/dubboroute/dubboroute/loadbalance/consistenthash"
	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
	"github.com/dubboroute/dubboroute/loadbalance/listcache"
	"github.com/dubboroute/dubboroute/loadbalance/names"
	"github.com/dubboroute/dubboroute/loadbalance/random"
	"github.com/dubboroute/dubboroute/loadbalance/roundrobin"
	"github.com/dubboroute/dubboroute/loadbalance/shortestresponse"
	"github.com/dubboroute/dubboroute/loadbalance/status"
	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

// Default is Java's default load balancer.
const Default = names.Default

// Names are the names registered, sorted.
func Names() []string { return names.All() }

// Canonical returns the Java balancer a name runs and whether the name is
// one of ours ("" counts as the default).
func Canonical(name string) (string, bool) { return names.Canonical(name) }

// Options configure the process-wide balancers.
type Options struct {
	// Rand draws the random numbers (nil: weight.DefaultRand).
	Rand weight.Rand
	// Clock is the time in ms (nil: weight.DefaultClock).
	Clock weight.Clock
	// SlidePeriod is shortestresponse's window in ms (<= 0: 30000).
	SlidePeriod int64
}

// Balancers is one set of dubboroute balancers sharing a plan cache. The
// process-wide one is registered into dubbo-go; tests make their own.
type Balancers struct {
	rnd     weight.Rand
	clock   weight.Clock
	rr      *roundrobin.Balancer
	windows *shortestresponse.Windows
	cache   listcache.Cache[*plan]
	plans   atomic.Uint64
	byName  map[string]loadbalance.LoadBalance
}

// New makes a set of balancers.
func New(o Options) *Balancers {
	if o.Rand == nil {
		o.Rand = weight.DefaultRand
	}
	if o.Clock == nil {
		o.Clock = weight.DefaultClock
	}
	b := &Balancers{rnd: o.Rand, clock: o.Clock, rr: roundrobin.New(), windows: shortestresponse.NewWindows(o.SlidePeriod, o.Clock)}
	b.byName = map[string]loadbalance.LoadBalance{
		random.Name:           &balancer{b, (*Balancers).pickRandom},
		roundrobin.Name:       &balancer{b, (*Balancers).pickRoundRobin},
		leastactive.Name:      &balancer{b, (*Balancers).pickLeastActive},
		shortestresponse.Name: &balancer{b, (*Balancers).pickShortestResponse},
		consistenthash.Name:   &balancer{b, (*Balancers).pickConsistentHash},
		adaptive.Name:         &balancer{b, (*Balancers).pickAdaptive},
	}
	return b
}

// Get returns the balancer a name runs (the name settled by Choose). On
// the process-wide set a name registered into dubbo-go by someone else
// (gray, dubbo-go's p2c, an application's own) is that balancer; an
// unknown name gets the default with a warning, a metric and an Unknown
// entry. Never nil, never panics.
func (b *Balancers) Get(name string) loadbalance.LoadBalance {
	c, ok := Canonical(name)
	if !ok && b == std {
		if ch := Choose(Settings{Consumer: name}); !ch.Unknown {
			return dgext.GetLoadbalance(ch.Name) // another registered balancer (gray, p2c, an application's own)
		}
	}
	return b.byName[c]
}

// Plans is the number of plans built so far (cache misses).
func (b *Balancers) Plans() uint64 { return b.plans.Load() }

// std is the process-wide set, registered into dubbo-go by init: package
// state because dubbo-go's balancer registry is process-wide and its
// factories take no arguments.
var std = New(Options{})

// Get is the process-wide set's Get (the set registered into dubbo-go).
func Get(name string) loadbalance.LoadBalance { return std.Get(name) }

// dubbogo are dubbo-go's own balancers by name, saved by init before it
// replaces them in dubbo-go's process-wide registry (nothing else can
// reach them afterwards).
var dubbogo = map[string]func() loadbalance.LoadBalance{}

// DubboGo returns dubbo-go v3.3.2's own balancer of that name (one
// instance made before this package replaced it; nil if dubbo-go has
// none): for side-by-side benchmarks.
func DubboGo(name string) loadbalance.LoadBalance {
	if f := dubbogo[name]; f != nil {
		return f()
	}
	return nil
}

func init() {
	for _, name := range []string{"random", "roundrobin", "leastactive", "consistenthashing", "p2c", "interleavedweightedroundrobin", "aliasmethod"} {
		func() {
			defer func() { _ = recover() }() // dubbo-go's lookup panics on a missing name
			if lb := dgext.GetLoadbalance(name); lb != nil {
				dubbogo[name] = func() loadbalance.LoadBalance { return lb }
			}
		}()
	}
	for _, name := range names.All() {
		c, _ := names.Canonical(name)
		lb := std.byName[c]
		dgext.SetLoadbalance(name, func() loadbalance.LoadBalance { return lb })
	}
}

// seenSet is a set of strings met so far, safe for concurrent use: what
// is warned about once per process.
type seenSet struct {
	mu sync.Mutex
	m  map[string]bool
}

// add records s and reports whether it is new.
func (ss *seenSet) add(s string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m[s] {
		return false
	}
	if ss.m == nil {
		ss.m = map[string]bool{}
	}
	ss.m[s] = true
	return true
}

// sorted lists the strings met so far, sorted.
func (ss *seenSet) sorted() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]string, 0, len(ss.m))
	for s := range ss.m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// unknownNames are the unknown balancer names seen by Choose, for lint and
// the console. Package state because dubbo-go looks balancers up in its
// process-wide registry, with no context, and a name is warned about once
// per process.
var unknownNames seenSet

// unknownTotal counts them. Package state because Prometheus collectors
// are registered once per process (extension.Collectors hands them to the
// application's registry).
var unknownTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
	Namespace: "dubboroute", Name: "unknown_loadbalance_total",
	Help: "Times an unregistered load balancer name was met (a lookup by name, or a provider URL planned by the chain); Java's default, random, is used instead.",
}, []string{"name"})

// Collectors are this package's Prometheus collectors.
func Collectors() []prometheus.Collector { return []prometheus.Collector{unknownTotal} }

func noteUnknown(name string) {
	unknownTotal.WithLabelValues(name).Inc()
	if unknownNames.add(name) {
		logger.Warnf("[dubboroute] load balancer %q is not registered (known: %s): using Java's default %q", name, strings.Join(Names(), ", "), Default)
	}
}

// Unknown lists the unknown balancer names seen so far, sorted.
func Unknown() []string { return unknownNames.sorted() }

// Source says which setting a call's balancer name came from.
type Source string

// Sources of a balancer name, in Java's precedence.
const (
	FromConfigurator Source = "configurator"
	FromConsumer     Source = "consumer"
	FromProvider     Source = "provider"
	FromDefault      Source = "default"
)

// Settings are the loadbalance values one call can see, each read at the
// call's method (Java's getMethodParameter: <method>.loadbalance, then
// dubbo-go's methods.<method>.loadbalance, then loadbalance); "" where
// unset.
type Settings struct {
	// Configurator is a configurator's loadbalance on the provider URL
	// (an override rule, consumer side); it wins over both others.
	Configurator string
	// Consumer is the reference's own loadbalance.
	Consumer string
	// Provider is the provider URL's published loadbalance.
	Provider string
}

// Choice is the balancer a call runs and why.
type Choice struct {
	// Name is registered in dubbo-go's registry: the name to look up, or
	// to write on an invoker URL so that dubbo-go's own cluster invokers
	// (adaptiveService) find it.
	Name string `json:"name"`
	// Asked is the name the winning setting held ("" when none did).
	Asked string `json:"asked,omitempty"`
	// From is the setting that decided.
	From Source `json:"from"`
	// Unknown: Asked is registered nowhere, and Name is Java's default
	// (warned once per name, counted in
	// dubboroute_unknown_loadbalance_total, listed by Unknown).
	Unknown bool `json:"unknown,omitempty"`
}

// Choose is the one decision of which balancer a call runs: Java's
// precedence over the settings (a configurator's over the consumer's over
// the provider's, as Java's consumer merges its URL; dubbo-go v3.3.2's
// merge lets a provider's win, issue #2864), then the name resolved: one
// of ours (Java's names and dubbo-go's aliases of them, loadbalance/names),
// or any other balancer in dubbo-go's registry (gray, dubbo-go's p2c, an
// application's own) as itself, or, when registered nowhere, Java's
// default random with a warning, a metric and an Unknown entry. It never
// panics.
func Choose(s Settings) Choice {
	ch := Choice{From: FromDefault}
	switch {
	case s.Configurator != "":
		ch.Asked, ch.From = s.Configurator, FromConfigurator
	case s.Consumer != "":
		ch.Asked, ch.From = s.Consumer, FromConsumer
	case s.Provider != "":
		ch.Asked, ch.From = s.Provider, FromProvider
	default:
		ch.Name = Default
		return ch
	}
	ch.Name = ch.Asked
	if !Registered(ch.Asked) {
		noteUnknown(ch.Asked)
		ch.Name, ch.Unknown = Default, true
	}
	return ch
}

// Resolve is Choose for one name ("" stays ""): the name itself when
// registered, Java's default otherwise (noted as unknown).
func Resolve(name string) string {
	if name == "" {
		return ""
	}
	return Choose(Settings{Consumer: name}).Name
}

// Registered reports whether dubbo-go's registry has a balancer of that
// name (looked up once per name; "" counts as registered).
func Registered(name string) bool {
	if _, ok := Canonical(name); ok {
		return true
	}
	if v, ok := registered.Load(name); ok {
		return v.(bool)
	}
	ok := func() (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		return dgext.GetLoadbalance(name) != nil
	}()
	// A name registered later (an application's init) is seen once it is:
	// only positive answers are final.
	if ok {
		registered.Store(name, true)
	}
	return ok
}

// registered caches Registered's positive answers (name → true): package
// state because dubbo-go's balancer registry it mirrors is process-wide.
var registered sync.Map

// ---- plans

type plan struct {
	n          int
	set        *weight.Set
	statusURLs []*common.URL
	rr         atomic.Pointer[roundrobin.Plan]
	rings      listcache.ByMethod[*consistenthash.Ring]
	actives    listcache.ByMethod[*countIndex] // leastactive's, by method
	estimates  listcache.ByMethod[*countIndex] // shortestresponse's, by method
}

func urlOf(ivk base.Invoker) *common.URL {
	if ivk == nil {
		return nil
	}
	return ivk.GetURL()
}

// planFor returns the plan of a routed list (len >= 2), built once per
// list (listcache keys it by the list's identity).
func (b *Balancers) planFor(invokers []base.Invoker) *plan {
	if p, ok := b.cache.Get(invokers); ok {
		return p
	}
	p := b.build(invokers)
	b.cache.Put(invokers, p)
	return p
}

func (b *Balancers) build(invokers []base.Invoker) *plan {
	b.plans.Add(1)
	n := len(invokers)
	ps := make([]weight.Provider, n)
	p := &plan{n: n, statusURLs: make([]*common.URL, n)}
	for i, ivk := range invokers {
		ps[i] = Provider(urlOf(ivk))
		p.statusURLs[i] = urlOf(unwrap(ivk))
	}
	p.set = weight.NewSet(ps, b.clock)
	for _, pr := range p.set.Problems() {
		notePlanProblem(pr)
	}
	return p
}

// unwrap strips dubboroute's invoker views down to the protocol invoker
// whose URL dubbo-go's active filter counts under.
func unwrap(ivk base.Invoker) base.Invoker {
	for i := 0; i < 8; i++ {
		u, ok := ivk.(interface{ Unwrap() base.Invoker })
		if !ok {
			return ivk
		}
		next := u.Unwrap()
		if next == nil {
			return ivk
		}
		ivk = next
	}
	return ivk
}

// urlParams are a dubbo-go URL's parameters as weight.Params.
type urlParams map[string]string

func (m urlParams) Get(k string) (string, bool) {
	v, ok := m[k]
	return v, ok
}

func (m urlParams) Range(f func(k, v string) bool) {
	for k, v := range m {
		if !f(k, v) {
			return
		}
	}
}

// Provider is the Java view of an invoker URL: its parameters (first
// values; dubbo-go's merge copies the consumer's timestamp onto a provider
// that published none and marks it with an empty remote.timestamp: that
// one is dropped), address, identity and service key.
func Provider(u *common.URL) weight.Provider {
	if u == nil {
		return weight.Provider{Params: urlParams{}}
	}
	m := urlParams{}
	u.RangeParams(func(k, v string) bool {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
		return true
	})
	if rt, ok := m["remote.timestamp"]; ok && rt == "" {
		delete(m, "timestamp")
	}
	host, port := u.Ip, u.Port
	if host == "" && u.Location != "" {
		if h, pt, err := net.SplitHostPort(u.Location); err == nil {
			host, port = h, pt
		} else {
			host = u.Location
		}
	}
	addr := host
	if pn, err := strconv.Atoi(port); err == nil && pn > 0 {
		addr = host + ":" + port
	}
	var id strings.Builder
	id.WriteString(u.Protocol)
	id.WriteString("://")
	if u.Username != "" || u.Password != "" {
		id.WriteString(u.Username)
		if u.Password != "" {
			id.WriteByte(':')
			id.WriteString(u.Password)
		}
		id.WriteByte('@')
	}
	id.WriteString(addr)
	id.WriteByte('/')
	id.WriteString(strings.TrimPrefix(u.Path, "/"))
	iface := m["interface"]
	if iface == "" {
		iface = strings.TrimPrefix(u.Path, "/")
	}
	sk := iface
	if g := m["group"]; g != "" {
		sk = g + "/" + sk
	}
	if v := m["version"]; v != "" && v != "0.0.0" {
		sk += ":" + v
	}
	return weight.Provider{Params: m, Address: addr, Identity: id.String(), ServiceKey: sk}
}

// ---- per-call helpers

// Method is Java's RpcUtils.getMethodName: the real method of a generic
// $invoke/$invokeAsync call.
func Method(inv base.Invocation) string {
	if inv == nil {
		return ""
	}
	m := inv.MethodName()
	if m == "$invoke" || m == "$invokeAsync" {
		if args := inv.Arguments(); len(args) > 0 {
			if s, ok := args[0].(string); ok {
				return s
			}
		}
	}
	return m
}

// Arguments is Java's RpcUtils.getArguments: a generic call's real
// arguments (its third argument when that is a list).
func Arguments(inv base.Invocation) []any {
	if inv == nil {
		return nil
	}
	args := inv.Arguments()
	if m := inv.MethodName(); (m == "$invoke" || m == "$invokeAsync") && len(args) == 3 {
		switch real := args[2].(type) {
		case []any:
			return real
		case nil:
			return nil
		default:
			rv := reflect.ValueOf(real)
			if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
				out := make([]any, rv.Len())
				for i := range out {
					out[i] = rv.Index(i).Interface()
				}
				return out
			}
		}
	}
	return args
}

func (p *plan) ring(method string) *consistenthash.Ring {
	return p.rings.Get(method, func(made map[string]*consistenthash.Ring) *consistenthash.Ring { return p.newRing(method, made) })
}

// newRing makes the ring of method, or shares the one of a method in made
// with the same parameters.
func (p *plan) newRing(method string, made map[string]*consistenthash.Ring) *consistenthash.Ring {
	ps := p.set.Providers()
	nodes, arguments, args, probs := consistenthash.Params(ps[0].Params, method)
	for _, pr := range probs {
		notePlanProblem(ps[0].Address + ": " + method + ": " + pr)
	}
	// Methods with the same parameters share one ring.
	for _, o := range made {
		if o.Nodes == nodes && o.Arguments == arguments {
			return o
		}
	}
	addrs := make([]string, len(ps))
	for i, pr := range ps {
		addrs[i] = pr.Address
	}
	return consistenthash.NewRing(addrs, nodes, arguments, args)
}

// countIndex is one method's index over the plan's providers' counters
// (active calls for leastactive, estimates for shortestresponse): every
// change of a counter updates it (status.Status.Watch), a pick walks it.
type countIndex struct {
	x *leastactive.Index
	// slides is the shortestresponse window slides the index has read.
	slides atomic.Uint64
}

// statuses are the counters of method for the plan's providers.
func (p *plan) statuses(method string) []*status.Status {
	st := make([]*status.Status, p.n)
	for i, u := range p.statusURLs {
		st[i] = statusOf(u, method)
	}
	return st
}

// index returns the plan's index of method in m, made by mk (once) over
// the method's counters, each watched by it.
func (p *plan) index(m *listcache.ByMethod[*countIndex], method string, mk func(st []*status.Status) func(i int) int64) *countIndex {
	return m.Get(method, func(map[string]*countIndex) *countIndex {
		st := p.statuses(method)
		c := &countIndex{x: leastactive.NewIndex(p.n, mk(st))}
		for i, s := range st {
			s.Watch(c.x, i)
		}
		return c
	})
}

func (b *Balancers) rrPlan(p *plan) *roundrobin.Plan {
	if r := p.rr.Load(); r != nil {
		return r
	}
	r := b.rr.Plan(p.set)
	if p.rr.CompareAndSwap(nil, r) {
		return r
	}
	return p.rr.Load()
}

// ---- the balancers

// balancer is one of Java's balancers over the shared plans: lists of
// fewer than two invokers are Java's AbstractLoadBalance.select shortcut,
// longer ones are planned once and picked by pick.
type balancer struct {
	b    *Balancers
	pick func(b *Balancers, p *plan, inv base.Invocation) int
}

// Select implements dubbo-go's loadbalance.LoadBalance.
func (l *balancer) Select(invokers []base.Invoker, inv base.Invocation) base.Invoker {
	if len(invokers) < 2 {
		return first(invokers)
	}
	return invokers[l.pick(l.b, l.b.planFor(invokers), inv)]
}

// pickRandom is Java's random.
func (b *Balancers) pickRandom(p *plan, inv base.Invocation) int {
	return random.Pick(p.set.Table(Method(inv)), b.rnd)
}

// pickRoundRobin is Java's roundrobin.
func (b *Balancers) pickRoundRobin(p *plan, inv base.Invocation) int {
	return b.rrPlan(p).Pick(Method(inv))
}

// pickLeastActive is Java's leastactive, over an index of the providers'
// active calls: O(log n).
func (b *Balancers) pickLeastActive(p *plan, inv base.Invocation) int {
	m := Method(inv)
	c := p.index(&p.actives, m, func(st []*status.Status) func(int) int64 {
		return func(i int) int64 { return st[i].Active() }
	})
	return c.x.Pick(p.set.Table(m), b.rnd)
}

// pickShortestResponse is Java's shortestresponse, over an index of the
// providers' estimates: O(log n), O(n) once per window slide.
func (b *Balancers) pickShortestResponse(p *plan, inv base.Invocation) int {
	m := Method(inv)
	c := p.index(&p.estimates, m, func(st []*status.Status) func(int) int64 {
		cs := make([]shortestresponse.Counters, len(st))
		for i, s := range st {
			cs[i] = s
		}
		wins := b.windows.Windows(cs)
		return func(i int) int64 { return wins[i].Estimate() }
	})
	return b.windows.PickIndex(p.set.Table(m), c.x, &c.slides, b.rnd)
}

// pickConsistentHash is Java's consistenthash.
func (b *Balancers) pickConsistentHash(p *plan, inv base.Invocation) int {
	return p.ring(Method(inv)).Pick(Arguments(inv))
}

// pickAdaptive is Java's adaptive without provider metrics.
func (b *Balancers) pickAdaptive(p *plan, inv base.Invocation) int {
	return adaptive.Pick(p.set.Table(Method(inv)), b.rnd)
}

// first is Java's AbstractLoadBalance.select for fewer than two invokers.
func first(invokers []base.Invoker) base.Invoker {
	if len(invokers) == 0 {
		return nil
	}
	return invokers[0]
}

// planProblems are the plan problems (malformed weights, hash parameters)
// seen: each is logged once per process. Package state because the plans
// belong to the process-wide balancers dubbo-go's registry hands out.
var planProblems seenSet

func notePlanProblem(s string) {
	if planProblems.add(s) {
		logger.Warnf("[dubboroute] load balancing: %s", s)
	}
}

// URLFor is Choose applied to an invoker URL, the form dubbo-go's cluster
// invokers read the balancer from (the first routed invoker's loadbalance,
// per method methods.<m>.loadbalance). consumer is the reference's own
// loadbalance ("" when unset); configured says a configurator set the
// URL's loadbalance. It returns the URL to hand out in u's place, or nil
// when u already names what Choose decides:
//
//   - a configurator's value, or without a consumer setting the provider's,
//     stays, each name (service level and per method) resolved by Choose
//     (an unknown one becomes random, warned and counted);
//   - otherwise the consumer's resolved name is the URL's loadbalance and
//     the provider's per-method values are dropped (the consumer's setting
//     wins, Java's precedence; dubbo-go's merge lets the provider's win,
//     issue #2864).
//
// It never changes u.
func URLFor(u *common.URL, consumer string, configured bool) *common.URL {
	if u == nil {
		return nil
	}
	const key = "loadbalance"
	if consumer == "" || configured {
		var nu *common.URL
		set := func(k string) {
			if n := u.GetParam(k, ""); n != "" {
				if r := Resolve(n); r != n {
					if nu == nil {
						nu = u.Clone()
					}
					nu.SetParam(k, r)
				}
			}
		}
		set(key)
		for _, m := range u.Methods {
			set("methods." + m + "." + key)
		}
		return nu
	}
	name := Resolve(consumer)
	methodLB := false
	for _, m := range u.Methods {
		methodLB = methodLB || u.GetParam("methods."+m+"."+key, "") != ""
	}
	if u.GetParam(key, "") == name && !methodLB {
		return nil
	}
	nu := u.Clone()
	nu.SetParam(key, name)
	for _, m := range u.Methods {
		nu.DelParam("methods." + m + "." + key)
	}
	return nu
}
