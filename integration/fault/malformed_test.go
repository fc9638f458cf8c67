package fault

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// rejectWithin bounds how long a pushed rule may take to be rejected in the
// consumer's log (1 MB rules included).
const rejectWithin = 10 * time.Second

// goodRules are the last good rules the MalformedRules test keeps in force:
// queryAll only to p1 (service rule), tag t only to p2 (tag rule), users
// 1-10 to the status=gray provider p3 (gray rule).
func goodRules(p1, p2 int) map[string]string {
	return map[string]string{
		svcKey: fmt.Sprintf("scope: service\nforce: true\nruntime: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p1),
		tagKey: fmt.Sprintf("force: false\nruntime: true\nenabled: true\nkey: %s\ntags:\n  - name: t\n    addresses: [\"%s:%d\"]\n", api.ProviderApp, harness.Host, p2),
		grayKey: fmt.Sprintf("key: %s\nenabled: true\nfallback: normal\ngrayProviders:\n  match:\n    - param: status\n      exact: gray\n"+
			"requests:\n  - name: users-1-to-10\n    conditions:\n      - source: attachment\n        key: userId\n        operator: range\n        value: \"1~10\"\n", api.ProviderApp),
	}
}

func keyOf(k ruleKind) string {
	switch k {
	case kindCondition:
		return svcKey
	case kindTag:
		return tagKey
	}
	return grayKey
}

// rejectedMark is what the consumer logs when it refuses a rule (both the
// "rejected" and the "ignored as Java Dubbo does" wording end with it).
const rejectedMark = "the previous rule stays in force"

// TestMalformedRules pushes the corpus (47 malformed condition, tag and
// gray rules: YAML syntax errors, wrong field types, bad conditions, bad
// regexes, bad address patterns, 1 MB values, deep nesting, an alias bomb,
// binary garbage) one after another to the keys that hold good rules,
// while four kinds of calls run at 220 calls/s in all. Each push must be
// refused with a consumer log line naming the key and (except for binary
// garbage, see corpus_test.go) the line, and every call must be routed by
// the last good rules: queryAll on p1, queryByName with tag t on p2, user 1
// on the gray provider p3, user 3333 never on p3, all on an unchanged
// routing snapshot. Then empty content, which the config-center convention
// reads as a delete, is pushed to each key and must delete the rule.
func TestMalformedRules(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}, {Params: map[string]string{"status": "gray"}}}, harness.ConsumerOptions{})
	p1, p2, p3 := w.ps[0], w.ps[1], w.ps[2]
	good := goodRules(p1.Port, p2.Port)
	for _, k := range []string{svcKey, tagKey, grayKey} {
		w.put(t, k, good[k])
	}
	tagged := harness.QueryByName.WithTag("t", false)
	w.waitRouted(t, harness.QueryAll, p1)
	w.waitRouted(t, tagged, p2)
	ex, err := w.c.WaitExplain(harness.TestUser("1"), settle, func(ex httpapi.Explain) bool {
		d := grayOf(ex)
		return d.Rule == 0 && d.Gray && d.Provider == p3.Addr
	})
	if err != nil {
		t.Fatalf("gray rule not in force: %v", err)
	}
	versions, gen := ex.Rules, ex.Generation
	t.Logf("good rules in force: versions %v, snapshot %d", versions, gen)

	// routed is what the good rules leave for each call (before the gray
	// balancer): the tag rule claims p2 for tag t, so untagged calls have
	// p1 and p3 (the gray one), and the service rule keeps p1 for queryAll.
	kinds := []struct {
		call   harness.Call
		rate   float64
		routed []*harness.Provider
		check  func(httpapi.Load, httpapi.LoadCall) error
	}{
		{harness.QueryAll, 80, []*harness.Provider{p1}, servedBy(p1.Port)},
		{tagged, 60, []*harness.Provider{p2}, servedBy(p2.Port)},
		{harness.TestUser("1"), 40, []*harness.Provider{p1, p3}, servedBy(p3.Port)},
		{harness.TestUser("3333"), 40, []*harness.Provider{p1, p3}, servedBy(p1.Port)},
	}
	var loads []*loader
	for _, k := range kinds {
		l := startLoad(w.c, loadSpec{Call: k.call, Rate: k.rate, Concurrency: 8})
		defer l.stop(t)
		loads = append(loads, l)
	}
	for _, l := range loads {
		waitCalls(t, l, int(l.spec.Rate))
	}

	begin := time.Now()
	rejected := 0
	for _, r := range corpus() {
		key := keyOf(r.kind)
		content := r.expand(p1.Port, p2.Port, p3.Port)
		mark := []string{"rule key=" + key + " ", rejectedMark}
		before := countLog(w.c.Proc, mark...)
		pushed := time.Now()
		w.put(t, key, content)
		if err := harness.Eventually(rejectWithin, func() error {
			if n := countLog(w.c.Proc, mark...); n <= before {
				return fmt.Errorf("%d rejection lines for %s, want %d", n, key, before+1)
			}
			return nil
		}); err != nil {
			t.Errorf("%s (%d bytes) to %s: no rejection logged: %v; end of log:\n%s", r.name, len(content), key, err, w.c.LogTail(5))
			continue
		}
		rejected++
		line := lastLog(w.c.Proc, mark...)
		short := line
		if len(short) > 300 {
			short = short[:300] + fmt.Sprintf("... (%d bytes)", len(line))
		}
		switch {
		case r.line > 0 && !lineRE(r.line).MatchString(line):
			t.Errorf("%s: the rejection does not name line %d: %s", r.name, r.line, short)
		case r.line == 0 && strings.Contains(line, " line "):
			t.Errorf("%s: the rejection names a line now; set the corpus entry's line: %s", r.name, short)
		case r.line == 0:
			t.Logf("%s: rejected without a line (the parser's YAML error has no position): %s", r.name, short)
		}
		if d := time.Since(pushed); d > 2*time.Second {
			t.Logf("%s: rejection logged %v after the push", r.name, d.Round(time.Millisecond))
		}
	}
	pushTime := time.Since(begin)
	// Every call of the last batches began after the last push.
	for _, l := range loads {
		waitCalls(t, l, l.calls()+int(l.spec.Rate))
	}

	total, failed := 0, 0
	for i, l := range loads {
		batches := l.stop(t)
		st := l.stats()
		total += st.Calls
		failed += st.Failed
		t.Logf("%s: %s", l.spec.Call, st)
		checkCalls(t, l.spec.Call.String(), batches, kinds[i].check)
		// A refused rule does not rebuild routing; a registry event may
		// (a re-notification after a slow ZooKeeper heartbeat), but every
		// snapshot a call saw must route it as the good rules do.
		want := portsOf(kinds[i].routed)
		checkCalls(t, l.spec.Call.String()+" on a good rules' snapshot", batches, func(b httpapi.Load, c httpapi.LoadCall) error {
			for _, g := range []uint64{c.Gen0, c.Gen1} {
				if !samePorts(b.Routed[g], want) {
					return fmt.Errorf("snapshot %d routes to %v, want %v (the good rules')", g, b.Routed[g], want)
				}
			}
			return onSnapshot(b, c)
		})
	}
	t.Logf("corpus: %d rules pushed in %v, %d rejected; load: %d calls, %d failed", len(corpus()), pushTime.Round(time.Millisecond), rejected, total, failed)
	if rejected != len(corpus()) {
		t.Errorf("%d of %d malformed rules were rejected", rejected, len(corpus()))
	}
	ex, err = w.c.Explain(harness.TestUser("1"))
	if err != nil {
		t.Fatal(err)
	}
	if ex.Rules[svcKey] != versions[svcKey] || ex.Rules[tagKey] != versions[tagKey] {
		t.Errorf("after the corpus the rule versions are %v, want the good rules' %v", ex.Rules, versions)
	}
	if ex.Generation != gen {
		t.Logf("routing snapshot %d after the corpus, %d before (rebuilt by registry events, with the same rules)", ex.Generation, gen)
	}
	if d := grayOf(ex); d.Rule != 0 || d.Provider != p3.Addr {
		t.Errorf("after the corpus user 1's gray decision is %+v, want rule 0 and %s", d, p3.Addr)
	}

	t.Run("EmptyContentDeletes", func(t *testing.T) { emptyContentDeletes(t, w, good) })
}

