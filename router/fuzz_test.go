package router

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseURL: registry nodes and router URLs come from ZooKeeper. No
// input panics; an accepted URL has a valid port, names its own address,
// renders to a string that parses back to the same parts, and the encoded
// form (as registry nodes are stored) parses to the same URL.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"dubbo://10.0.0.1:20880/com.x.Svc?application=p&interface=com.x.Svc&weight=100&dubbo.tag=gray",
		"tri://[::1]:50051/a.B?x", "route://0.0.0.0/a.B?category=routers&rule=host%3D1%20%3D%3E", "file:/tmp/x",
		"u:p@h:1/p?a=&=b&&c", "h:99999", "[::1", "[::1]x", "://x", "a://b@c@d:5", "  ", "?a=b", "p://h:+5/x?k= v &z=1",
		"dubbo%3A%2F%2F10.0.0.1%3A20880%2Fa.B%3Fx%3D1", "%zz",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURL(s)
		if err != nil {
			if u != nil {
				t.Fatal("URL and error both returned")
			}
		} else {
			checkURL(t, s, u)
		}
		e, eerr := ParseEncodedURL(url.QueryEscape(s))
		if (eerr == nil) != (err == nil) {
			t.Fatalf("ParseEncodedURL(QueryEscape(%q)) error %v, ParseURL error %v", s, eerr, err)
		}
		if err == nil && (e.Protocol != u.Protocol || e.Host != u.Host || e.Port != u.Port || e.Path != u.Path || e.Params.String() != u.Params.String()) {
			t.Fatalf("encoded form parses to %+v, plain to %+v", e, u)
		}
		_, _ = ParseEncodedURL(s)
	})
}

func checkURL(t *testing.T, s string, u *URL) {
	t.Helper()
	if u.Port < 0 || u.Port > 65535 {
		t.Fatalf("%q: port %d", s, u.Port)
	}
	if !u.IsAddress(u.Address()) {
		t.Fatalf("%q: IsAddress(Address() %q) is false", s, u.Address())
	}
	for _, k := range []string{"protocol", "username", "password", "host", "port", "path", "address", "application", "interface"} {
		_, _ = u.Get(k)
		_, _ = u.RawParameter(k)
	}
	_ = u.ServiceKey()
	n := 0
	for k, v := range u.Params.All() {
		if got, ok := u.Params.Get(k); !ok || got != v {
			t.Fatalf("%q: Params.All gives %s=%q, Get gives %q %t", s, k, v, got, ok)
		}
		n++
	}
	if n != u.Params.Len() {
		t.Fatalf("%q: All lists %d params, Len %d", s, n, u.Params.Len())
	}
	str := u.String()
	if str == "" || strings.TrimSpace(str) != str {
		// Parsing trims the text as a whole (as Java's URL.valueOf): parts
		// that render with outer blanks (a host " 1") do not round-trip.
		return
	}
	r, err := ParseURL(str)
	if err != nil {
		t.Fatalf("%q renders as %q, which does not parse: %v", s, str, err)
	}
	if r.Protocol != u.Protocol || r.Host != u.Host || r.Port != u.Port || r.Path != u.Path || r.Params.Len() != u.Params.Len() {
		t.Fatalf("%q renders as %q, which parses to other parts:\n%+v\n%+v", s, str, u, r)
	}
	for k, v := range u.Params.All() {
		// The rendered text is trimmed as a whole: a value rendered last
		// loses its trailing blanks, as with Java's URL.valueOf.
		if got, ok := r.Params.Get(k); !ok || strings.TrimRight(got, " \t\r\n\v\f") != strings.TrimRight(v, " \t\r\n\v\f") {
			t.Fatalf("%q renders as %q: param %s=%q parses back as %q", s, str, k, v, got)
		}
	}
}

// FuzzAddressPattern: tag rule addresses and condition rule address
// patterns are written by users. No input panics (hostnames "resolve" to
// a fixed address, no DNS); an accepted pattern keeps its text, Match and
// MatchAddr agree, and an IP literal (with its port) matches itself.
func FuzzAddressPattern(f *testing.F) {
	for _, s := range []string{
		"*", "*.*.*.*", "10.0.0.1", "10.0.0.1:20880", "10.0.*.*:*", "10.0.0.1-5:20880", "192.168.0.0/16", "::1",
		"[::1]:20880", "[fe80::*]:1", "fe80::/10", "host.example:80", "0.0.0.0:20881", "*:20880", "10.0.0.256", "1.2.3.4/33",
		"[::ffff:1.2.3.4]:5", "1-2-3", "", "/", "[", "10.0.0.1:-1",
	} {
		f.Add(s, "10.0.0.1", 20880)
		f.Add(s, "::1", 1)
	}
	f.Fuzz(func(t *testing.T, s, host string, port int) {
		p, err := ParseAddressPatternWith(s, func(string) ([]string, error) { return []string{"10.0.0.1"}, nil })
		if err != nil {
			return
		}
		if p.String() != strings.TrimSpace(s) {
			t.Fatalf("pattern %q: String() %q", s, p.String())
		}
		got := p.Match(host, port)
		h := host
		if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
			h = h[1 : len(h)-1]
		}
		if a, err := netip.ParseAddr(h); err == nil {
			if m := p.MatchAddr(a, port); m != got {
				t.Fatalf("pattern %q, %s:%d: Match %t, MatchAddr %t", s, host, port, got, m)
			}
		} else if got && !p.IsAny() {
			t.Fatalf("pattern %q matches the non-IP host %q", s, host)
		}
		// (IPv4-mapped IPv6 literals are left out: which family they match
		// is Java's NetUtils' business, tested elsewhere.)
		lit := strings.TrimSpace(s)
		bare := lit
		if len(bare) > 1 && bare[0] == '[' && bare[len(bare)-1] == ']' {
			bare = bare[1 : len(bare)-1]
		}
		if a, err := netip.ParseAddr(bare); err == nil && a.Zone() == "" && !a.Is4In6() && !p.Match(a.String(), port) {
			t.Fatalf("pattern %q does not match its own address %s at port %d", s, a, port)
		}
		if ap, err := netip.ParseAddrPort(lit); err == nil && ap.Addr().Zone() == "" && !ap.Addr().Is4In6() && !p.MatchAddr(ap.Addr(), int(ap.Port())) {
			t.Fatalf("pattern %q does not match its own address and port", s)
		}
	})
}
