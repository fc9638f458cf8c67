package router

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/internal/javastr"
)

// ErrHostUnresolved is wrapped by the error ParseAddressPatternWith returns
// when a hostname pattern could not be resolved. Unlike every other parse
// error, the AddressPattern returned with it is usable: it matches nothing,
// which is what Java does with a pattern whose InetAddress.getByName throws
// (it logs the exception and treats the pattern as no match). Callers decide
// whether that is a warning (the tag rule parser) or an error.
var ErrHostUnresolved = errors.New("hostname did not resolve to an IPv4 address")

// AddressPattern is one of Java Dubbo's address patterns (NetUtils.
// matchIpExpression plus the "0.0.0.0:port" rule of TagStateRouter.
// checkAddressMatch), parsed once so that matching is a few integer compares.
//
// Forms (spec §6.2):
//
//	*, *.*.*.*            every host, even one that is not an IP
//	10.0.0.3              that IPv4 address, any port
//	10.0.0.3:20880        that address and port
//	10.0.*.1-9[:port]     per-octet * and a-b ranges (decimal), optional port
//	10.0.0.0/24, fe80::/64  CIDR; no port allowed
//	0.0.0.0:20881         any IPv4 host on port 20881
//	db1.prod.corp.example a hostname, resolved once at parse time (Java resolves
//	                      it per call); like Java it must have 4 dot-separated
//	                      labels and only its first IPv4 address counts
//	fe80::1, [fe80::1]:20880, [1:2:3:4:5:6:7:*]:20880, 1:2:3:4:5:6:7:0-ff
//	                      IPv6 literal, bracketed with a port, or 8 groups with
//	                      * and a-b ranges (hexadecimal)
//
// Java interprets a pattern differently depending on whether the provider host
// is IPv4 or IPv6, and throws (logged, no match) when the pattern does not fit
// the host's family. The pattern therefore keeps one interpretation per family;
// an IPv4 pattern never matches an IPv6 host and vice versa, exactly as in
// Java, and "0.0.0.0:port" matches IPv4 hosts only (for IPv6 hosts Java throws
// before it reaches that rule).
//
// Rejected at parse time, with an error naming the pattern and the reason:
// patterns Java would throw on for every host (an IPv4 pattern without exactly
// 4 octets, a range that is not a-b with integers, a malformed CIDR or IPv6
// form), and patterns Java accepts but that can never match anything because
// Java compares octets, groups and ports as text ("010", "256", "1*",
// "10.0.0.1:*", "10.0.0.1:020880", an IPv4 CIDR with /33). Rejecting those is a
// deliberate divergence: such a pattern is a typo, and rejecting the rule that
// holds it keeps the last good rule in force instead of silently routing
// around a dead pattern. Leading and trailing whitespace is ignored.
//
// Provider hosts are not resolved: a host that is not an IP literal matches
// only * and *.*.*.* (Java would resolve it per call; registries carry IPs).
//
// The zero AddressPattern matches nothing.
type AddressPattern struct {
	text string
	kind patternKind
	// How Java reads the pattern for an IPv4 and for an IPv6 host; nil when
	// Java throws for hosts of that family (no match). Pointers, because a
	// rule lists literal addresses by the thousand and a literal has one
	// reading: 80 bytes a pattern.
	v4, v6 *familyMatcher
	cidr   *cidrRange // kindCIDR
}

// cidrRange is a CIDR range as 128-bit numbers: Java's CIDRUtils compares
// the unsigned value of the host's 4 or 16 address bytes against it,
// whatever the family.
type cidrRange struct{ lo, hi u128 }

type patternKind uint8

const (
	kindNone patternKind = iota
	kindAny
	kindCIDR
	kindHost
)

// familyMatcher is one family's reading of a non-CIDR pattern. Rules list
// literal addresses by the thousand (a tag's gray pool), so the ranges of
// an expression pattern are kept apart: a literal costs 48 bytes a family.
type familyMatcher struct {
	ok          bool       // false: Java throws for hosts of this family -> no match
	exact       bool       // compare with addr (literal or resolved hostname)
	port        int32      // required port, -1 for any
	anyHostPort int32      // "0.0.0.0:port": every host of the family on port; -1 none
	addr        netip.Addr // invalid when a hostname did not resolve: never matches
	rng         *partRanges
}

