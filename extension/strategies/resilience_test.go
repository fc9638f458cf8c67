package strategies

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/cluster/outlier"
	"github.com/dubboroute/dubboroute/cluster/retry"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/mesh"
)

// routingDir is a bound directory: a snapshot with the configured consumer
// URL, every provider routed.
type routingDir struct {
	fakeDir
	snap *cluster.Snapshot
}

func (d *routingDir) Snapshot() *cluster.Snapshot { return d.snap }
func (d *routingDir) Routed(base.Invocation) ([]base.Invoker, error) {
	return d.snap.Invokers, nil
}

var errTimeout = errors.New("maybe the client read timeout or fail to decode tcp stream in Writer.Write")

// boundFleet is a failover cluster invoker over n providers behind a
// snapshot whose consumer URL is consumer; provider i fails with errs[i]
// (nil: answers).
func boundFleet(t testing.TB, consumer string, meshRule string, errs ...error) (*invoker, []*fakeInvoker, *routingDir) {
	t.Helper()
	ref, err := common.NewURL("consumer://127.0.0.1/demo.Svc?interface=demo.Svc")
	if err != nil {
		t.Fatal(err)
	}
	var fs []*fakeInvoker
	for i, e := range errs {
		pu, _ := common.NewURL(fmt.Sprintf("dubbo://10.0.%d.%d:20880/demo.Svc", i/250, i%250+1))
		fs = append(fs, &fakeInvoker{url: pu, err: e})
	}
	ci := newInvoker("failover", &fakeDir{url: ref})
	cu, err := router.ParseURL(consumer)
	if err != nil {
		t.Fatal(err)
	}
	snap := &cluster.Snapshot{Consumer: cu}
	for _, f := range fs {
		snap.Invokers = append(snap.Invokers, f)
	}
	if meshRule != "" {
		r, err := mesh.ParseRule(meshRule)
		if err != nil {
			t.Fatal(err)
		}
		snap.Rules[cluster.SlotMesh].Mesh = []mesh.AppRule{{App: "demo-provider", Rule: r}}
	}
	d := &routingDir{fakeDir: fakeDir{url: ci.dir.GetURL(), list: snap.Invokers}, snap: snap}
	ci.dir = d
	ci.health = nil // no connection probes in these tests
	ci.sel.Avail = nil
	return ci, fs, d
}

func call(ci *invoker, atts map[string]any) result.Result {
	var reply string
	inv := invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("book"), invocation.WithReply(&reply), invocation.WithAttachments(atts))
	return ci.Invoke(context.Background(), inv)
}

func fleetErrs(n int, first error) []error {
	errs := make([]error, n)
	errs[0] = first
	return errs
}

// Outlier ejection on the call path: a provider timing out every call is
// ejected after 5 consecutive failures (retried elsewhere: no call fails),
// then gets no attempt; with the feature off it keeps its share.
func TestOutlierEjectionOnCallPath(t *testing.T) {
	base := "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=2"
	for _, tc := range []struct {
		name, consumer, mesh string
		want                 int // attempts on P1 in 300 calls
	}{
		{"params", base + "&dubboroute.outlier.consecutive-errors=5&dubboroute.outlier.always-eject-one=true", "", 5},
		{"mesh", base, "kind: DestinationRule\nmetadata: {name: r}\nspec:\n  trafficPolicy: {outlierDetection: {maxEjectionPercent: 10}}\n  subsets: [{name: a, labels: {x: y}}]\n---\nkind: VirtualService\nmetadata: {name: r}\nspec: {dubbo: []}\n", 5},
	} {
		ci, fs, _ := boundFleet(t, tc.consumer, tc.mesh, fleetErrs(10, errTimeout)...)
		for i := 0; i < 300; i++ {
			if r := call(ci, nil); r.Error() != nil {
				t.Fatalf("%s: call %d failed: %v", tc.name, i, r.Error())
			}
		}
		if fs[0].calls != tc.want {
			t.Fatalf("%s: P1 got %d attempts, want %d", tc.name, fs[0].calls, tc.want)
		}
		rep, ok := ci.res.report()
		if _, listed := Outliers()["demo.Svc"]; !listed {
			t.Fatalf("%s: Outliers() does not list demo.Svc", tc.name)
		}
		var p1 outlier.HostState
		for _, h := range rep.Providers {
			if h.Addr == "10.0.0.1:20880" {
				p1 = h
			}
		}
		if !ok || len(rep.Providers) != 10 || !p1.Ejected || p1.Reason != "consecutive-5xx" || p1.Until.Sub(p1.Since) != 30*time.Second || rep.Config.Interval != 10*time.Second {
			t.Fatalf("%s: report %+v", tc.name, rep)
		}
		if tc.name == "mesh" && rep.Config.Source != "MESHAPPRULE" {
			t.Fatalf("mesh: source %q", rep.Config.Source)
		}
	}
	ci, fs, _ := boundFleet(t, base, "", fleetErrs(10, errTimeout)...)
	for i := 0; i < 300; i++ {
		call(ci, nil)
	}
	if fs[0].calls < 15 {
		t.Fatalf("feature off: P1 got %d attempts of 300 calls, want its share (~30)", fs[0].calls)
	}
}

