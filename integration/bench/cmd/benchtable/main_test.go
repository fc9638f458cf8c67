package main

import (
	"bytes"
	"strings"
	"testing"
)

// input is go test -bench output with the noise a real run has: headers,
// a dubbo-go log line, two packages, -count=2 for one row, a custom metric.
const input = `goos: linux
goarch: amd64
pkg: github.com/dubboroute/dubboroute/integration/bench
cpu: AMD EPYC
BenchmarkChainRoute/impl=dubboroute/n=10-2         	10000000	       120.0 ns/op	    624480 B/snapshot	       0 B/op	       0 allocs/op
BenchmarkChainRoute/impl=dubbogo/n=10-2            	   60000	     18000 ns/op	    9416 B/op	      68 allocs/op
BenchmarkChainRoute/impl=dubboroute/n=1000-2       	10000000	       100.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkChainRoute/impl=dubboroute/n=1000-2       	10000000	       140.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkChainRoute/impl=dubbogo/n=1000-2          	    1000	    960000 ns/op	  703831 B/op	    3836 allocs/op
BenchmarkChainRoute/impl=dubbogo/n=1000-2          	    1000	    980000 ns/op	  703831 B/op	    3836 allocs/op
2026-11-29T19:13:32.111Z	ERROR	BenchmarkChainRoute something logged
BenchmarkChainRoute/impl=dubboroute/n=10000-2      	10000000	       250.0 ns/op	   12062544 B/snapshot	       0 B/op	       0 allocs/op
BenchmarkPick/impl=gray/n=1000-2                   	 2000000	       500.0 ns/op	      14 B/op	       1 allocs/op
BenchmarkPick/impl=dubbogo-random/n=1000-2         	    3000	    355000 ns/op	  200192 B/op	    4001 allocs/op
BenchmarkRebuild/change=join/tag=fixed/impl=dubboroute/n=1000-2   	     100	   6000000 ns/op	 1284050 B/op	  100730 allocs/op
BenchmarkRebuild/change=join/tag=fixed/impl=dubboroute/n=10000-2  	       3	 300000000 ns/op	 7226882 B/op	 1000764 allocs/op
BenchmarkRebuild/change=join/tag=fixed/impl=dubbogo/n=10000-2     	     100	  13000000 ns/op	 3419367 B/op	   91483 allocs/op
PASS
ok  	github.com/dubboroute/dubboroute/integration/bench	9.547s
pkg: github.com/dubboroute/dubboroute/integration/bench/rpc
BenchmarkRPC/impl=dubboroute-2         	     300	    112062 ns/op	   32258 B/op	     395 allocs/op
pkg: github.com/dubboroute/dubboroute/integration/bench/rpcbase
BenchmarkRPC/impl=dubbogo-2         	     300	    146732 ns/op	   40161 B/op	     428 allocs/op
`

const wantTable = `| benchmark | n | dubboroute ns/op | allocs/op | dubbo-go ns/op | allocs/op | dubbo-go / dubboroute |
|---|--:|--:|--:|--:|--:|--:|
| ChainRoute | 10 | 120 | 0 | 18,000 | 68 | 150× |
| ChainRoute | 1000 | 120 | 0 | 970,000 | 3,836 | 8,083× |
| ChainRoute | 10000 | 250 | 0 | - | - | - |
| Pick (gray vs dubbogo-random) | 1000 | 500 | 1 | 355,000 | 4,001 | 710× |
| Rebuild change=join tag=fixed | 1000 | 6,000,000 | 100,730 | - | - | - |
| Rebuild change=join tag=fixed | 10000 | 300,000,000 | 1,000,764 | 13,000,000 | 91,483 | 0.04× |
| RPC |  | 112,062 | 395 | 146,732 | 428 | 1.31× |

Other metrics:

- ChainRoute n=10 dubboroute: 624,480 B/snapshot
- ChainRoute n=10000 dubboroute: 12,062,544 B/snapshot (11.5 MiB)
`

const wantTargets = `Targets (issue 8):

- MET    chain route >= 1000x faster than dubbo-go at n=1000: ratio 8,083×
- MISSED 0 allocs/op for ours at every n (ChainRoute, ConditionRoute, TagRoute, Pick): Pick n=1000: 1
- MISSED ours at n=10000 within 2x of ours at n=10 (ChainRoute): n=10 120 ns, n=10000 250 ns: 2.08×
- MET    pick >= 50x faster than dubbo-go's random at n=1000: ratio 710×
- MISSED rebuild linear in n: n=10000 at most 12x n=1000 (each Rebuild case, ours): change=join tag=fixed: n=1000 6,000,000 ns, n=10000 300,000,000 ns: 50.0×
`

func run(t *testing.T, in string) string {
	t.Helper()
	rs, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	write(&b, rs)
	b.WriteString("\n")
	writeTargets(&b, rs)
	return b.String()
}

func TestTableAndTargets(t *testing.T) {
	got := run(t, input)
	if want := wantTable + "\n" + wantTargets; got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// TestScalingBoundary: the scaling targets compare with <=, so exactly 2x
// is met and a little more is not.
func TestScalingBoundary(t *testing.T) {
	mk := func(ns10, ns10000 string) *results {
		rs, err := parse(strings.NewReader(
			"BenchmarkChainRoute/impl=dubboroute/n=10-8 1 " + ns10 + " ns/op 0 allocs/op\n" +
				"BenchmarkChainRoute/impl=dubboroute/n=10000-8 1 " + ns10000 + " ns/op 0 allocs/op\n"))
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	if met, _, ok := scaling(mk("100", "200"), "ChainRoute", 10, 10000, 2); !ok || !met {
		t.Error("exactly 2x should meet the target")
	}
	if met, _, ok := scaling(mk("100", "201"), "ChainRoute", 10, 10000, 2); !ok || met {
		t.Error("2.01x should miss the target")
	}
}

func TestNoData(t *testing.T) {
	out := run(t, "BenchmarkTagRoute/impl=dubboroute/n=10-2 5 50 ns/op 0 B/op 0 allocs/op\n")
	if !strings.Contains(out, "- NO DATA chain route >= 1000x") {
		t.Errorf("missing rows must be reported as no data:\n%s", out)
	}
	if !strings.Contains(out, "- MET    0 allocs/op for ours at every n (ChainRoute, ConditionRoute, TagRoute, Pick): 1 rows, all 0") {
		t.Errorf("alloc target on the one row:\n%s", out)
	}
}

func TestBadInput(t *testing.T) {
	if _, err := parse(strings.NewReader("BenchmarkX/impl=dubboroute/n=1-2 10 abc ns/op\n")); err == nil {
		t.Error("a malformed value must be an error")
	}
	if _, err := parse(strings.NewReader("BenchmarkX/impl=dubboroute/n=1-2 10 1 ns/op\nBenchmarkX/impl=gray/n=1-2 10 1 ns/op\n")); err == nil {
		t.Error("two of our impls in one row must be an error")
	}
}

func TestSplitName(t *testing.T) {
	for _, c := range []struct{ in, name, impl string }{
		{"ChainRoute/impl=dubbogo/n=100", "ChainRoute", "dubbogo"},
		{"Rebuild/change=rule/tag=fixed/impl=dubboroute/n=10", "Rebuild change=rule tag=fixed", "dubboroute"},
		{"RPC/impl=dubbogo", "RPC", "dubbogo"},
	} {
		name, impl, _ := splitName(c.in)
		if name != c.name || impl != c.impl {
			t.Errorf("splitName(%q) = %q, %q", c.in, name, impl)
		}
	}
}
