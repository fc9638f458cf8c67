package gray

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/loadbalance/leastactive"
	"github.com/dubboroute/dubboroute/loadbalance/p2c"
	"github.com/dubboroute/dubboroute/loadbalance/random"
	"github.com/dubboroute/dubboroute/loadbalance/roundrobin"
	lbweight "github.com/dubboroute/dubboroute/loadbalance/weight"
	"github.com/dubboroute/dubboroute/router"
)

// Options are the rule-independent settings of the balancer. The zero value
// is seed 002's configuration with Java's defaults.
type Options struct {
	// UserKey is the attachment holding the user id (default "userId").
	UserKey string
	// GrayUsersParam is the consumer URL parameter listing gray user ids,
	// comma separated (default "grayUserids"). Blanks around ids are ignored.
	GrayUsersParam string
	// StatusParam and GrayStatus: without a grayProviders rule, a provider
	// is gray when its parameter StatusParam equals GrayStatus (defaults
	// "status" and "gray").
	StatusParam string
	GrayStatus  string
	// Delegate is the balancer inside a pool when the rule names none
	// (default random).
	Delegate Delegate
	// TimestampParam and WarmupParam are the provider parameters holding the
	// start time and the warm-up period, both in milliseconds (defaults
	// "timestamp" and "warmup", as in Java).
	TimestampParam string
	WarmupParam    string
	// DecisionKey is the attachment carrying a gray decision made upstream
	// (default "dubboroute.gray"): a call carrying "gray" or "normal" there
	// is classified so, without its rules being consulted (unless the rule
	// is disabled, which makes every request normal). This is how a
	// percentage decision made at the first hop of a full-link lane holds
	// at every later hop.
	DecisionKey string
	// Now is the clock (default time.Now); Rand the randomness (default
	// router.DefaultRand). Tests inject both.
	Now  func() time.Time
	Rand router.Rand
}

func (o Options) WithDefaults() Options {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.UserKey, "userId")
	def(&o.GrayUsersParam, "grayUserids")
	def(&o.StatusParam, "status")
	def(&o.GrayStatus, "gray")
	def(&o.TimestampParam, "timestamp")
	def(&o.WarmupParam, "warmup")
	def(&o.DecisionKey, DefaultDecisionKey)
	if _, ok := parseDelegate(string(o.Delegate)); !ok {
		o.Delegate = DelegateRandom
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = router.DefaultRand
	}
	return o
}

// DefaultDecisionKey is the attachment carrying an upstream gray decision.
const DefaultDecisionKey = "dubboroute.gray"

// Values of the decision attachment.
const (
	DecisionGray   = "gray"
	DecisionNormal = "normal"
)

// ActiveCounter reports the number of calls in flight to provider i (an
// index into the compiled provider list) for a method. leastactive and p2c
// use it; without one every count is 0. It must not allocate to keep picks
// allocation-free.
type ActiveCounter interface {
	Active(provider int, method string) int64
}

// Input is what a Plan is compiled from.
type Input struct {
	// Rule is the provider application's gray rule; nil means seed 002's
	// defaults from Options.
	Rule *Rule
	// Consumer is the consumer URL; its parameters feed the default gray
	// user list and conditions with source param. May be nil.
	Consumer *router.URL
	// Providers is the candidate list (the routed invokers), in order; a
	// pick returns an index into it. Nil entries are never gray and never
	// match a matcher.
	Providers []*router.URL
	// Active feeds leastactive and p2c; may be nil.
	Active ActiveCounter
}

// Errors a pick can return (wrapped with the details).
var (
	// ErrNoProvider: the candidate list is empty.
	ErrNoProvider = errors.New("gray: no provider")
	// ErrNoGrayProvider: a gray request, no gray provider, fallback: fail.
	ErrNoGrayProvider = errors.New("gray: gray request but no gray provider available (fallback: fail)")
	// ErrNoNormalProvider: a normal request and every provider is gray.
	ErrNoNormalProvider = errors.New("gray: normal request but every available provider is gray")
)

