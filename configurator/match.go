package configurator

import (
	"net/netip"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// Match is a v3.0 config item's match (Java's ConditionMatch): every part
// given must match.
type Match struct {
	Address         *AddressMatch    `json:"address,omitempty"`
	ProviderAddress *AddressMatch    `json:"providerAddress,omitempty"`
	Service         *ListStringMatch `json:"service,omitempty"`
	App             *ListStringMatch `json:"app,omitempty"`
	Param           []ParamMatch     `json:"param,omitempty"`
	// hasParam is true when param was given (even empty).
	hasParam bool
}

// IsMatch is ConditionMatch.isMatch(host, url): address against host (the
// consumer's IP on a consumer, the provider's host on a provider),
// providerAddress against url's ip:port, service against url's service key,
// app against url's application parameter, each param against url's
// parameter.
func (m *Match) IsMatch(host string, u *router.URL) bool {
	if m.Address != nil && !m.Address.IsMatch(host) {
		return false
	}
	if m.ProviderAddress != nil && !m.ProviderAddress.IsMatch(u.Address()) {
		return false
	}
	if m.Service != nil && !m.Service.IsMatch(ServiceKey(u), true) {
		return false
	}
	if m.App != nil {
		v, ok := u.Params.Get(KeyApplication)
		if !m.App.IsMatch(v, ok) {
			return false
		}
	}
	for _, p := range m.Param {
		if !p.IsMatch(u) {
			return false
		}
	}
	return true
}

// AddressMatch is Java's mesh AddressMatch: cird (sic), wildcard, exact,
// tried in that order.
type AddressMatch struct {
	Cird     *string `json:"cird,omitempty"`
	Wildcard *string `json:"wildcard,omitempty"`
	Exact    *string `json:"exact,omitempty"`
}

// IsMatch is AddressMatch.isMatch. input "" is Java's null (no match).
func (a *AddressMatch) IsMatch(input string) bool {
	if input == "" {
		return false
	}
	if a.Cird != nil {
		if input == *a.Cird {
			return true
		}
		if ok, known := matchIPExpression(*a.Cird, input); known {
			return ok
		}
		// Java: UnknownHostException is logged and the other forms are tried.
	}
	if a.Wildcard != nil {
		if *a.Wildcard == AnyHost || *a.Wildcard == AnyValue {
			return true
		}
		return globMatch(*a.Wildcard, input)
	}
	if a.Exact != nil {
		return input == *a.Exact
	}
	return false
}

// matchIPExpression is NetUtils.matchIpExpression(pattern, address) for the
// inputs a configurator passes (an IP without port, or ip:port): known is
// false where Java throws UnknownHostException (the input is not an IP
// literal), so the caller falls through to wildcard and exact.
func matchIPExpression(pattern, input string) (ok, known bool) {
	addr, err := netip.ParseAddr(input)
	if err != nil {
		return false, false // "ip:port" or a hostname: InetAddress.getByName fails (no DNS here)
	}
	p, err := router.ParseAddressPatternWith(pattern, func(string) ([]string, error) { return nil, errNoDNS })
	if err != nil {
		// Java throws IllegalArgumentException for a malformed pattern;
		// treated as no match (the rule is flagged by lint).
		return false, true
	}
	return p.MatchAddr(addr, 0), true
}

type noDNS struct{}

func (noDNS) Error() string { return "hostname patterns are not resolved in configurator matches" }

var errNoDNS error = noDNS{}

// globMatch is UrlUtils.isMatchGlobPattern: only the last * counts.
func globMatch(pattern, value string) bool {
	if pattern == "*" {
		return true
	}
	if pattern == "" && value == "" {
		return true
	}
	if pattern == "" || value == "" {
		return false
	}
	i := strings.LastIndexByte(pattern, '*')
	switch {
	case i < 0:
		return value == pattern
	case i == len(pattern)-1:
		return strings.HasPrefix(value, pattern[:i])
	case i == 0:
		return strings.HasSuffix(value, pattern[1:])
	default:
		return strings.HasPrefix(value, pattern[:i]) && strings.HasSuffix(value, pattern[i+1:])
	}
}

// ListStringMatch is oneof: any StringMatch matches.
type ListStringMatch struct {
	Oneof []StringMatch `json:"oneof"`
}

// IsMatch reports whether any entry matches (present=false is Java's null).
func (l *ListStringMatch) IsMatch(v string, present bool) bool {
	for i := range l.Oneof {
		if ok, _ := l.Oneof[i].Match(v, present); ok {
			return true
		}
	}
	return false
}

// StringMatch is Java's mesh StringMatch (router.StringMatch); a regex RE2
// cannot compile never matches here (lint reports it).
type StringMatch = router.StringMatch

// ParamMatch matches one URL parameter.
type ParamMatch struct {
	Key   *string      `json:"key,omitempty"`
	Value *StringMatch `json:"value,omitempty"`
}

// IsMatch is ParamMatch.isMatch: a missing key or value never matches.
func (p *ParamMatch) IsMatch(u *router.URL) bool {
	if p.Key == nil || p.Value == nil {
		return false
	}
	v, present := u.Params.Get(*p.Key)
	ok, _ := p.Value.Match(v, present)
	return ok
}
