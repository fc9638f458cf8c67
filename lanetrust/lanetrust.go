package lanetrust

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/netip"
	"os"
	"sort"
	"strings"
)

// SignatureKey is the attachment carrying the signature of a gray decision
// (Policy.Key): "v1:<identity keys, comma separated>:<MAC>".
const SignatureKey = "dubboroute.gray.sig"

// Caller is what a provider knows of the caller of one served call.
type Caller struct {
	// Service is the interface served, Method the method called.
	Service, Method string
	// Protocol is the protocol the call arrived on (dubbo, tri).
	Protocol string
	// RemoteAddr is the caller's host:port as the provider's server saw
	// the connection: dubbo-go sets it for the dubbo protocol only (over
	// tri it is ""; an attachment of that name sent by the caller is not
	// taken).
	RemoteAddr string
	// Attachment reads the call's attachments as received: whatever the
	// caller claimed (its application, a token), not authenticated.
	Attachment func(key string) (string, bool)
}

// Policy is a provider's trust boundary for the lane attachments of the
// calls it serves, as an Istio ingress gateway strips or sets headers at
// the edge: a served call is trusted or not (Untrusted); from an untrusted
// caller the lane keys are dropped (or, with KeepIdentity, only the keys
// that steer: the tag, its force flag and the gray decision, so the gray
// decision is computed again here from the rules in force), then Set may
// put the provider's own values in. With Key, a gray decision is honoured
// only with a valid signature, from any caller.
//
// The zero Policy trusts every caller (dubboroute's behaviour before it).
type Policy struct {
	// Services are the served interfaces at the edge: their callers are
	// untrusted unless from TrustedNets or Trusted says so. "*" is every
	// interface.
	Services []string
	// TrustedNets are caller networks that are trusted at the edge
	// (matched on Caller.RemoteAddr: a call without one, e.g. over tri, is
	// not from a trusted network).
	TrustedNets []netip.Prefix
	// Trusted, when set, decides for every served call (edge services or
	// not): true trusts the caller's lane keys. It runs after TrustedNets
	// (a trusted network is trusted without asking).
	Trusted func(Caller) bool
	// KeepIdentity keeps an untrusted caller's identity keys (the gray
	// rules' attachments, e.g. userId) and drops only the tag, the force
	// flag, the gray decision and its signature.
	KeepIdentity bool
	// Set returns lane attachments to put on an untrusted call after the
	// strip, e.g. the user id of the session the edge authenticated.
	Set func(Caller) map[string]string
	// Key, when not empty, is the shared key of the gray decision's
	// integrity check: the gray balancer signs the decisions it writes
	// (HMAC-SHA256 over the decision and the identity keys' values), and a
	// served call's decision without a valid signature is dropped (the
	// next gray balancer decides again from the rules).
	Key []byte
}

// Active reports whether the policy changes anything.
func (p *Policy) Active() bool {
	return p != nil && (len(p.Services) > 0 || p.Trusted != nil || len(p.Key) > 0)
}

// Untrusted reports whether the call's lane keys are not to be taken.
func (p *Policy) Untrusted(c Caller) bool {
	if p == nil {
		return false
	}
	edge := false
	for _, s := range p.Services {
		if s == "*" || s == c.Service {
			edge = true
			break
		}
	}
	if !edge && p.Trusted == nil {
		return false
	}
	if len(p.TrustedNets) > 0 && c.RemoteAddr != "" {
		if ap, err := netip.ParseAddrPort(c.RemoteAddr); err == nil {
			a := ap.Addr().Unmap()
			for _, n := range p.TrustedNets {
				if n.Contains(a) {
					return false
				}
			}
		}
	}
	if p.Trusted != nil {
		return !p.Trusted(c)
	}
	return edge
}

// Attachments is the received attachment map of a served call (dubbo-go's
// values are strings, or []string over tri).
type Attachments map[string]any

func (a Attachments) get(k string) (string, bool) {
	switch v := a[k].(type) {
	case string:
		return v, true
	case []string:
		if len(v) > 0 {
			return v[0], true
		}
		return "", true
	}
	return "", false
}

// deleteFold removes every key equal to k ignoring case: a triple caller
// can spell a key in any case (tri-header-convert), and the next hop's
// triple client lowercases it again.
func (a Attachments) deleteFold(k string) {
	for key := range a {
		if strings.EqualFold(key, k) {
			delete(a, key)
		}
	}
}

// Outcome is what Apply did to one call.
type Outcome struct {
	Untrusted bool
	// Dropped are the lane keys removed.
	Dropped []string
	// DecisionRejected is true when a gray decision was dropped for a
	// missing or invalid signature.
	DecisionRejected bool
}

