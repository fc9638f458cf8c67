package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

func TestParseLoadSpec(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  loadSpec
		bad   string
	}{
		{query: "", want: loadSpec{calls: 100, concurrency: 8}},
		{query: "calls=5&rate=200&concurrency=3&results=1", want: loadSpec{calls: 5, rate: 200, concurrency: 3, perCall: true}},
		{query: "duration=2s", want: loadSpec{duration: 2 * time.Second, concurrency: 8}},
		{query: "calls=-1", bad: "calls"},
		{query: "calls=x", bad: "calls"},
		{query: "duration=1h", bad: "duration"},
		{query: "rate=-3", bad: "rate"},
		{query: "concurrency=0", bad: "concurrency"},
		{query: "concurrency=1000", bad: "concurrency"},
	} {
		got, err := parseLoadSpec(httptest.NewRequest("GET", "/load?"+tc.query, nil))
		if tc.bad != "" {
			if err == nil || !strings.Contains(err.Error(), tc.bad) {
				t.Errorf("%q: err %v, want one about %s", tc.query, err, tc.bad)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.query, got, err, tc.want)
		}
	}
}

// TestRunLoadCountsEveryCall: every call is counted once, per port or as a
// failure, and per-call results carry the generations the probe reported
// around the call, with each generation's routed ports.
func TestRunLoadCountsEveryCall(t *testing.T) {
	var n, gen atomic.Int64
	call := func(context.Context) (int, error) {
		k := n.Add(1)
		if k%10 == 0 {
			gen.Add(1) // a "rebuild" during this call
			return 0, errors.New("boom")
		}
		return 20880 + int(k%2), nil
	}
	probe := func() (uint64, func() []int) {
		g := uint64(gen.Load())
		return g, func() []int { return []int{int(g)} }
	}
	res := runLoad(context.Background(), loadSpec{calls: 100, concurrency: 4, perCall: true}, call, probe)
	if res.Calls != 100 || res.Failed != 10 || len(res.Results) != 100 {
		t.Fatalf("calls %d failed %d results %d, want 100, 10, 100", res.Calls, res.Failed, len(res.Results))
	}
	if res.Ports[20880]+res.Ports[20881] != 90 || res.Errors["boom"] != 10 {
		t.Errorf("ports %v errors %v", res.Ports, res.Errors)
	}
	for _, c := range res.Results {
		if c.Gen1 < c.Gen0 {
			t.Errorf("call %+v: generation went backwards", c)
		}
		for _, g := range []uint64{c.Gen0, c.Gen1} {
			if r := res.Routed[g]; len(r) != 1 || r[0] != int(g) {
				t.Errorf("routed[%d] = %v, want [%d]", g, r, g)
			}
		}
		if c.Failed != (c.Port == 0) || (c.Failed && c.Error != "boom") {
			t.Errorf("call %+v", c)
		}
	}
}

// TestRunLoadPaces: with a rate the run takes about calls/rate, and a
// duration stops it early.
func TestRunLoadPaces(t *testing.T) {
	ok := func(context.Context) (int, error) { return 1, nil }
	res := runLoad(context.Background(), loadSpec{calls: 50, rate: 250, concurrency: 4}, ok, nil)
	if res.Calls != 50 || res.Seconds < 0.18 {
		t.Errorf("50 calls at 250/s: %d calls in %.3fs, want 50 in at least 0.196s", res.Calls, res.Seconds)
	}
	if res.Results != nil {
		t.Errorf("per-call results without results=1")
	}
	res = runLoad(context.Background(), loadSpec{calls: 1000, duration: 100 * time.Millisecond, rate: 100, concurrency: 2}, ok, nil)
	if res.Calls < 5 || res.Calls > 12 {
		t.Errorf("100 ms at 100/s made %d calls, want about 10", res.Calls)
	}
}

func TestRunLoadStopsWithTheRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	begin := time.Now()
	res := runLoad(ctx, loadSpec{calls: 1000, rate: 10, concurrency: 2}, func(context.Context) (int, error) { return 1, nil }, nil)
	if took := time.Since(begin); took > 2*time.Second || res.Calls > 2 {
		t.Errorf("cancelled run took %v and made %d calls", took, res.Calls)
	}
}

func TestServeGoroutines(t *testing.T) {
	rec := httptest.NewRecorder()
	serveGoroutines(rec, httptest.NewRequest("GET", "/debug/goroutines", nil))
	var g httpapi.Goroutines
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil || rec.Code != http.StatusOK || g.Count < 1 {
		t.Fatalf("HTTP %d %q (%v)", rec.Code, rec.Body, err)
	}
	rec = httptest.NewRecorder()
	serveGoroutines(rec, httptest.NewRequest("GET", "/debug/goroutines?stacks=1", nil))
	if !strings.Contains(rec.Body.String(), "goroutine profile:") {
		t.Errorf("stacks: %q", rec.Body.String())
	}
}

func TestServeLoadRejectsBadRequests(t *testing.T) {
	c := &Consumer{opts: Options{App: "test"}}
	for _, q := range []string{"method=nope", "method=testUser", "calls=x"} {
		rec := httptest.NewRecorder()
		c.serveLoad(rec, httptest.NewRequest("GET", "/load?"+q, nil))
		var l httpapi.Load
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil || rec.Code != http.StatusBadRequest || l.Error == "" {
			t.Errorf("%s: HTTP %d %q", q, rec.Code, rec.Body)
		}
	}
}