// Decision explains one pick. Pass nil to Pick to record nothing (free).
type Decision struct {
	// UserKey is where the deciding value came from (e.g.
	// "attachment:userId"), UserValue what it was, UserSeen whether the call
	// had it.
	UserKey   string `json:"user_key,omitempty"`
	UserValue string `json:"user_value,omitempty"`
	UserSeen  bool   `json:"user_seen"`
	// Rule is the index of the matching request rule, -1 for none; RuleName
	// its name.
	Rule     int    `json:"rule"`
	RuleName string `json:"rule_name,omitempty"`
	// Percent is the matched rule's gray percentage at the call's time;
	// Bucket the sticky bucket in [0, 10000) of the hash key (-1 when not
	// hashed), Draw the random draw in [0, 10000) of a non-sticky
	// percentage (-1 when none).
	Percent float64 `json:"percent"`
	Bucket  int     `json:"bucket"`
	Draw    int     `json:"draw"`
	// Gray is the request's classification; Retry is true when it was
	// reused from an earlier Select of the same invocation.
	Gray  bool `json:"gray"`
	Retry bool `json:"retry,omitempty"`
	// Branch is router.BranchGray, BranchNormal, BranchGrayFall or
	// BranchGrayFail.
	Branch router.Branch `json:"branch"`
	// Reason says in words why the request is gray or normal.
	Reason string `json:"reason"`
	// Pool sizes of this provider list.
	GrayPool   int `json:"gray_pool"`
	NormalPool int `json:"normal_pool"`
	// Shortcut: a one-provider list is returned without looking at gray
	// (as Java's AbstractLoadBalance and dubbo-go's cluster invoker do).
	Shortcut bool     `json:"shortcut,omitempty"`
	Delegate Delegate `json:"delegate"`
	// Chosen is the picked index (-1 on error), Provider its address.
	Chosen   int    `json:"chosen"`
	Provider string `json:"provider,omitempty"`
}

// Plan is a gray rule compiled for one consumer and one provider list. It
// is immutable apart from its internal warm-up and round-robin state and
// safe for concurrent use.
type Plan struct {
	opts     Options
	n        int
	addrs    []string
	gray     pool
	normal   pool
	isGray   []bool
	weights  []lbweight.Config // every provider's service-level weight, by index
	rnd      lbweight.Rand     // Options.Rand as the loadbalance packages draw
	disabled bool
	fallback Fallback
	delegate Delegate
	active   ActiveCounter

	requests     []planRequest
	defaultUsers map[string]struct{}
	useDefault   bool
	userSlot     int
	userRef      string // "attachment:<UserKey>" for explain
	decisionSlot int
	decisionRef  string // "attachment:<DecisionKey>" for explain
	slotKeys     []string
}

type planRequest struct {
	r         *RequestRule
	or        bool
	conds     []planCond
	threshold int // buckets of 10,000; ramp rules compute it per call
	hashSlot  int
	hashRef   string
}

type planCond struct {
	c     *Condition
	slot  int  // attachment slot, -1 when not an attachment
	konst int8 // 1 / -1: decided at compile time (consumer param); 0: per call
}

// maxSlots bounds the distinct attachment keys cached per call; further
// keys are read each time they are needed.
const maxSlots = 8

// buckets is the resolution of percentages: 10,000 buckets = 0.01 %.
const buckets = 10000