// The detector survives a snapshot rebuild with the same configuration.
func TestOutlierStateSurvivesRebuild(t *testing.T) {
	ci, _, d := boundFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=2&dubboroute.outlier.consecutive-errors=5&dubboroute.outlier.always-eject-one=true", "", fleetErrs(4, errTimeout)...)
	for i := 0; i < 60; i++ {
		call(ci, nil)
	}
	det := ci.res.cur.Load().det
	if !det.Ejected("10.0.0.1:20880") {
		t.Fatal("P1 not ejected")
	}
	next := *d.snap
	d.snap = &next
	call(ci, nil)
	if s := ci.res.cur.Load(); s.snap != &next || s.det != det || !det.Ejected("10.0.0.1:20880") {
		t.Fatal("a rebuild lost the detector or the ejection")
	}
}

// The retry policy on the call path: budget in an outage, idempotency,
// chain stop; off, Java's failover.
func TestRetryPolicyOnCallPath(t *testing.T) {
	all := func(n int, e error) []error {
		out := make([]error, n)
		for i := range out {
			out[i] = e
		}
		return out
	}
	base := "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=2"
	for _, tc := range []struct {
		name, params string
		atts         map[string]any
		want         int
		reason       string
	}{
		{"java", "", nil, 60, ""},
		{"budget", "&dubboroute.retry.policy=on&book.dubboroute.idempotent=true", nil, 23, "budget"},
		{"non-idempotent", "&dubboroute.retry.policy=on", nil, 20, "non-idempotent"},
		{"chain-stop", "&dubboroute.retry.policy=on&dubboroute.idempotent=true", map[string]any{retry.ChainKey: "1"}, 20, "chain-stop"},
	} {
		ci, fs, _ := boundFleet(t, base+tc.params, "", all(5, errTimeout)...)
		var last error
		for i := 0; i < 20; i++ {
			atts := map[string]any{}
			for k, v := range tc.atts {
				atts[k] = v
			}
			last = call(ci, atts).Error()
		}
		if total(fs) != tc.want {
			t.Fatalf("%s: 20 calls in an outage made %d attempts, want %d", tc.name, total(fs), tc.want)
		}
		if tc.reason != "" && (last == nil || !strings.Contains(last.Error(), "retry not made ("+tc.reason+")")) {
			t.Fatalf("%s: last error %v, want the denial %s", tc.name, last, tc.reason)
		}
		t.Logf("%s: 20 calls, %d attempts; last error: %v", tc.name, total(fs), last)
	}
}

// The call path's additions cost no allocation on a successful call:
// filtering with a provider ejected, recording the result, reading the
// state and the (absent) retry policy. A failed attempt's classification
// allocates (Classify's errors.As), as it did before.
func TestResilienceAllocs(t *testing.T) {
	ci, _, _ := boundFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=2&dubboroute.outlier.consecutive-errors=5&dubboroute.outlier.max-ejection-percent=50", "", fleetErrs(10, errTimeout)...)
	// P1 fails every attempt: it is ejected after its fifth, which a random
	// balancer gives it within 100 calls only most of the time.
	p := ci.params()
	for i := 0; i < 2000 && !ci.res.state(p.snap).det.Ejected("10.0.0.1:20880"); i++ {
		call(ci, nil)
	}
	s := ci.res.state(p.snap)
	if !s.det.Ejected("10.0.0.1:20880") {
		t.Fatal("P1 not ejected after 2,000 calls")
	}
	c := &dgCall{i: ci, rs: s}
	list := s.snap.Invokers
	ok := &result.RPCResult{}
	bad := &result.RPCResult{Err: errTimeout}
	if n := testing.AllocsPerRun(1000, func() {
		if len(c.rs.filterList(list)) != 9 {
			panic("filter")
		}
		c.record(list[3], ok, false)
		c.record(list[4], ok, false)
		_ = ci.res.state(p.snap)
		c.startRetry(p, "book")
	}); n != 0 {
		t.Fatalf("%v allocations per call, want 0", n)
	}
	t.Logf("a failed attempt's record: %v allocations", testing.AllocsPerRun(100, func() { c.record(list[4], bad, false); c.record(list[4], ok, false) }))
	_ = common.URL{}
}

// BenchmarkResilienceCallPath is what outlier ejection adds to one
// successful attempt: the state lookup, the filter (one provider of 100
// ejected, memoised) and recording the result; off: the same calls with
// nothing configured.
func BenchmarkResilienceCallPath(b *testing.B) {
	for _, on := range []bool{false, true} {
		name, q := "off", ""
		if on {
			name, q = "on", "&dubboroute.outlier.consecutive-errors=5&dubboroute.outlier.max-ejection-percent=50"
		}
		b.Run(name, func(b *testing.B) {
			errs := make([]error, 100)
			errs[0] = errTimeout
			ci, _, _ := boundFleet(b, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=2"+q, "", errs...)
			for i := 0; i < 200; i++ {
				call(ci, nil)
			}
			p := ci.params()
			ok := &result.RPCResult{}
			list := p.snap.Invokers
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s := ci.res.state(p.snap)
				c := dgCall{i: ci, rs: s}
				out := s.filterList(list)
				c.record(out[i%len(out)], ok, false)
			}
		})
	}
}
