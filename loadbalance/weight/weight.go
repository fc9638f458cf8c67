package weight

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Java's defaults (AbstractLoadBalance, cluster Constants).
const (
	// Default is a provider's weight without a weight parameter.
	Default = 100
	// DefaultWarmupMillis is the warm-up period without a warmup parameter:
	// 10 minutes, in milliseconds.
	DefaultWarmupMillis = 10 * 60 * 1000
)

// Params is a provider URL's parameters as a balancer reads them.
type Params interface {
	// Get returns the value of key and whether it is present.
	Get(key string) (string, bool)
}

// Map is Params over a plain map.
type Map map[string]string

// Get implements Params.
func (m Map) Get(key string) (string, bool) {
	v, ok := m[key]
	return v, ok
}

// Provider is what the balancers know of one provider invoker, fixed when
// a routed list is planned.
type Provider struct {
	// Params are the configured invoker URL's parameters.
	Params Params
	// Address is Java's URL.getAddress: host:port, or the host when the
	// port is 0.
	Address string
	// Identity is Java's URL.toIdentityString:
	// protocol://[user[:password]@]host:port/path, no parameters.
	Identity string
	// ServiceKey is Java's URL.getServiceKey: [group/]interface[:version].
	ServiceKey string
}

// Rand draws a uniform integer in [0, bound), bound > 0, as Java's
// ThreadLocalRandom.nextInt(bound). It must be safe for concurrent use.
type Rand func(bound int) int

// DefaultRand is math/rand/v2's IntN.
func DefaultRand(bound int) int { return rand.IntN(bound) }

// Clock is the time in milliseconds since the epoch.
type Clock func() int64

// DefaultClock is time.Now in milliseconds.
func DefaultClock() int64 { return time.Now().UnixMilli() }

// MethodParam is Java's URL.getMethodParameter(method, key) on one URL:
// the strict method parameter <method>.<key> (only when the URL has no
// methods parameter or lists the method), then dubbo-go's
// methods.<method>.<key>, then the service-level key. Empty values count as
// absent, as Java's StringUtils.isNotEmpty checks.
func MethodParam(p Params, method, key string) (string, bool) {
	if p == nil {
		return "", false
	}
	if method != "" {
		if v, ok := StrictMethodParam(p, method, key); ok {
			return v, true
		}
		if v, ok := p.Get("methods." + method + "." + key); ok && v != "" {
			return v, true
		}
	}
	if v, ok := p.Get(key); ok && v != "" {
		return v, true
	}
	return "", false
}

// StrictMethodParam is Java's URLParam.getMethodParameterStrict: the value
// of <method>.<key>, unless the URL has a methods parameter that does not
// contain the method name as a substring (Java's methods.contains(method):
// methods=getUser lets method get read get.weight). Java's URLParam.parse
// files every dotted key under the text before its first dot, with or
// without methods, so a method name with a dot owns no parameter.
func StrictMethodParam(p Params, method, key string) (string, bool) {
	if ms, ok := p.Get("methods"); ok && ms != "" && !strings.Contains(ms, method) {
		return "", false
	}
	if strings.IndexByte(method, '.') >= 0 {
		return "", false
	}
	v, ok := p.Get(method + "." + key)
	if !ok || v == "" {
		return "", false
	}
	return v, true
}

// ParseInt is Java's Integer.parseInt for the ASCII forms URLs carry (an
// optional sign, decimal digits, 32-bit range); ok is false where Java
// throws NumberFormatException.
func ParseInt(s string) (int32, bool) {
	v, ok := parseJava(s, 32)
	return int32(v), ok
}

// ParseLong is Java's Long.parseLong for ASCII forms.
func ParseLong(s string) (int64, bool) { return parseJava(s, 64) }

// parseJava parses a decimal of bits bits as Java's parseInt and parseLong
// do: no surrounding space.
func parseJava(s string, bits int) (int64, bool) {
	if s == "" || strings.TrimSpace(s) != s {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, false
	}
	return v, true
}

// CalculateWarmupWeight is Java's AbstractLoadBalance.calculateWarmupWeight:
// (int)(uptime / ((float)warmup / weight)) clamped to [1, weight], in float32.
func CalculateWarmupWeight(uptime, warmup, weight int32) int32 {
	ww := javaF2I(float32(uptime) / (float32(warmup) / float32(weight)))
	if ww < 1 {
		return 1
	}
	return min(ww, weight)
}

// javaF2I is Java's (int) cast of a float: NaN is 0, out-of-range saturates.
func javaF2I(f float32) int32 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int32(f)
}

