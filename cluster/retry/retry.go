package retry

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dubboroute/dubboroute/internal/enum"
)

// Category is the kind of a failed attempt as the policy sees it.
type Category uint8

const (
	// None is not a failure the policy retries (OK, a business exception,
	// a result carrying an RpcException, no provider).
	None Category = iota
	// Connect is a failure to reach the provider (connection closed,
	// refused or never made): the request did not run.
	Connect
	// Timeout is an attempt that got no answer in time: the provider may
	// have run it.
	Timeout
	// Server is any other thrown failure (a non-OK status the provider
	// sent, a write that may have been partial): the provider may have run
	// it.
	Server
)

var categoryNames = [...]string{"none", "connect", "timeout", "server"}

// String names the category (metrics' category label, the retry.on
// spelling).
func (c Category) String() string { return enum.Name(categoryNames[:], c, "category") }

// Denial is why a retry was not made ("" when it was allowed).
type Denial string

// Denials, in the order the gates run.
const (
	Allowed       Denial = ""
	NotRetryable  Denial = "not-retryable"  // the category is not in retry.on
	NonIdempotent Denial = "non-idempotent" // a timeout or server error of a method not marked idempotent
	ChainStop     Denial = "chain-stop"     // the served request was itself a retry
	Budget        Denial = "budget"         // the retry budget is spent
	Deadline      Denial = "deadline"       // the caller's deadline leaves no time for another attempt
)

// Parameter names (consumer URL parameters; the method forms
// <m>.<key> and methods.<m>.<key> win over the reference's).
const (
	ParamPolicy     = "dubboroute.retry.policy"      // "on" enables the policy
	ParamOn         = "dubboroute.retry.on"          // comma list of connect, timeout, server; default connect,timeout,server (idempotency still gates the last two)
	ParamIdempotent = "dubboroute.idempotent"        // true: timeouts and server errors are retried for the method
	ParamBudget     = "dubboroute.retry.budget"      // "maxTokens,tokenRatio", default 10,0.1; "off" for none
	ParamBackoff    = "dubboroute.retry.backoff"     // base of the jittered exponential backoff, default 0 (none)
	ParamBackoffMax = "dubboroute.retry.backoff-max" // cap, default 10 × base
	ParamChainStop  = "dubboroute.retry.chain-stop"  // default true
)

// Params lists every parameter name this package reads (for lint).
var Params = []string{ParamPolicy, ParamOn, ParamIdempotent, ParamBudget, ParamBackoff, ParamBackoffMax, ParamChainStop}

// ChainKey is the attachment a retry attempt carries (the attempt index);
// a hop serving a request that carries it makes no retries with chain stop
// on. It is a lane key (extension/lane passes it on to the calls the
// handler makes).
const ChainKey = "dubboroute.retry"

// Policy is one method's retry policy.
type Policy struct {
	// On is the set of categories retried (bit 1<<Category).
	On uint8
	// Idempotent lets timeouts and server errors be retried.
	Idempotent bool
	// ChainStop: a served request that was a retry is not retried again.
	ChainStop bool
	// BackoffBase, BackoffMax: retry n waits U[0, (2^n−1)×base), at most
	// max (Envoy's fully jittered exponential backoff). 0: no wait.
	BackoffBase, BackoffMax time.Duration
	// Budget is the reference's token bucket (nil: no budget).
	Budget *Bucket
}

// DefaultMaxTokens and DefaultTokenRatio are the default budget (gRPC's
// maxTokens and tokenRatio).
const (
	DefaultMaxTokens  = 10
	DefaultTokenRatio = 0.1
)

// ParseOn reads a retry.on list.
func ParseOn(v string) (uint8, error) {
	var on uint8
	for _, f := range strings.Split(v, ",") {
		switch strings.TrimSpace(strings.ToLower(f)) {
		case "connect":
			on |= 1 << Connect
		case "timeout":
			on |= 1 << Timeout
		case "server":
			on |= 1 << Server
		case "":
		default:
			return 0, fmt.Errorf("retry parameter %s: unknown category %q (want connect, timeout, server)", ParamOn, f)
		}
	}
	return on, nil
}

// AllOn is every category.
const AllOn = 1<<Connect | 1<<Timeout | 1<<Server

// ParseBudget reads "maxTokens,tokenRatio" (gRPC's limits: maxTokens in
// (0, 1000], tokenRatio > 0 with 3 decimals). "off" gives nil.
func ParseBudget(v string) (*Bucket, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return NewBucket(DefaultMaxTokens, DefaultTokenRatio), nil
	}
	if strings.EqualFold(v, "off") {
		return nil, nil
	}
	a, b, ok := strings.Cut(v, ",")
	mt, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	ratio, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err1 != nil || err2 != nil || mt <= 0 || mt > 1000 || ratio <= 0 {
		return nil, fmt.Errorf("retry parameter %s=%q: want maxTokens,tokenRatio with 0 < maxTokens ≤ 1000 and tokenRatio > 0 (e.g. 10,0.1)", ParamBudget, v)
	}
	return NewBucket(mt, ratio), nil
}