// partRanges are the inclusive ranges of an expression pattern's 4 octets
// or 8 groups (Java parses range bounds as int).
type partRanges struct{ lo, hi [8]int32 }

type u128 struct{ hi, lo uint64 }

func (a u128) less(b u128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

func addrValue(a netip.Addr) u128 {
	if a.Is4() {
		b := a.As4()
		return u128{lo: uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])}
	}
	b := a.As16()
	var v u128
	for i := 0; i < 8; i++ {
		v.hi = v.hi<<8 | uint64(b[i])
		v.lo = v.lo<<8 | uint64(b[i+8])
	}
	return v
}

// DefaultResolve resolves a hostname with the system resolver and a short
// timeout; what the routers resolve hostname patterns with.
func DefaultResolve(host string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return net.DefaultResolver.LookupHost(ctx, host)
}

// ParseAddressPatternWith parses an address pattern (see AddressPattern for
// the forms and the errors), resolving a hostname pattern with resolve
// (DefaultResolve in production; nil: hostnames never resolve). Only a hostname pattern calls resolve, once.
func ParseAddressPatternWith(s string, resolve func(host string) ([]string, error)) (AddressPattern, error) {
	s = strings.TrimSpace(s)
	p := AddressPattern{text: s}
	switch {
	case s == "":
		return AddressPattern{}, fmt.Errorf("address pattern %q: empty", s)
	case s == "*" || s == "*.*.*.*":
		p.kind = kindAny
		return p, nil
	case strings.Contains(s, "/"):
		if err := p.parseCIDR(s); err != nil {
			return AddressPattern{}, fmt.Errorf("address pattern %q: %w", s, err)
		}
		p.kind = kindCIDR
		return p, nil
	}
	p.kind = kindHost
	v4, err4 := parseV4(s, resolve)
	v6, err6 := parseV6(s)
	if v4.ok {
		p.v4 = &v4
	}
	if v6.ok {
		p.v6 = &v6
	}
	if errors.Is(err4, ErrHostUnresolved) {
		return p, fmt.Errorf("address pattern %q: %w", s, err4)
	}
	if err4 != nil && err6 != nil {
		// Report the reason of the family the author evidently meant.
		err := err4
		if looksV6(s) {
			err = err6
		}
		return AddressPattern{}, fmt.Errorf("address pattern %q: %w", s, err)
	}
	return p, nil
}

// looksV6 tells whether a pattern was meant as IPv6: brackets, or more than
// one colon (IPv4 with a port has exactly one).
func looksV6(s string) bool {
	return strings.HasPrefix(s, "[") || strings.Count(s, ":") > 1
}

func (p *AddressPattern) parseCIDR(s string) error {
	addrPart, prefix, _ := strings.Cut(s, "/")
	a, err := netip.ParseAddr(addrPart)
	if err != nil || a.Zone() != "" {
		return fmt.Errorf("CIDR address %q is not an IP literal (and a CIDR takes no port)", addrPart)
	}
	a = a.Unmap() // Java's InetAddress maps ::ffff:a.b.c.d to IPv4
	bits, err := strconv.Atoi(prefix)
	if err != nil || !javastr.Digits(prefix) {
		return fmt.Errorf("CIDR prefix %q is not a number (a CIDR takes no port)", prefix)
	}
	if bits > a.BitLen() {
		return fmt.Errorf("CIDR prefix /%d is longer than the %d-bit address", bits, a.BitLen())
	}
	pfx := netip.PrefixFrom(a, bits).Masked()
	lo := addrValue(pfx.Addr())
	host := uint(a.BitLen() - bits) // host bits: hi gets what exceeds 64
	span := u128{}
	switch {
	case host >= 128:
		span = u128{^uint64(0), ^uint64(0)}
	case host >= 64:
		span = u128{hi: 1<<(host-64) - 1, lo: ^uint64(0)}
	default:
		span = u128{lo: 1<<host - 1}
	}
	p.cidr = &cidrRange{lo: lo, hi: u128{hi: lo.hi | span.hi, lo: lo.lo | span.lo}}
	return nil
}