// Compile builds a Plan. It never fails: every rule error is caught by
// ParseRule. It is meant for the slow path (a provider list or rule change).
func Compile(in Input, opts Options) *Plan {
	o := opts.WithDefaults()
	p := &Plan{opts: o, n: len(in.Providers), active: in.Active, fallback: FallbackNormal, delegate: o.Delegate, userSlot: -1}
	rule := in.Rule
	if rule != nil {
		p.disabled = !rule.Enabled
		p.fallback = rule.Fallback
		if rule.Delegate != "" {
			p.delegate = rule.Delegate
		}
	}
	consumer := in.Consumer
	if consumer == nil {
		consumer = &router.URL{}
	}

	// Pools.
	p.rnd = func(n int) int { return int(draw(o.Rand, uint64(n))) }
	clock := func() int64 { return o.Now().UnixMilli() }
	p.addrs = make([]string, p.n)
	p.isGray = make([]bool, p.n)
	p.weights = make([]lbweight.Config, p.n)
	var grayP, normalP []lbweight.Provider
	var grayI, normalI []int
	for i, u := range in.Providers {
		if u == nil {
			u = &router.URL{}
		}
		p.addrs[i] = u.Address()
		var g bool
		if rule != nil && rule.GrayProviders != nil {
			g = rule.GrayProviders.matches(u)
		} else {
			g = u.Params.Value(o.StatusParam) == o.GrayStatus
		}
		p.isGray[i] = g
		pr := provider(u, o)
		p.weights[i], _ = lbweight.Read(pr.Params, "")
		if g {
			grayP, grayI = append(grayP, pr), append(grayI, i)
		} else {
			normalP, normalI = append(normalP, pr), append(normalI, i)
		}
	}
	p.gray.init(grayP, grayI, clock, p.delegate)
	p.normal.init(normalP, normalI, clock, p.delegate)

	// Request classification.
	slots := map[string]int{}
	slot := func(key string) int {
		if s, ok := slots[key]; ok {
			return s
		}
		if len(p.slotKeys) >= maxSlots {
			return -1
		}
		slots[key] = len(p.slotKeys)
		p.slotKeys = append(p.slotKeys, key)
		return slots[key]
	}
	p.decisionSlot, p.decisionRef = slot(o.DecisionKey), "attachment:"+o.DecisionKey
	if rule == nil || rule.DefaultUsers {
		p.useDefault = true
		p.userSlot = slot(o.UserKey)
		p.userRef = "attachment:" + o.UserKey
		p.defaultUsers = map[string]struct{}{}
		for _, id := range strings.Split(consumer.Params.Value(o.GrayUsersParam), ",") {
			if id = strings.TrimSpace(id); id != "" {
				p.defaultUsers[id] = struct{}{}
			}
		}
	}
	if rule != nil {
		for i := range rule.Requests {
			r := &rule.Requests[i]
			pr := planRequest{r: r, or: r.MatchMode == MatchOr, threshold: toBuckets(r.Percent), hashSlot: -1}
			if r.HashKey != "" {
				pr.hashRef = r.hash.String()
				if r.hash.kind == srcAttachment {
					pr.hashSlot = slot(r.hash.key)
				}
			}
			for j := range r.Conditions {
				c := &r.Conditions[j]
				pc := planCond{c: c, slot: -1}
				switch c.ref.kind {
				case srcParam:
					v, ok := consumer.Get(c.ref.key)
					pc.konst = -1
					if c.test(v, ok, time.Time{}) {
						pc.konst = 1
					}
				case srcAttachment:
					pc.slot = slot(c.ref.key)
				}
				pr.conds = append(pr.conds, pc)
			}
			p.requests = append(p.requests, pr)
		}
	}
	return p
}

func toBuckets(percent float64) int {
	return int(math.Round(percent * buckets / 100))
}

// Len is the number of providers the plan was compiled for.
func (p *Plan) Len() int { return p.n }

// IsGray reports whether provider i is in the gray pool.
func (p *Plan) IsGray(i int) bool { return i >= 0 && i < p.n && p.isGray[i] }

// Weight is provider i's effective service-level weight now (its
// configured weight after Java's warm-up), as the random balancer weighs
// it; 0 for an index out of range.
func (p *Plan) Weight(i int) int64 {
	if i < 0 || i >= len(p.weights) {
		return 0
	}
	return int64(p.weights[i].Effective(p.opts.Now().UnixMilli()))
}

// Pools returns the sizes of the gray and normal pools.
func (p *Plan) Pools() (gray, normal int) { return len(p.gray.index), len(p.normal.index) }

// Delegate is the balancer used inside pools.
func (p *Plan) Delegate() Delegate { return p.delegate }

