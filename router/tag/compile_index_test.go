package tag

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// TestAddrIndexAgreesWithScan compares addrIndex.matching with testing every
// provider against every pattern (what Compile did before the index), for
// random lists of patterns of every form over a fleet of IPv4, IPv6,
// IPv4-mapped, zoned, bracketed, non-IP and missing hosts. The resolver maps
// every name (including the IPv6 texts the IPv4 reading hands it) to a
// fleet address, so a literal-looking pattern that the parser would resolve
// to another host would show up as a difference.
func TestAddrIndexAgreesWithScan(t *testing.T) {
	hosts := []string{"10.0.0.1", "10.0.0.2", "10.0.1.7", "0.0.0.0", "127.0.0.1", "[fe80::1]", "[::ffff:10.0.0.1]",
		"[fe80::1%eth0]", "[2001:db8::5]", "[64:ff9b::a00:1]", "provider.local", ""}
	var urls []*router.URL
	for i := 0; i < 200; i++ {
		if i%29 == 3 {
			urls = append(urls, nil)
			continue
		}
		port := fmt.Sprintf(":%d", 20880+i%3)
		if i%9 == 0 {
			port = ""
		}
		h := hosts[i%len(hosts)]
		if h == "" {
			urls = append(urls, &router.URL{Protocol: "dubbo", Port: 20880})
			continue
		}
		urls = append(urls, router.MustParseURL("dubbo://"+h+port+"/S"))
	}
	resolve := func(host string) ([]string, error) {
		if strings.Contains(host, "fail") {
			return nil, fmt.Errorf("no such host")
		}
		return []string{"10.0.0.2"}, nil
	}
	texts := []string{"10.0.0.1", "10.0.0.1:20880", "10.0.0.1:20881", "0.0.0.0", "0.0.0.0:20880", "0.0.0.0:20882",
		"127.0.0.1:20880", "10.0.0.*", "10.0.0.*:20881", "10.0.0.1-5", "10.0.0.0/24", "10.0.0.0/8", "fe80::1",
		"[fe80::1]", "[fe80::1]:20880", "[fe80::1]:20881", "2001:db8::5", "[2001:db8::5]:20882", "fe80::/16",
		"[::ffff:10.0.0.1]", "[64:ff9b::10.0.0.1]", "64:ff9b::a00:1", "[64:ff9b::a00:1]:20881", "1:2:3:4:5:6:7:*",
		"fe80:0:0:0:0:0:0:1", "[fe80:0:0:0:0:0:0:0-ff]:20880", "a.b.c.d", "a.b.c.fail", "10.0.1.7", "10.0.1.7:20882",
		"::ffff:a00:1/128", "0:0:0:0:0:0:0:0-ffff"}
	var pats []router.AddressPattern
	for _, s := range texts {
		p, err := router.ParseAddressPatternWith(s, resolve)
		if err != nil && p.String() == "" {
			continue // rejected: never in a rule
		}
		pats = append(pats, p)
	}
	if len(pats) < 25 {
		t.Fatalf("only %d of the fixture's patterns parse; the test would prove little", len(pats))
	}
	r := rand.New(rand.NewPCG(6, 6))
	for _, size := range []int{0, 1, 150, 200, 260} {
		u := router.NewUniverse(size)
		provider := func(i int) *router.URL {
			if i < len(urls) {
				return urls[i]
			}
			return nil
		}
		x := newAddrIndex(size)
		for i := 0; i < size; i++ {
			if p := provider(i); p != nil {
				x.add(i, p)
			}
		}
		// The scan as Compile did it before the index.
		addrs, ports := make([]netip.Addr, size), make([]int, size)
		for i := range addrs {
			if p := provider(i); p != nil {
				addrs[i], _ = netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(p.Host, "["), "]"))
				ports[i] = p.Port
			}
		}
		scan := func(ps []router.AddressPattern) *Set {
			return u.Build(func(i int) bool {
				for _, p := range ps {
					if p.IsAny() || p.MatchAddr(addrs[i], ports[i]) {
						return true
					}
				}
				return false
			})
		}
		for _, p := range pats {
			if got, want := x.matching(u, []router.AddressPattern{p}), scan([]router.AddressPattern{p}); got != want {
				t.Fatalf("size %d, pattern %q: index %v, scan %v", size, p, got.AppendMembers(nil), want.AppendMembers(nil))
			}
		}
		for c := 0; c < 300; c++ {
			ps := make([]router.AddressPattern, r.IntN(5))
			for i := range ps {
				ps[i] = pats[r.IntN(len(pats))]
			}
			if got, want := x.matching(u, ps), scan(ps); got != want {
				t.Fatalf("size %d, patterns %v: index %v, scan %v", size, ps, got.AppendMembers(nil), want.AppendMembers(nil))
			}
		}
		if size > 0 && (x.nextA == nil || x.nextP == nil) {
			t.Fatalf("size %d: an index was never built; the test compared the scan with itself", size)
		}
	}
}