// splitPatternHostPort is Java's getPatternHostAndPort: brackets first, then,
// only when the host being matched is IPv4, the first colon.
func splitPatternHostPort(s string, forV4 bool) (host, port string, hasPort bool) {
	switch {
	case strings.HasPrefix(s, "[") && strings.Contains(s, "]:"):
		end := strings.Index(s, "]:")
		return s[1:end], s[end+2:], true
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		return s[1 : len(s)-1], "", false
	case forV4 && strings.Contains(s, ":"):
		h, pt, _ := strings.Cut(s, ":")
		return h, pt, true
	}
	return s, "", false
}

// parsePort accepts only what Java's String.valueOf(port) can equal.
func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || !javastr.Digits(s) || strconv.Itoa(n) != s || n > 65535 {
		return 0, fmt.Errorf("port %q never matches (Java compares the port as text with the provider's decimal port)", s)
	}
	return n, nil
}

func hasExpression(s string) bool { return strings.ContainsAny(s, "*-") }

// hostPortMatcher starts the matcher of pattern s: its port, when s has
// one, and Java's 0.0.0.0:<port> (any host on that port) for IPv4. It
// returns the host part.
func hostPortMatcher(s string, v4 bool) (familyMatcher, string, error) {
	m := familyMatcher{port: -1, anyHostPort: -1}
	host, portText, hasPort := splitPatternHostPort(s, v4)
	if !hasPort {
		return m, host, nil
	}
	pt, err := parsePort(portText)
	if err != nil {
		return familyMatcher{}, "", err
	}
	m.port = int32(pt)
	if v4 && s == "0.0.0.0:"+portText {
		m.anyHostPort = int32(pt)
	}
	return m, host, nil
}

func parseV4(s string, resolve func(string) ([]string, error)) (familyMatcher, error) {
	m, host, err := hostPortMatcher(s, true)
	if err != nil {
		return familyMatcher{}, err
	}
	mask := javastr.Split(host, ".")
	if len(mask) != 4 {
		return familyMatcher{}, fmt.Errorf("an IPv4 pattern needs exactly 4 dot-separated parts, %q has %d", host, len(mask))
	}
	m.ok = true
	if !hasExpression(host) {
		m.exact = true
		if a, err := netip.ParseAddr(host); err == nil && a.Is4() {
			m.addr = a
			return m, nil
		}
		// A hostname (Java: InetAddress.getByName, first address, IPv4 first).
		if resolve != nil {
			addrs, err := resolve(host)
			if err == nil {
				for _, t := range addrs {
					if a, err := netip.ParseAddr(t); err == nil && a.Unmap().Is4() {
						m.addr = a.Unmap()
						return m, nil
					}
				}
			}
		}
		return m, fmt.Errorf("hostname %q: %w; the pattern matches nothing", host, ErrHostUnresolved)
	}
	rng, err := parseParts(mask, false, "octet")
	if err != nil {
		return familyMatcher{}, err
	}
	m.rng = rng
	return m, nil
}

func parseV6(s string) (familyMatcher, error) {
	m, host, err := hostPortMatcher(s, false)
	if err != nil {
		return familyMatcher{}, err
	}
	mask := javastr.Split(host, ":")
	expr := hasExpression(host)
	if len(mask) != 8 && expr {
		return familyMatcher{}, fmt.Errorf("an IPv6 pattern with * or - needs 8 colon-separated groups, %q has %d", host, len(mask))
	}
	if len(mask) != 8 && !strings.Contains(host, "::") {
		return familyMatcher{}, fmt.Errorf("%q is not an IPv6 pattern", host)
	}
	m.ok = true
	if !expr {
		a, err := netip.ParseAddr(host)
		if err != nil || a.Zone() != "" || !a.Is6() {
			return familyMatcher{}, fmt.Errorf("%q is not an IPv6 address", host)
		}
		if a.Is4In6() {
			return familyMatcher{}, fmt.Errorf("%q is an IPv4-mapped address, which Java treats as IPv4 and no IPv6 host equals", host)
		}
		m.exact, m.addr = true, a
		return m, nil
	}
	rng, err := parseParts(mask, true, "group")
	if err != nil {
		return familyMatcher{}, err
	}
	m.rng = rng
	return m, nil
}