// Warm is AbstractLoadBalance.getWeight after the weight lookup: weight is
// the configured weight, timestamp the provider's start in milliseconds
// (<= 0: unknown), warmup the period in milliseconds, now the time in
// milliseconds.
func Warm(weight int32, timestamp int64, warmup int32, now int64) int32 {
	if weight > 0 && timestamp > 0 {
		uptime := now - timestamp
		if uptime < 0 {
			return 1
		}
		if uptime > 0 && uptime < int64(warmup) {
			// Java casts the long uptime to int; it is below warmup, an int.
			weight = CalculateWarmupWeight(int32(uptime), warmup, weight)
		}
	}
	return max(weight, 0)
}

// NextChange is the first instant after now (ms) at which
// Warm(weight, timestamp, warmup, ·) may differ from its value at now, or
// math.MaxInt64 when it never changes again. The warm weight is monotone in
// the uptime over (0, warmup), so a binary search finds the step exactly.
func NextChange(weight int32, timestamp int64, warmup int32, now int64) int64 {
	if weight <= 0 || timestamp <= 0 {
		return math.MaxInt64
	}
	uptime := now - timestamp
	switch {
	case uptime < 0:
		return timestamp
	case uptime == 0:
		return timestamp + 1
	case uptime >= int64(warmup):
		return math.MaxInt64
	}
	cur := Warm(weight, timestamp, warmup, now)
	if cur >= weight {
		// Already full; it stays full up to warmup and after.
		return math.MaxInt64
	}
	lo, hi := uptime, int64(warmup)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if Warm(weight, timestamp, warmup, timestamp+mid) == cur {
			lo = mid
		} else {
			hi = mid
		}
	}
	return timestamp + hi
}

// Config is one provider's weight configuration for one method, read from
// its URL as Java reads it.
type Config struct {
	// Weight is the configured weight (Default when absent or malformed).
	Weight int32
	// Explicit: the URL has a non-empty weight for the method (Java's
	// RandomLoadBalance.needWeightLoadBalance looks at this and Stamped of
	// the first provider).
	Explicit bool
	// Timestamp is the provider's start in ms (0: none or malformed).
	Timestamp int64
	// Stamped: the URL has a non-empty timestamp.
	Stamped bool
	// Warmup is the warm-up period in ms.
	Warmup int32
}

// Read reads a provider's weight configuration for method ("" = service
// level) and reports malformed numbers as problems.
func Read(p Params, method string) (Config, []string) {
	c := Config{Weight: Default, Warmup: DefaultWarmupMillis}
	var problems []string
	if v, ok := MethodParam(p, method, "weight"); ok {
		c.Explicit = true
		if w, ok := ParseInt(v); ok {
			c.Weight = w
		} else {
			problems = append(problems, fmt.Sprintf("weight %q is not an int (Java fails every call; read as %d)", v, Default))
		}
	}
	if p != nil {
		if v, ok := p.Get("timestamp"); ok && v != "" {
			c.Stamped = true
			if ts, ok := ParseLong(v); ok {
				c.Timestamp = ts
			} else {
				problems = append(problems, fmt.Sprintf("timestamp %q is not a long (Java fails every call; no warm-up)", v))
			}
		}
		if v, ok := p.Get("warmup"); ok && v != "" {
			if w, ok := ParseInt(v); ok {
				c.Warmup = w
			} else {
				problems = append(problems, fmt.Sprintf("warmup %q is not an int (Java fails every call; read as %d)", v, DefaultWarmupMillis))
			}
		}
	}
	return c, problems
}

// Effective is Java's getWeight for a provider at now (ms).
func (c Config) Effective(now int64) int32 { return Warm(c.Weight, c.Timestamp, c.Warmup, now) }

// Of is Java's getWeight(invoker, invocation) for a provider's parameters,
// the invocation's method name (the real one for generic calls) and now.
func Of(p Params, method string, now int64) int32 {
	c, _ := Read(p, method)
	return c.Effective(now)
}

// Table is one weight scheme's effective weights at an instant. It is
// immutable.
type Table struct {
	// Weights are the effective weights, in provider order.
	Weights []int32
	// Prefix are their running sums: Prefix[i] = Weights[0] + ... + Weights[i].
	Prefix []int64
	// Total is the sum of the weights.
	Total int64
	// Same: every weight equals the first.
	Same bool
	// NeedWeight is Java's RandomLoadBalance.needWeightLoadBalance: the
	// first provider has an explicit weight or a timestamp. Without it
	// Java's random draws uniformly whatever the weights.
	NeedWeight bool

	builtAt, validUntil int64
}

// Search returns the first index whose prefix sum exceeds offset (0 <=
// offset < Total): Java's cumulative-weight pick, by binary search.
func (t *Table) Search(offset int64) int {
	return sort.Search(len(t.Prefix), func(i int) bool { return t.Prefix[i] > offset })
}

