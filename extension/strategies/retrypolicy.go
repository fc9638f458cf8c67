package strategies

import (
	"strconv"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"

	"github.com/dubboroute/dubboroute/cluster/outlier"
	"github.com/dubboroute/dubboroute/cluster/retry"
	"github.com/dubboroute/dubboroute/cluster/strategy"
)

// The retry policy of a call (docs/resilience.md): read per method from
// the reference's parameters, its budgets kept in the reference's resil
// (resilience.go), its gates run by failover before each retry.

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