// Pick classifies the call and picks a provider: an index into the
// compiled provider list. d, when not nil, is overwritten with the
// explanation. It allocates nothing (apart from formatting non-string
// arguments a condition reads, and the error on failure).
func (p *Plan) Pick(call *router.Call, d *Decision) (int, error) {
	return p.PickClass(p.Classify(call, d), call, d)
}

// callState caches the attachments a call's rules read, so each is read
// once per call.
type callState struct {
	// The call's fields are copied, not the *router.Call, so the caller's
	// Call can live on its stack (escape analysis is field-insensitive).
	method  string
	args    []any
	att     router.Attachments
	vals    [maxSlots]string
	state   [maxSlots]uint8 // 0 unread, 1 present, 2 absent
	now     time.Time
	haveNow bool
}

func (cs *callState) attachment(key string, slot int) (string, bool) {
	if cs.att == nil {
		return "", false
	}
	if slot < 0 {
		return cs.att.GetAttachment(key)
	}
	switch cs.state[slot] {
	case 1:
		return cs.vals[slot], true
	case 2:
		return "", false
	}
	v, ok := cs.att.GetAttachment(key)
	cs.vals[slot], cs.state[slot] = v, 2
	if ok {
		cs.state[slot] = 1
	}
	return v, ok
}

func (cs *callState) clock(p *Plan) time.Time {
	if !cs.haveNow {
		cs.now, cs.haveNow = p.opts.Now(), true
	}
	return cs.now
}

func (cs *callState) value(ref valueRef, slot int) (string, bool) {
	switch ref.kind {
	case srcAttachment:
		return cs.attachment(ref.key, slot)
	case srcArgument:
		if ref.arg >= len(cs.args) {
			return "", false
		}
		return argString(cs.args[ref.arg])
	case srcMethod:
		return cs.method, cs.method != ""
	}
	return "", false
}

// Classify decides whether the call is a gray request. d may be nil.
func (p *Plan) Classify(call *router.Call, d *Decision) bool {
	gray, _ := p.ClassifyLane(call, d)
	return gray
}

// ClassifyLane is Classify that also reports whether the decision must
// travel with the request to later hops (carry): it came from a request
// rule's percentage strictly between 0 and 100 (sticky, random or a ramp),
// which a later hop with other rules, another hash key or another draw
// could decide differently. A decision the call already carries (see
// Options.DecisionKey) is honoured and not carried again (it travels
// already).
func (p *Plan) ClassifyLane(call *router.Call, d *Decision) (gray, carry bool) {
	var cs callState
	if call != nil {
		cs.method, cs.args, cs.att = call.Method, call.Args, call.Attachments
	}
	if d != nil {
		*d = Decision{Rule: -1, Bucket: -1, Draw: -1, Chosen: -1}
	}
	if p.disabled {
		if d != nil {
			d.Reason = "rule disabled: every request is normal"
		}
		return false, false
	}
	if v, ok := cs.attachment(p.opts.DecisionKey, p.decisionSlot); ok && (v == DecisionGray || v == DecisionNormal) {
		gray := v == DecisionGray
		if d != nil {
			d.UserKey, d.UserValue, d.UserSeen, d.Gray = p.decisionRef, v, true, gray
			d.Reason = "decided upstream (full-link lane): normal"
			if gray {
				d.Reason = "decided upstream (full-link lane): gray"
			}
		}
		return gray, false
	}
	for i := range p.requests {
		pr := &p.requests[i]
		if !p.matchRequest(pr, &cs) {
			continue
		}
		if d != nil {
			d.Rule, d.RuleName = i, pr.r.Name
		}
		gray, carry := p.roll(pr, &cs, d)
		if d != nil {
			d.Gray = gray
		}
		return gray, carry
	}
	if p.useDefault {
		v, ok := cs.attachment(p.opts.UserKey, p.userSlot)
		_, listed := p.defaultUsers[v]
		gray := ok && listed
		if d != nil {
			d.UserKey, d.UserValue, d.UserSeen, d.Gray = p.userRef, v, ok, gray
			switch {
			case !ok:
				d.Reason = "no user id attachment: normal"
			case gray:
				d.Reason = "user id in the consumer's gray user list"
			default:
				d.Reason = "user id not in the consumer's gray user list"
			}
		}
		return gray, false
	}
	if d != nil {
		d.Reason = "no request rule matched: normal"
	}
	return false, false
}