// scheme is the configured weights of a provider list for one method.
type scheme struct {
	cfg     []Config
	warming bool
	cur     atomic.Pointer[Table]
	mu      sync.Mutex
}

func newScheme(cfg []Config, now int64) *scheme {
	s := &scheme{cfg: cfg}
	for _, c := range cfg {
		if c.Timestamp > 0 && c.Weight > 0 {
			s.warming = true
		}
	}
	s.cur.Store(s.build(now))
	return s
}

func (s *scheme) build(now int64) *Table {
	n := len(s.cfg)
	t := &Table{Weights: make([]int32, n), Prefix: make([]int64, n), Same: true, builtAt: now, validUntil: math.MaxInt64}
	if n > 0 {
		t.NeedWeight = s.cfg[0].Explicit || s.cfg[0].Stamped
	}
	var sum int64
	for i, c := range s.cfg {
		w := c.Effective(now)
		t.Weights[i] = w
		sum += int64(w)
		t.Prefix[i] = sum
		if w != t.Weights[0] {
			t.Same = false
		}
		if nc := NextChange(c.Weight, c.Timestamp, c.Warmup, now); nc < t.validUntil {
			t.validUntil = nc
		}
	}
	t.Total = sum
	return t
}

func (s *scheme) table(clock Clock) *Table {
	t := s.cur.Load()
	if !s.warming {
		return t
	}
	now := clock()
	if now >= t.builtAt && now < t.validUntil {
		return t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t = s.cur.Load()
	if now >= t.builtAt && now < t.validUntil {
		return t
	}
	t = s.build(now)
	s.cur.Store(t)
	return t
}

// Set is the weight tables of one routed provider list: the service level
// and every method some provider configures a weight for. Safe for
// concurrent use.
type Set struct {
	providers []Provider
	clock     Clock
	service   *scheme
	methods   map[string]*scheme
	problems  []string
}

// NewSet reads the weights of providers (nil clock: DefaultClock).
func NewSet(providers []Provider, clock Clock) *Set {
	if clock == nil {
		clock = DefaultClock
	}
	now := clock()
	s := &Set{providers: providers, clock: clock}
	cfg := make([]Config, len(providers))
	seen := map[string]bool{}
	for i, p := range providers {
		c, probs := Read(p.Params, "")
		cfg[i] = c
		for _, pr := range probs {
			if !seen[pr] {
				seen[pr] = true
				s.problems = append(s.problems, p.Address+": "+pr)
			}
		}
	}
	s.service = newScheme(cfg, now)
	names := map[string]bool{}
	for _, p := range providers {
		methodKeys(p.Params, names)
	}
	if len(names) > 0 {
		s.methods = make(map[string]*scheme, len(names))
		for m := range names {
			mc := make([]Config, len(providers))
			for i, p := range providers {
				c, probs := Read(p.Params, m)
				mc[i] = c
				for _, pr := range probs {
					key := p.Address + ": " + m + ": " + pr
					if !seen[key] {
						seen[key] = true
						s.problems = append(s.problems, key)
					}
				}
			}
			s.methods[m] = newScheme(mc, now)
		}
	}
	return s
}

// Ranger is implemented by Params that can list their keys.
type Ranger interface {
	// Range calls f for every parameter until f returns false.
	Range(f func(key, value string) bool)
}

// Range implements Ranger.
func (m Map) Range(f func(key, value string) bool) {
	for k, v := range m {
		if !f(k, v) {
			return
		}
	}
}

// methodKeys adds the methods for which p configures a method-level weight.
func methodKeys(p Params, into map[string]bool) {
	r, ok := p.(Ranger)
	if !ok {
		return
	}
	r.Range(func(k, _ string) bool {
		if m, ok := strings.CutSuffix(k, ".weight"); ok && m != "" {
			if dg, ok := strings.CutPrefix(m, "methods."); ok && dg != "" {
				into[dg] = true
			}
			if strings.IndexByte(m, '.') < 0 {
				into[m] = true
			}
		}
		return true
	})
}

// Len is the number of providers.
func (s *Set) Len() int { return len(s.providers) }

// Providers are the providers, in order.
func (s *Set) Providers() []Provider { return s.providers }

// Clock is the set's clock.
func (s *Set) Clock() Clock { return s.clock }

// Problems are the malformed numbers found, one line each.
func (s *Set) Problems() []string { return s.problems }

// Table returns the current weights for method without allocating.
func (s *Set) Table(method string) *Table {
	if s.methods != nil {
		if sc, ok := s.methods[method]; ok {
			return sc.table(s.clock)
		}
	}
	return s.service.table(s.clock)
}