// Apply enforces the policy on a served call's attachments, before the
// lane is captured. steer are the lane keys that steer (tag, force flag,
// gray decision), identity the keys that say who the request is for (the
// gray rules' attachments), decisionKey the gray decision's attachment.
func (p *Policy) Apply(c Caller, atts Attachments, steer, identity []string, decisionKey string) Outcome {
	var out Outcome
	if p == nil || atts == nil {
		return out
	}
	drop := func(k string) {
		for key := range atts {
			if strings.EqualFold(key, k) {
				out.Dropped = append(out.Dropped, key)
			}
		}
		atts.deleteFold(k)
	}
	if p.Untrusted(c) {
		out.Untrusted = true
		for _, k := range steer {
			drop(k)
		}
		drop(decisionKey)
		drop(SignatureKey)
		if !p.KeepIdentity {
			for _, k := range identity {
				drop(k)
			}
		}
		if p.Set != nil {
			for k, v := range p.Set(c) {
				atts.deleteFold(k)
				atts[k] = v
			}
		}
	}
	if len(p.Key) > 0 {
		if d, ok := atts.get(decisionKey); ok && d != "" {
			sig, _ := atts.get(SignatureKey)
			if !p.Verify(d, sig, atts.get) {
				out.DecisionRejected = true
				drop(decisionKey)
				drop(SignatureKey)
			}
		}
	}
	return out
}

// Sign returns the signature of a gray decision over the values of the
// identity keys (keys without a value sign as absent).
func (p *Policy) Sign(decision string, identity []string, get func(string) (string, bool)) string {
	keys := make([]string, 0, len(identity))
	seen := map[string]bool{}
	for _, k := range identity {
		if k == "" || strings.ContainsAny(k, ",:") || seen[k] {
			continue
		}
		seen[k] = true
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "v1:" + strings.Join(keys, ",") + ":" + p.mac(decision, keys, get)
}

// Verify checks a decision's signature.
func (p *Policy) Verify(decision, sig string, get func(string) (string, bool)) bool {
	rest, ok := strings.CutPrefix(sig, "v1:")
	if !ok {
		return false
	}
	names, mac, ok := strings.Cut(rest, ":")
	if !ok {
		return false
	}
	var keys []string
	if names != "" {
		keys = strings.Split(names, ",")
	}
	want := p.mac(decision, keys, get)
	return hmac.Equal([]byte(mac), []byte(want))
}

func (p *Policy) mac(decision string, keys []string, get func(string) (string, bool)) string {
	m := hmac.New(sha256.New, p.Key)
	fmt.Fprintf(m, "dubboroute.gray\x00%d:%s", len(decision), decision)
	for _, k := range keys {
		v, ok := get(k)
		if !ok {
			fmt.Fprintf(m, "\x00%d:%s\x00-", len(k), k)
			continue
		}
		fmt.Fprintf(m, "\x00%d:%s\x00%d:%s", len(k), k, len(v), v)
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// Environment variables of FromEnv.
const (
	// IngressEnv lists the edge services (comma separated, "*" for all).
	IngressEnv = "DUBBOROUTE_LANE_INGRESS"
	// IngressModeEnv is "strip" (default) or "keep-identity".
	IngressModeEnv = "DUBBOROUTE_LANE_INGRESS_MODE"
	// TrustedNetsEnv lists trusted caller networks (CIDRs or addresses).
	TrustedNetsEnv = "DUBBOROUTE_LANE_TRUSTED"
	// KeyFileEnv names a file holding the decision key (outer blanks
	// trimmed); KeyEnv holds the key itself (prefer the file).
	KeyFileEnv = "DUBBOROUTE_LANE_KEY_FILE"
	KeyEnv     = "DUBBOROUTE_LANE_KEY"
)

// FromEnv reads a Policy from the environment (nil when none of its
// variables is set).
func FromEnv(lookup func(string) (string, bool)) (*Policy, error) {
	p := &Policy{}
	set := false
	list := func(v string) []string {
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if v, ok := lookup(IngressEnv); ok {
		p.Services, set = list(v), true
	}
	if v, ok := lookup(IngressModeEnv); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "strip":
		case "keep-identity":
			p.KeepIdentity = true
		default:
			return nil, fmt.Errorf("%s=%q: want strip or keep-identity", IngressModeEnv, v)
		}
		set = true
	}
	if v, ok := lookup(TrustedNetsEnv); ok {
		for _, s := range list(v) {
			n, err := ParseNet(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", TrustedNetsEnv, err)
			}
			p.TrustedNets = append(p.TrustedNets, n)
		}
		set = true
	}
	if f, ok := lookup(KeyFileEnv); ok && f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%s: read the lane decision key: %w", KeyFileEnv, err)
		}
		p.Key, set = []byte(strings.TrimSpace(string(b))), true
	} else if v, ok := lookup(KeyEnv); ok && v != "" {
		p.Key, set = []byte(strings.TrimSpace(v)), true
	}
	if p.Key != nil && len(p.Key) < 16 {
		return nil, fmt.Errorf("lane decision key: %d bytes, want at least 16", len(p.Key))
	}
	if !set {
		return nil, nil
	}
	return p, nil
}

// ParseNet parses a CIDR or a single address.
func ParseNet(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		n, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("network %q: %w", s, err)
		}
		return n.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network %q: %w", s, err)
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}