func (p *Plan) matchRequest(pr *planRequest, cs *callState) bool {
	if len(pr.conds) == 0 {
		return true // no conditions: every request
	}
	for j := range pr.conds {
		pc := &pr.conds[j]
		var hit bool
		switch {
		case pc.konst != 0:
			hit = pc.konst > 0
		case pc.c.Operator == OpTimeBefore || pc.c.Operator == OpTimeAfter:
			hit = pc.c.test("", true, cs.clock(p))
		default:
			v, ok := cs.value(pc.c.ref, pc.slot)
			hit = pc.c.test(v, ok, time.Time{})
		}
		if pr.or && hit {
			return true
		}
		if !pr.or && !hit {
			return false
		}
	}
	return !pr.or
}

// rampBuckets is a ramp's threshold at now.
func (p *Plan) rampBuckets(r *Ramp, now time.Time) (int, float64) {
	pct := r.To
	if el := now.Sub(r.Start); el < r.Duration {
		pct = r.From
		if el > 0 {
			pct = r.From + (r.To-r.From)*float64(el)/float64(r.Duration)
		}
	}
	return toBuckets(pct), pct
}

// Bucket is the sticky bucket in [0, 10000) of a hash-key value: 64-bit
// FNV-1a of the value's bytes, modulo 10,000. A value is gray at percent p
// when its bucket < round(p*100), so raising p only adds users.
func Bucket(value string) int {
	h := uint64(14695981039346656037)
	for i := 0; i < len(value); i++ {
		h ^= uint64(value[i])
		h *= 1099511628211
	}
	return int(h % buckets)
}

// roll applies a matched request rule's percentage; carry reports a
// percentage strictly between 0 and 100.
func (p *Plan) roll(pr *planRequest, cs *callState, d *Decision) (gray, carry bool) {
	threshold, pct := pr.threshold, pr.r.Percent
	if pr.r.Ramp != nil {
		threshold, pct = p.rampBuckets(pr.r.Ramp, cs.clock(p))
	}
	if d != nil {
		d.Percent = pct
	}
	carry = threshold > 0 && threshold < buckets
	if pr.hashRef != "" {
		v, ok := cs.value(pr.r.hash, pr.hashSlot)
		if d != nil {
			d.UserKey, d.UserValue, d.UserSeen = pr.hashRef, v, ok
		}
		if !ok {
			if d != nil {
				d.Reason = "request rule matched but the hash key is missing: normal"
			}
			return false, false
		}
		n := Bucket(v)
		if d != nil {
			d.Bucket = n
		}
		return rolled(n, threshold, true, d), carry
	}
	switch {
	case threshold >= buckets:
		if d != nil {
			d.Reason = "request rule matched at 100%: gray"
		}
		return true, false
	case threshold <= 0:
		if d != nil {
			d.Reason = "request rule matched at 0%: normal"
		}
		return false, false
	}
	n := int(draw(p.opts.Rand, buckets))
	if d != nil {
		d.Draw = n
	}
	return rolled(n, threshold, false, d), carry
}

// rolled reports whether n, a sticky bucket or a random draw in [0,
// buckets), falls below the threshold: gray.
func rolled(n, threshold int, sticky bool, d *Decision) bool {
	gray := n < threshold
	if d != nil {
		switch {
		case sticky && gray:
			d.Reason = "request rule matched, sticky bucket below the percentage: gray"
		case sticky:
			d.Reason = "request rule matched, sticky bucket at or above the percentage: normal"
		case gray:
			d.Reason = "request rule matched, random draw below the percentage: gray"
		default:
			d.Reason = "request rule matched, random draw at or above the percentage: normal"
		}
	}
	return gray
}