// emptyContentDeletes: writing empty content to a rule node is a delete
// (Dubbo's config-center convention), not a malformed rule: the rule goes
// and routing continues without it.
func emptyContentDeletes(t *testing.T, w *world, good map[string]string) {
	p1, p2, p3 := w.ps[0], w.ps[1], w.ps[2]
	for _, tc := range []struct {
		key     string
		content string
		call    harness.Call
		gone    func(httpapi.Explain) bool
		restore func(httpapi.Explain) bool
	}{
		{
			// The tag rule still claims p2 for tag t, so an untagged queryAll
			// without the service rule goes to p1 and p3.
			svcKey, "", harness.QueryAll,
			func(ex httpapi.Explain) bool {
				_, in := ex.Rules[svcKey]
				return !in && harness.Same(ex.Routed, p1.Addr, p3.Addr)
			},
			func(ex httpapi.Explain) bool { return harness.Same(ex.Routed, p1.Addr) },
		},
		{
			// Without the tag rule, tag t is static: nobody has it, so the
			// call falls back to every provider.
			tagKey, "  \n", harness.QueryByName.WithTag("t", false),
			func(ex httpapi.Explain) bool {
				_, in := ex.Rules[tagKey]
				return !in && harness.Same(ex.Routed, p1.Addr, p2.Addr, p3.Addr)
			},
			func(ex httpapi.Explain) bool { return harness.Same(ex.Routed, p2.Addr) },
		},
		{
			// Without the gray rule nobody is a gray user.
			grayKey, "", harness.TestUser("1"),
			func(ex httpapi.Explain) bool { d := grayOf(ex); return d.Rule == -1 && !d.Gray },
			func(ex httpapi.Explain) bool { d := grayOf(ex); return d.Rule == 0 && d.Gray },
		},
	} {
		before := countLog(w.c.Proc, "rule key="+tc.key+" ", "deleted")
		at := time.Now()
		w.put(t, tc.key, tc.content)
		ex, err := w.c.WaitExplain(tc.call, settle, tc.gone)
		if err != nil {
			t.Errorf("empty content %q at %s did not delete the rule: %v", tc.content, tc.key, err)
		} else {
			t.Logf("empty content %q at %s: rule deleted after %v; %s routed to %v", tc.content, tc.key, time.Since(at).Round(time.Millisecond), tc.call, ex.Routed)
		}
		if n := countLog(w.c.Proc, "rule key="+tc.key+" ", "deleted"); n != before+1 {
			t.Errorf("%d new 'deleted' log lines for %s, want 1", n-before, tc.key)
		}
		if strings.Contains(lastLog(w.c.Proc, "rule key="+tc.key+" "), rejectedMark) {
			t.Errorf("empty content at %s was logged as a rejection", tc.key)
		}
		w.put(t, tc.key, good[tc.key])
		if _, err := w.c.WaitExplain(tc.call, settle, tc.restore); err != nil {
			t.Errorf("good rule %s not back: %v", tc.key, err)
		}
	}
}