// parseParts reads the parts of an expression pattern (parsePart); unit
// names a part in errors.
func parseParts(mask []string, hex bool, unit string) (*partRanges, error) {
	r := &partRanges{}
	for i, part := range mask {
		lo, hi, err := parsePart(part, hex)
		if err != nil {
			return nil, fmt.Errorf("%s %d: %w", unit, i+1, err)
		}
		r.lo[i], r.hi[i] = int32(lo), int32(hi)
	}
	return r, nil
}

// parsePart reads one octet (decimal) or group (hex) of an expression pattern
// as an inclusive range, the way Java's matchIpRange compares it: "*", a text
// equal to the host's part, "a-b" parsed with Integer.parseInt, or a run of
// zeros standing for 0.
func parsePart(part string, hex bool) (lo, hi int64, err error) {
	base, limit := 10, int64(255)
	if hex {
		base, limit = 16, 0xffff
	}
	switch part {
	case "*":
		return 0, limit, nil
	case "0", "00", "000", "0000":
		return 0, 0, nil
	}
	if strings.Contains(part, "-") {
		bounds := strings.Split(part, "-")
		if len(bounds) != 2 {
			return 0, 0, fmt.Errorf("range %q is not a-b", part)
		}
		lo, err1 := strconv.ParseInt(bounds[0], base, 32)
		hi, err2 := strconv.ParseInt(bounds[1], base, 32)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("range %q has a bound that is not a base-%d integer", part, base)
		}
		return lo, hi, nil
	}
	v, err := strconv.ParseUint(part, base, 16)
	if err != nil || v > uint64(limit) || strconv.FormatUint(v, base) != part {
		form := "decimal"
		if hex {
			form = "lower-case hex"
		}
		return 0, 0, fmt.Errorf("%q never matches (Java compares it as text with the host's canonical %s form)", part, form)
	}
	return int64(v), int64(v), nil
}

// Match reports whether the pattern matches a provider at host:port, as
// Java's TagStateRouter.checkAddressMatch would for one pattern. host is an IP
// literal (IPv6 with or without brackets); anything else matches only "*".
// It does not allocate.
func (p AddressPattern) Match(host string, port int) bool {
	switch p.kind {
	case kindNone:
		return false
	case kindAny:
		return true
	}
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return p.MatchAddr(a, port)
}

// MatchAddr is Match for an already parsed address (for callers that parse
// each provider host once). It does not allocate.
func (p AddressPattern) MatchAddr(a netip.Addr, port int) bool {
	switch p.kind {
	case kindNone:
		return false
	case kindAny:
		return true
	}
	if !a.IsValid() {
		return false
	}
	a = a.Unmap().WithZone("")
	if p.kind == kindCIDR {
		v := addrValue(a)
		return p.cidr != nil && !v.less(p.cidr.lo) && !p.cidr.hi.less(v)
	}
	if a.Is4() {
		return p.v4 != nil && p.v4.match(a, port)
	}
	return p.v6 != nil && p.v6.match(a, port)
}

func (m *familyMatcher) match(a netip.Addr, port int) bool {
	if !m.ok || (m.port >= 0 && int(m.port) != port) {
		return false
	}
	if m.anyHostPort >= 0 && int(m.anyHostPort) == port {
		return true
	}
	if m.exact {
		return m.addr.IsValid() && m.addr == a
	}
	r := m.rng
	if r == nil {
		return false
	}
	if a.Is4() {
		b := a.As4()
		for i := 0; i < 4; i++ {
			if v := int32(b[i]); v < r.lo[i] || v > r.hi[i] {
				return false
			}
		}
		return true
	}
	b := a.As16()
	for i := 0; i < 8; i++ {
		if v := int32(b[2*i])<<8 | int32(b[2*i+1]); v < r.lo[i] || v > r.hi[i] {
			return false
		}
	}
	return true
}

// String is the pattern as written (whitespace trimmed).
func (p AddressPattern) String() string { return p.text }

// IsAny reports whether the pattern is "*" or "*.*.*.*".
func (p AddressPattern) IsAny() bool { return p.kind == kindAny }
