package router

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// fakeResolve resolves a fixed set of names; everything else fails.
func fakeResolve(host string) ([]string, error) {
	switch host {
	case "db1.prod.corp.example":
		return []string{"2001:db8::7", "10.9.8.7", "10.9.8.8"}, nil
	case "v6only.prod.corp.example":
		return []string{"2001:db8::7"}, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

type hostPort struct {
	host string
	port int
}

func TestAddressPatternTable(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		match   []hostPort
		noMatch []hostPort
	}{
		{"star matches every host even a hostname", "*",
			[]hostPort{{"10.0.0.1", 20880}, {"fe80::1", 1}, {"provider.local", 0}}, nil},
		{"four stars match every host", "*.*.*.*",
			[]hostPort{{"10.0.0.1", 20880}, {"[fe80::1]", 1}}, nil},
		{"exact ip any port", "10.0.0.3",
			[]hostPort{{"10.0.0.3", 20880}, {"10.0.0.3", 1}, {"::ffff:10.0.0.3", 5}},
			[]hostPort{{"10.0.0.4", 20880}, {"fe80::1", 20880}, {"host", 20880}}},
		{"ip and port", "10.0.0.3:20880",
			[]hostPort{{"10.0.0.3", 20880}},
			[]hostPort{{"10.0.0.3", 20881}, {"10.0.0.4", 20880}}},
		{"octet star", "10.0.0.*",
			[]hostPort{{"10.0.0.0", 1}, {"10.0.0.255", 2}},
			[]hostPort{{"10.0.1.1", 1}, {"fe80::1", 1}}},
		{"octet range", "10.0.1-10.*",
			[]hostPort{{"10.0.1.9", 1}, {"10.0.10.0", 1}},
			[]hostPort{{"10.0.0.9", 1}, {"10.0.11.9", 1}}},
		{"range with port", "10.0.0.1-5:20881",
			[]hostPort{{"10.0.0.5", 20881}},
			[]hostPort{{"10.0.0.5", 20880}, {"10.0.0.6", 20881}}},
		{"zero run stands for 0 in an expression", "10.00.0.*",
			[]hostPort{{"10.0.0.7", 1}}, []hostPort{{"10.1.0.7", 1}}},
		{"cidr v4", "10.1.0.0/16",
			[]hostPort{{"10.1.0.0", 1}, {"10.1.255.255", 9}},
			[]hostPort{{"10.2.0.0", 1}, {"10.0.255.255", 1}}},
		{"cidr host bits are masked", "10.1.2.3/8",
			[]hostPort{{"10.200.0.1", 1}}, []hostPort{{"11.0.0.0", 1}}},
		{"cidr /0 v4 covers all IPv4", "0.0.0.0/0",
			[]hostPort{{"1.2.3.4", 1}, {"255.255.255.255", 1}},
			// Java compares raw numbers: ::1 is 1, inside 0..2^32-1.
			[]hostPort{{"fe80::1", 1}}},
		{"cidr v4 compares ipv6 hosts as numbers like Java", "0.0.0.0/0",
			[]hostPort{{"::1", 1}}, nil},
		{"cidr v6", "fe80::/64",
			[]hostPort{{"fe80::1", 1}, {"[fe80::ffff:1]", 1}},
			[]hostPort{{"fe81::1", 1}, {"10.0.0.1", 1}}},
		{"cidr v6 /96 holds IPv4 hosts as Java's BigInteger compare does", "::/96",
			[]hostPort{{"10.0.0.1", 1}}, []hostPort{{"::1:0:0", 1}}},
		{"anyhost with port is any IPv4 host on the port", "0.0.0.0:20881",
			[]hostPort{{"10.0.0.1", 20881}, {"192.168.1.1", 20881}},
			[]hostPort{{"10.0.0.1", 20880}, {"fe80::1", 20881}}},
		{"anyhost without port is only 0.0.0.0", "0.0.0.0",
			[]hostPort{{"0.0.0.0", 1}}, []hostPort{{"10.0.0.1", 1}}},
		{"hostname resolved to its first IPv4", "db1.prod.corp.example",
			[]hostPort{{"10.9.8.7", 1}},
			[]hostPort{{"10.9.8.8", 1}, {"2001:db8::7", 1}}},
		{"hostname with port", "db1.prod.corp.example:20880",
			[]hostPort{{"10.9.8.7", 20880}}, []hostPort{{"10.9.8.7", 20881}}},
		{"ipv6 literal", "fe80::1",
			[]hostPort{{"fe80::1", 20880}, {"[fe80:0:0:0:0:0:0:1]", 1}},
			[]hostPort{{"fe80::2", 1}, {"10.0.0.1", 1}}},
		{"bracketed ipv6", "[fe80::1]",
			[]hostPort{{"fe80::1", 3}}, []hostPort{{"fe80::2", 3}}},
		{"bracketed ipv6 with port", "[fe80::1]:20880",
			[]hostPort{{"fe80::1", 20880}}, []hostPort{{"fe80::1", 20881}}},
		{"ipv6 eight groups with star", "234e:0:4567:0:0:0:3d:*",
			[]hostPort{{"234e:0:4567::3d:4", 1}, {"234e:0:4567::3d:ffff", 1}},
			[]hostPort{{"234e:0:4567::3e:4", 1}, {"10.0.0.1", 1}}},
		{"ipv6 hex range with port", "[234e:0:4567:0:0:0:3d:a-ff]:20880",
			[]hostPort{{"234e:0:4567::3d:a", 20880}, {"234e:0:4567::3d:ff", 20880}},
			[]hostPort{{"234e:0:4567::3d:9", 20880}, {"234e:0:4567::3d:a", 20881}}},
		{"bracketed ipv4 with port reads as ipv4 like Java", "[10.0.0.1]:20880",
			[]hostPort{{"10.0.0.1", 20880}}, []hostPort{{"10.0.0.1", 20881}}},
		{"padded pattern is trimmed", "  10.0.0.3  ",
			[]hostPort{{"10.0.0.3", 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseAddressPatternWith(tt.pattern, fakeResolve)
			if err != nil {
				t.Fatalf("parse %q: %v", tt.pattern, err)
			}
			for _, hp := range tt.match {
				if !p.Match(hp.host, hp.port) {
					t.Errorf("%q should match %s:%d", tt.pattern, hp.host, hp.port)
				}
			}
			for _, hp := range tt.noMatch {
				if p.Match(hp.host, hp.port) {
					t.Errorf("%q should not match %s:%d", tt.pattern, hp.host, hp.port)
				}
			}
			if p.String() != strings.TrimSpace(tt.pattern) {
				t.Errorf("String() = %q", p.String())
			}
		})
	}
}

func TestAddressPatternErrors(t *testing.T) {
	tests := []struct {
		name, pattern, want string
	}{
		{"empty", "  ", "empty"},
		{"too few octets", "10.0.*", "exactly 4"},
		{"too many octets", "10.0.0.0.1", "exactly 4"},
		{"single label hostname", "localhost", "exactly 4"},
		{"bad range", "10.0.0.1-2-3", "not a-b"},
		{"range open bound", "10.0.0.5-", "not a base-10"},
		{"non numeric octet in expression", "10.0.x.*", "never matches"},
		{"octet with leading zero", "10.0.01.*", "never matches"},
		{"octet over 255", "10.0.256.*", "never matches"},
		{"partial glob", "10.0.1*.*", "never matches"},
		{"star port", "10.0.0.1:*", "port"},
		{"padded port", "10.0.0.1:020880", "port"},
		{"port too big", "10.0.0.1:70000", "port"},
		{"cidr with port", "10.0.0.0/24:20880", "CIDR prefix"},
		{"cidr prefix too long", "10.0.0.0/33", "longer"},
		{"cidr hostname", "example.com/8", "not an IP literal"},
		{"ipv6 expression with 7 groups", "fe80:0:0:0:0:0:*", "8 colon-separated"},
		{"ipv6 garbage", "fe80::zz", "not an IPv6 address"},
		{"ipv6 bad group text", "fe80:0:0:0:0:0:00ab:*", "never matches"},
		{"ipv6 upper case group in expression", "FE80:0:0:0:0:0:0:*", "never matches"},
		{"ipv4 mapped ipv6 literal", "::ffff:10.0.0.1", "IPv4-mapped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAddressPatternWith(tt.pattern, fakeResolve)
			if err == nil {
				t.Fatalf("%q: want error containing %q", tt.pattern, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), strings.TrimSpace(tt.pattern)) {
				t.Fatalf("%q: error %q should name the pattern and say %q", tt.pattern, err, tt.want)
			}
			if errors.Is(err, ErrHostUnresolved) {
				t.Fatalf("%q: syntax error must not be ErrHostUnresolved", tt.pattern)
			}
		})
	}
}

func TestUnresolvedHostnameMatchesNothing(t *testing.T) {
	for _, pat := range []string{"nowhere.corp.example.org", "v6only.prod.corp.example"} {
		p, err := ParseAddressPatternWith(pat, fakeResolve)
		if !errors.Is(err, ErrHostUnresolved) {
			t.Fatalf("%q: want ErrHostUnresolved, got %v", pat, err)
		}
		for _, h := range []string{"10.9.8.7", "2001:db8::7", "0.0.0.0"} {
			if p.Match(h, 1) {
				t.Fatalf("unresolved %q matched %s", pat, h)
			}
		}
	}
	p, err := ParseAddressPatternWith("a.b.c.d", nil)
	if !errors.Is(err, ErrHostUnresolved) || p.Match("10.0.0.1", 1) {
		t.Fatalf("nil resolver: err=%v", err)
	}
}

func TestZeroAddressPatternMatchesNothing(t *testing.T) {
	var p AddressPattern
	if p.Match("10.0.0.1", 1) || p.MatchAddr(netip.MustParseAddr("10.0.0.1"), 1) || p.IsAny() {
		t.Fatal("zero pattern matched")
	}
}

func TestAddressPatternMatchDoesNotAllocate(t *testing.T) {
	pats := []string{"*", "10.0.0.3:20880", "10.0.1-10.*", "10.1.0.0/16", "0.0.0.0:20881", "fe80::1", "[234e:0:4567:0:0:0:3d:a-ff]:20880"}
	var ps []AddressPattern
	for _, s := range pats {
		p, err := ParseAddressPatternWith(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	hosts := []string{"10.0.5.3", "fe80::1", "[234e:0:4567::3d:b]"}
	hits := 0
	allocs := testing.AllocsPerRun(200, func() {
		for _, p := range ps {
			for _, h := range hosts {
				if p.Match(h, 20880) {
					hits++
				}
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("Match allocates %.1f times per run", allocs)
	}
	if hits == 0 {
		t.Fatal("nothing matched: the test exercises nothing")
	}
}

func BenchmarkAddressPatternMatch(b *testing.B) {
	p, _ := ParseAddressPatternWith("10.0.1-10.*:20880", nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p.Match("10.0.5.3", 20880)
	}
}