// Bucket is gRPC's retry throttling token bucket in milli-tokens (exact
// arithmetic): it starts full; a retryable failure takes 1 token, a success
// gives tokenRatio back (clamped to [0, maxTokens]); retries are allowed
// only while tokens > maxTokens/2. Safe for concurrent use; O(1), no
// allocation.
type Bucket struct {
	max, ratio int64 // milli
	tokens     atomic.Int64
	denied     atomic.Uint64
}

// NewBucket returns a full bucket.
func NewBucket(maxTokens, tokenRatio float64) *Bucket {
	b := &Bucket{max: int64(maxTokens*1000 + 0.5), ratio: int64(tokenRatio*1000 + 0.5)}
	b.tokens.Store(b.max)
	return b
}

// Failure takes a token for a retryable failure (gRPC's throttle()).
func (b *Bucket) Failure() {
	for {
		t := b.tokens.Load()
		if b.tokens.CompareAndSwap(t, max(t-1000, 0)) {
			return
		}
	}
}

// Allow reports whether a retry may be made: tokens > maxTokens/2.
func (b *Bucket) Allow() bool { return b.tokens.Load() > b.max/2 }

// Denied is the number of retries the bucket refused.
func (b *Bucket) Denied() uint64 { return b.denied.Load() }

// Success gives tokenRatio back.
func (b *Bucket) Success() {
	for {
		t := b.tokens.Load()
		n := min(t+b.ratio, b.max)
		if t == n || b.tokens.CompareAndSwap(t, n) {
			return
		}
	}
}

// Tokens is the bucket's level and capacity, in tokens.
func (b *Bucket) Tokens() (tokens, maxTokens float64) {
	return float64(b.tokens.Load()) / 1000, float64(b.max) / 1000
}

// Attempt is what the gate knows of the attempt that just failed.
type Attempt struct {
	// Category of its failure.
	Category Category
	// Retried: the served request this call is made for carried ChainKey.
	Retried bool
	// N is the number of the retry asked for (1 for the first retry).
	N int
	// Remaining is the time left before the caller's deadline (<0: none).
	Remaining time.Duration
	// PerTry is one attempt's timeout (0: unknown).
	PerTry time.Duration
}

// Retryable reports whether a failure of category c may be retried by
// this policy (retry.on and idempotency).
func (p *Policy) Retryable(c Category) bool {
	return c != None && p.On&(1<<c) != 0 && (c == Connect || p.Idempotent)
}

// Failed records one failed attempt: a retryable failure takes a token
// from the budget, the last attempt's too (gRPC).
func (p *Policy) Failed(c Category) {
	if p.Budget != nil && p.Retryable(c) {
		p.Budget.Failure()
	}
}

// Gate decides whether a failed attempt (already recorded with Failed) is
// retried, and after how long. Gates, in order: the category (retry.on; a
// timeout or server error only for an idempotent method), chain stop, the
// budget (tokens > maxTokens/2), the deadline (the backoff plus one
// attempt must fit). rnd draws in [0, n) (nil: math/rand/v2).
func (p *Policy) Gate(a Attempt, rnd func(n int64) int64) (wait time.Duration, d Denial) {
	if a.Category == None || p.On&(1<<a.Category) == 0 {
		return 0, NotRetryable
	}
	if a.Category != Connect && !p.Idempotent {
		return 0, NonIdempotent
	}
	if p.ChainStop && a.Retried {
		return 0, ChainStop
	}
	if p.Budget != nil && !p.Budget.Allow() {
		p.Budget.denied.Add(1)
		return 0, Budget
	}
	wait = p.backoff(a.N, rnd)
	if a.Remaining >= 0 && a.Remaining < wait+a.PerTry {
		return 0, Deadline
	}
	return wait, Allowed
}

// backoff is retry n's wait: U[0, (2^n−1)×base), at most max.
func (p *Policy) backoff(n int, rnd func(int64) int64) time.Duration {
	if p.BackoffBase <= 0 || n <= 0 {
		return 0
	}
	maxB := p.BackoffMax
	if maxB <= 0 {
		maxB = 10 * p.BackoffBase
	}
	span := p.BackoffBase * time.Duration(1<<min(n, 30)-1)
	if span > maxB || span <= 0 {
		span = maxB
	}
	if rnd == nil {
		rnd = rand.Int64N
	}
	return time.Duration(rnd(int64(span)))
}

// Done records a call's final outcome in the budget: a success (OK or a
// business exception) gives tokens back.
func (p *Policy) Done(ok bool) {
	if p.Budget != nil && ok {
		p.Budget.Success()
	}
}

// Error is a failure returned because a retry was denied: the last
// attempt's error with the gate that said no.
type Error struct {
	Reason Denial
	Cause  error
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("retry not made (%s): %v", e.Reason, e.Cause)
}

// Unwrap returns the last attempt's error.
func (e *Error) Unwrap() error { return e.Cause }