// PickClass picks a provider for a call already classified as gray or not
// (the dubbo-go adapter reuses the first classification for retries). d may
// be nil; when not nil its classification fields are kept.
func (p *Plan) PickClass(gray bool, call *router.Call, d *Decision) (int, error) {
	if d != nil {
		d.Gray = gray
		d.GrayPool, d.NormalPool = len(p.gray.index), len(p.normal.index)
		d.Delegate = p.delegate
		d.Chosen, d.Provider = -1, ""
	}
	switch p.n {
	case 0:
		return -1, fmt.Errorf("%w: the provider list is empty", ErrNoProvider)
	case 1:
		// Java's AbstractLoadBalance.select returns a lone invoker without
		// doSelect, and dubbo-go does not even call the balancer.
		if d != nil {
			d.Shortcut, d.Chosen, d.Provider = true, 0, p.addrs[0]
			d.Branch = router.BranchNormal
			if p.isGray[0] {
				d.Branch = router.BranchGray
			}
		}
		return 0, nil
	}
	pl, branch := &p.normal, router.BranchNormal
	if gray {
		switch {
		case len(p.gray.index) > 0:
			pl, branch = &p.gray, router.BranchGray
		case p.fallback == FallbackNormal:
			branch = router.BranchGrayFall
		default:
			if d != nil {
				d.Branch = router.BranchGrayFail
			}
			return -1, fmt.Errorf("%w: none of the %d providers is gray", ErrNoGrayProvider, p.n)
		}
	}
	if d != nil {
		d.Branch = branch
	}
	if len(pl.index) == 0 {
		return -1, fmt.Errorf("%w: all %d providers are gray", ErrNoNormalProvider, p.n)
	}
	method := ""
	if call != nil {
		method = call.Method
	}
	i := p.pickIn(pl, method)
	if d != nil {
		d.Chosen, d.Provider = i, p.addrs[i]
	}
	return i, nil
}

// pool is one side (gray or normal) of a plan: its providers' weights
// (service and method level, Java's warm-up) and, for the roundrobin
// delegate, its round-robin state. The pick is the loadbalance package of
// the delegate's name.
type pool struct {
	index []int         // pool position -> provider index
	set   *lbweight.Set // nil for an empty pool
	rr    *roundrobin.Plan
}

func (pl *pool) init(ps []lbweight.Provider, index []int, clock lbweight.Clock, del Delegate) {
	pl.index = index
	if len(ps) == 0 {
		return
	}
	pl.set = lbweight.NewSet(ps, clock)
	if del == DelegateRoundRobin {
		pl.rr = roundrobin.New().Plan(pl.set)
	}
}

// pickIn runs the delegate inside a non-empty pool and returns a provider
// index.
func (p *Plan) pickIn(pl *pool, method string) int {
	if len(pl.index) == 1 {
		return pl.index[0] // single-provider shortcut: weights unread
	}
	var k int
	switch p.delegate {
	case DelegateRoundRobin:
		k = pl.rr.Pick(method)
	case DelegateLeastActive:
		k = leastactive.PickBy(pl.set.Table(method), func(k int) int64 { return p.activeOf(pl, k, method) }, p.rnd)
	case DelegateP2C:
		k = p2c.Pick(pl.set.Table(method), func(k int) int64 { return p.activeOf(pl, k, method) }, p.rnd)
	default:
		k = random.PickWeighted(pl.set.Table(method), p.rnd)
	}
	return pl.index[k]
}

// activeOf is the calls in flight to the pool's k-th provider.
func (p *Plan) activeOf(pl *pool, k int, method string) int64 {
	if p.active == nil {
		return 0
	}
	return p.active.Active(pl.index[k], method)
}

// draw is rnd(n) clamped into [0, n), so a misbehaving injected Rand cannot
// index out of range.
func draw(rnd router.Rand, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	if v := rnd(n); v < n {
		return v
	}
	return n - 1
}
