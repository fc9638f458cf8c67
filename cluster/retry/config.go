package retry

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is one method's retry policy as its parameters say (the budget is
// per reference: Budget is its spelling, the caller keeps one Bucket per
// distinct spelling).
type Config struct {
	// Enabled is dubboroute.retry.policy=on.
	Enabled                 bool
	On                      uint8
	Idempotent, ChainStop   bool
	Budget                  string
	BackoffBase, BackoffMax time.Duration
}

// FromParams reads a method's Config; get resolves a key for the method
// (<m>.key, methods.<m>.key, then key) and returns "" when absent. A value
// that does not parse is an error naming the key (the caller keeps Java's
// failover).
func FromParams(get func(string) string) (Config, error) {
	c := Config{On: AllOn, ChainStop: true}
	pol := strings.TrimSpace(get(ParamPolicy))
	if pol == "" || strings.EqualFold(pol, "off") || strings.EqualFold(pol, "false") {
		return c, nil
	}
	if !strings.EqualFold(pol, "on") && !strings.EqualFold(pol, "true") {
		return c, fmt.Errorf("retry parameter %s=%q: want on or off", ParamPolicy, pol)
	}
	c.Enabled = true
	for _, k := range []string{ParamOn, ParamIdempotent, ParamBudget, ParamBackoff, ParamBackoffMax, ParamChainStop} {
		v := strings.TrimSpace(get(k))
		if v == "" {
			continue
		}
		x, err := ParseParam(k, v)
		if err != nil {
			return Config{On: AllOn, ChainStop: true}, err
		}
		switch k {
		case ParamOn:
			c.On = x.(uint8)
		case ParamIdempotent:
			c.Idempotent = x.(bool)
		case ParamBudget:
			c.Budget = v
		case ParamBackoff:
			c.BackoffBase = x.(time.Duration)
		case ParamBackoffMax:
			c.BackoffMax = x.(time.Duration)
		case ParamChainStop:
			c.ChainStop = x.(bool)
		}
	}
	return c, nil
}

// ParseParam reads one retry parameter's value: uint8 for retry.on, bool
// for idempotent, chain-stop and policy, *Bucket for the budget,
// time.Duration for the backoffs. The error names the key.
func ParseParam(key, v string) (any, error) {
	v = strings.TrimSpace(v)
	switch key {
	case ParamPolicy:
		switch strings.ToLower(v) {
		case "on", "true":
			return true, nil
		case "off", "false", "":
			return false, nil
		}
		return nil, fmt.Errorf("retry parameter %s=%q: want on or off", key, v)
	case ParamOn:
		return ParseOn(v)
	case ParamIdempotent, ParamChainStop:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("retry parameter %s=%q: want true or false", key, v)
		}
		return b, nil
	case ParamBudget:
		return ParseBudget(v)
	case ParamBackoff, ParamBackoffMax:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return time.Duration(n) * time.Millisecond, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("retry parameter %s=%q: want a duration such as 25ms or a number of milliseconds", key, v)
		}
		return d, nil
	}
	return nil, fmt.Errorf("retry parameter %s: not a parameter dubboroute reads", key)
}
