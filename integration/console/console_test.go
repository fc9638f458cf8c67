package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
	"github.com/dubboroute/dubboroute/samples/bookfacade/rules"
)

func TestMain(m *testing.M) { harness.Main(m) }

// ScreenshotEnv names a file to write a PNG of the console page to (how
// docs/console.png is made: DUBBOROUTE_CONSOLE_SCREENSHOT=$PWD/docs/console.png).
const ScreenshotEnv = "DUBBOROUTE_CONSOLE_SCREENSHOT"

const (
	consumerApp = "demo-consumer1"
	tagKey      = api.ProviderApp + ".tag-router"
	grayKey     = api.ProviderApp + ".gray-router"
	appKey      = consumerApp + ".condition-router"
)

// badAppRule fails at line 3 (a then-part without a key).
const badAppRule = "conditions:\n  - method = nothing => port = 1\n  - \"method = => =>\"\n"

// TestConsoleInBrowser: a sample consumer process serves the console on a
// loopback port; headless Chromium loads it, sees the references,
// providers, rules (with the rejected update and its line) and the call
// that found no provider, then submits the what-if form and the rendered
// trace tree, outcomes and gray decision must be what the live snapshot
// routes (the console's api/whatif for the same query, and the rules'
// own arithmetic).
func TestConsoleInBrowser(t *testing.T) {
	begin := time.Now()
	srv := zk.Start(t)
	reg := "zookeeper://" + srv.Addr()
	rs := harness.DialRules(t, srv.Addr())
	for _, k := range []string{api.ServiceRuleKey, tagKey, grayKey, appKey} {
		if err := rs.Delete(k); err != nil {
			t.Fatal(err)
		}
	}
	bins := harness.SampleBinaries(t)
	p1 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: reg})
	p2 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: reg})
	p3 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: reg, Params: map[string]string{"status": "gray"}})
	c := harness.StartConsumer(t, bins, harness.ConsumerOptions{App: consumerApp, Registry: reg, Console: true, LogLevel: "warn"})
	if !strings.HasPrefix(c.ConsoleURL, "http://127.0.0.1:") {
		t.Fatalf("console URL %q is not on loopback", c.ConsoleURL)
	}
	if _, err := c.WaitExplain(harness.QueryAll, 20*time.Second, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, p1.Addr, p2.Addr, p3.Addr)
	}); err != nil {
		t.Fatal(err)
	}
	// Rules: p2 is tag blue's; queryByName goes 20/80 to p1 alone or to
	// every provider but p2; users 1-10 are gray (p3); the consumer-app
	// update is rejected at line 3.
	svcRule := fmt.Sprintf("configVersion: v3.1\nscope: service\nkey: %s\nconditions:\n"+
		"  - from: {match: method=queryByName}\n    to:\n      - {match: port=%d, weight: 20}\n      - {match: port!=%d, weight: 80}\n",
		api.Interface, p1.Port, p2.Port)
	tagRule := fmt.Sprintf("force: false\ntags:\n  - name: blue\n    addresses: [%q]\n", p2.Addr)
	for k, v := range map[string]string{api.ServiceRuleKey: svcRule, tagKey: tagRule, grayKey: rules.MustGet(grayKey), appKey: badAppRule} {
		if err := rs.Put(k, v); err != nil {
			t.Fatal(err)
		}
	}
	var state struct {
		Rules []struct {
			Key      string `json:"key"`
			InForce  bool   `json:"in_force"`
			Rejected *struct {
				Line int `json:"line"`
			} `json:"rejected"`
		} `json:"rules"`
	}
	if err := harness.Eventually(20*time.Second, func() error {
		if err := getJSON(c.ConsoleURL+"api/state", &state); err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, r := range state.Rules {
			if r.InForce || (r.Key == appKey && r.Rejected != nil && r.Rejected.Line == 3) {
				seen[r.Key] = true
			}
		}
		for _, k := range []string{api.ServiceRuleKey, tagKey, grayKey, appKey} {
			if !seen[k] {
				return fmt.Errorf("rule %s not applied (or rejected) yet: %+v", k, state.Rules)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// One real call that routing leaves without a provider.
	if _, err := c.Do(harness.QueryAll.WithTag("red", true)); err == nil {
		t.Fatal("a call forced to tag red found a provider")
	} else if rpc := (*harness.RPCError)(nil); !errors.As(err, &rpc) {
		t.Fatal(err)
	}
	t.Logf("world up in %v", time.Since(begin).Round(time.Millisecond))
	// The sample's console (console.Serve on loopback) refuses a page of
	// another origin that re-bound its name to 127.0.0.1 (DNS rebinding):
	// its Host is its own name.
	req, err := http.NewRequest(http.MethodGet, c.ConsoleURL+"api/state", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "rebound.attacker.example"
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest || strings.Contains(string(body), api.Interface) {
			t.Errorf("api/state for a foreign Host: HTTP %d %.100s, want 421 without state", resp.StatusCode, body)
		}
	}

	b := startBrowser(t)
	if err := b.navigate(c.ConsoleURL); err != nil {
		t.Fatal(err)
	}
	var overview struct {
		Refs      []string
		Providers []string
		Gray      []string
		Rejected  string
		NoProv    int
		Title     string
	}
	if err := b.eval(`({
		Title: document.title,
		Refs: [...document.querySelectorAll('#ref option')].map(o => o.value),
		Providers: [...document.querySelectorAll('table.providers tr td:first-child')].map(td => td.innerText),
		Gray: [...document.querySelectorAll('table.providers tr')].filter(tr => tr.querySelector('.pill.gray')).map(tr => tr.cells[0].innerText),
		Rejected: (document.querySelector('tr.rule[data-key="`+appKey+`"] .rejected') || {}).innerText || '',
		NoProv: document.querySelectorAll('details.noprovider').length,
	})`, &overview); err != nil {
		t.Fatal(err)
	}
	wantRef := api.Interface + "@" + consumerApp
	if overview.Title != "dubboroute console" || len(overview.Refs) != 1 || overview.Refs[0] != wantRef {
		t.Errorf("page: title %q, references %v; want one, %s", overview.Title, overview.Refs, wantRef)
	}
	if !harness.Same(overview.Providers, p1.Addr, p2.Addr, p3.Addr) || !harness.Same(overview.Gray, p3.Addr) {
		t.Errorf("page: providers %v (gray %v), want %s %s %s (gray %s)", overview.Providers, overview.Gray, p1.Addr, p2.Addr, p3.Addr, p3.Addr)
	}
	if !strings.HasPrefix(overview.Rejected, "line 3:") {
		t.Errorf("page: rejected update of %s shown as %q, want its line 3", appKey, overview.Rejected)
	}
	if overview.NoProv != 1 {
		t.Errorf("page: %d no-provider calls listed, want 1", overview.NoProv)
	}

	// The what-if form, filled and submitted as a person would.
	if err := b.eval(`(() => {
		document.getElementById('method').value = 'queryByName';
		document.getElementById('args').value = 'Go';
		document.getElementById('attachments').value = 'userId=3';
		document.getElementById('route').click();
		return true;
	})()`, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.waitFor(`location.search.includes('method=queryByName') && document.readyState === 'complete' && !!document.getElementById('whatif-result')`, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Steps []struct {
			Router, Branch, In, Out string
		}
		Outcomes []struct{ Result, P string }
		Eligible string
		Picked   string
		Text     string
		Error    string
	}
	if err := b.eval(`({
		Steps: [...document.querySelectorAll('#trace-tree li.step')].map(li => ({Router: li.dataset.router, Branch: li.dataset.branch, In: li.dataset.in, Out: li.dataset.out})),
		Outcomes: [...document.querySelectorAll('#outcomes tr.outcome')].map(tr => ({Result: tr.cells[0].innerText, P: tr.cells[1].dataset.p})),
		Eligible: document.getElementById('eligible').innerText,
		Picked: (document.getElementById('gray-picked') || {}).innerText || '',
		Text: document.getElementById('trace-text').textContent,
		Error: (document.getElementById('whatif-error') || {}).innerText || '',
	})`, &got); err != nil {
		t.Fatal(err)
	}
	if got.Error != "" {
		t.Fatalf("what-if error on the page: %s", got.Error)
	}
	// The route the rules make: mock keeps 3; the tag router drops p2 (blue's)
	// for an untagged request; the service rule draws a destination.
	routers := []string{}
	for _, s := range got.Steps {
		routers = append(routers, s.Router)
	}
	if strings.Join(routers, ",") != "mock,tag,service,provider-app,app" {
		t.Fatalf("rendered routers %v", routers)
	}
	if s := got.Steps[1]; s.Branch != "tagless" || s.In != "3" || s.Out != "2" {
		t.Errorf("rendered tag step %+v, want tagless 3 -> 2", s)
	}
	if s := got.Steps[2]; s.Branch != "weighted-pick" || s.In != "2" {
		t.Errorf("rendered service step %+v, want a weighted pick from 2", s)
	}
	// Outcomes list providers in snapshot (registry) order: compare as sets.
	// Weights 20/80 drawn as Java draws them (r in [0,100), the first
	// destination with r <= its cumulative weight): 21/100 and 79/100.
	split := func(s string) []string { return strings.Split(s, ", ") }
	if len(got.Outcomes) != 2 ||
		!harness.Same(split(got.Outcomes[0].Result), p1.Addr) || got.Outcomes[0].P != "21/100" ||
		!harness.Same(split(got.Outcomes[1].Result), p1.Addr, p3.Addr) || got.Outcomes[1].P != "79/100" {
		t.Errorf("rendered outcomes %v, want [%s] 21/100 and [%s %s] 79/100", got.Outcomes, p1.Addr, p1.Addr, p3.Addr)
	}
	switch {
	case harness.Same(split(got.Eligible), p1.Addr):
		if got.Picked != p1.Addr {
			t.Errorf("eligible %s alone, gray balancer picks %q", p1.Addr, got.Picked)
		}
	case harness.Same(split(got.Eligible), p1.Addr, p3.Addr):
		if got.Picked != p3.Addr {
			t.Errorf("user 3 is gray: the balancer must pick %s, picked %q", p3.Addr, got.Picked)
		}
	default:
		t.Errorf("rendered eligible %q is no outcome", got.Eligible)
	}
	if !strings.Contains(got.Text, "└─ app") || !strings.Contains(got.Text, "weighted-pick") {
		t.Errorf("text tree:\n%s", got.Text)
	}
	// The page and api/whatif answer the same query the same way (apart
	// from the draw).
	q := url.Values{"ref": {wantRef}, "method": {"queryByName"}, "arg": {"Go"}, "attach": {"userId=3"}}
	var w struct {
		Outcomes []struct {
			Result []string `json:"result"`
			P      string   `json:"p"`
		} `json:"outcomes"`
	}
	if err := getJSON(c.ConsoleURL+"api/whatif?"+q.Encode(), &w); err != nil {
		t.Fatal(err)
	}
	if len(w.Outcomes) != len(got.Outcomes) {
		t.Errorf("api/whatif outcomes %+v, page %+v", w.Outcomes, got.Outcomes)
	}
	for i := range w.Outcomes {
		if i < len(got.Outcomes) && (strings.Join(w.Outcomes[i].Result, ", ") != got.Outcomes[i].Result || w.Outcomes[i].P != got.Outcomes[i].P) {
			t.Errorf("outcome %d: api %+v, page %+v", i, w.Outcomes[i], got.Outcomes[i])
		}
	}
	// What the console predicts is what a real call does: tag blue routes
	// to p2 alone, and the call is served there.
	var blue struct {
		Eligible []string `json:"eligible"`
	}
	q = url.Values{"ref": {wantRef}, "method": {"queryAll"}, "attach": {"dubbo.tag=blue"}}
	if err := getJSON(c.ConsoleURL+"api/whatif?"+q.Encode(), &blue); err != nil {
		t.Fatal(err)
	}
	if !harness.Same(blue.Eligible, p2.Addr) {
		t.Errorf("what-if tag blue: eligible %v, want %s", blue.Eligible, p2.Addr)
	}
	if port, err := c.Do(harness.QueryAll.WithTag("blue", false)); err != nil || port != p2.Port {
		t.Errorf("real call with tag blue served by %d (%v), want %d", port, err, p2.Port)
	}
	// Per-branch counters: known real calls move exactly the cells they
	// take, in api/state and on the page. Tag blue leaves p2 alone: queryAll
	// is not the service rule's method; for queryByName neither destination
	// (port=p1, port!=p2) has p2, so the rule falls back to its input.
	svcScope := fmt.Sprintf("#0 method=queryByName => port=%d (20) | port!=%d (80)", p1.Port, p2.Port)
	tagBlue := branchCell{"tag", "dynamic rule", "dynamic-hit", `tag "blue"`}
	svcNA := branchCell{"service", svcScope, "not-applicable", ""}
	svcFallback := branchCell{"service", svcScope, "fallback", ""}
	svcDest := branchCell{"service", svcScope, "destination", fmt.Sprintf("to[1] port!=%d (weight 80)", p2.Port)}
	before, err := branchCells(c.ConsoleURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []harness.Call{QueryAllBlue, QueryAllBlue, QueryAllBlue, QueryByNameBlue, QueryByNameBlue, QueryByNameBlue, QueryByNameBlue} {
		if port, err := c.Do(call); err != nil || port != p2.Port {
			t.Fatalf("%s served by %d (%v), want %d", call, port, err, p2.Port)
		}
	}
	after, err := branchCells(c.ConsoleURL)
	if err != nil {
		t.Fatal(err)
	}
	for cell, delta := range map[branchCell]uint64{tagBlue: 7, svcNA: 3, svcFallback: 4, svcDest: 0} {
		if _, ok := after[cell]; !ok {
			t.Errorf("api/state has no counter %+v (has %v)", cell, after)
		} else if after[cell]-before[cell] != delta {
			t.Errorf("counter %+v went from %d to %d, want +%d", cell, before[cell], after[cell], delta)
		}
	}
	// Reload the page (the what-if stays in its URL); the mark tells the
	// fresh document from the old one.
	if err := b.eval("window.staleConsole = true, location.reload(), true", nil); err != nil {
		t.Fatal(err)
	}
	if err := b.waitFor(`!window.staleConsole && document.readyState === 'complete' && !!document.getElementById('whatif-result')`, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var rows []struct{ Router, Scope, Branch, Detail, Count, Shown string }
	if err := b.eval(`[...document.querySelectorAll('tr.branch-count')].map(tr => ({Router: tr.dataset.router, Scope: tr.dataset.scope,
		Branch: tr.dataset.branch, Detail: tr.dataset.detail, Count: tr.dataset.count, Shown: tr.querySelector('td.count').innerText}))`, &rows); err != nil {
		t.Fatal(err)
	}
	onPage := map[branchCell]string{}
	for _, r := range rows {
		if r.Count != r.Shown {
			t.Errorf("page row %+v shows %s", r, r.Shown)
		}
		onPage[branchCell{r.Router, r.Scope, r.Branch, r.Detail}] = r.Shown
	}
	for _, cell := range []branchCell{tagBlue, svcNA, svcFallback, svcDest} {
		if want := fmt.Sprint(after[cell]); onPage[cell] != want {
			t.Errorf("page shows %+v = %q, want %s (api/state)", cell, onPage[cell], want)
		}
	}
	if path := os.Getenv(ScreenshotEnv); path != "" {
		if err := b.screenshot(path, 1280, 2400); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot written to %s", path)
	}
	t.Logf("done in %v", time.Since(begin).Round(time.Millisecond))
}

// The calls whose counts the test knows: tag blue, not forced.
var (
	QueryAllBlue    = harness.QueryAll.WithTag("blue", false)
	QueryByNameBlue = harness.QueryByName.WithTag("blue", false)
)

// branchCell names one per-branch counter of the console's reference.
type branchCell struct{ router, scope, branch, detail string }

// branchCells reads every per-branch counter of api/state's references.
func branchCells(consoleURL string) (map[branchCell]uint64, error) {
	var st struct {
		References []struct {
			Branches []struct {
				Router string `json:"router"`
				Cells  []struct {
					Scope  string `json:"scope"`
					Branch string `json:"branch"`
					Detail string `json:"detail"`
					Count  uint64 `json:"count"`
				} `json:"cells"`
			} `json:"branches"`
		} `json:"references"`
	}
	if err := getJSON(consoleURL+"api/state", &st); err != nil {
		return nil, err
	}
	out := map[branchCell]uint64{}
	for _, r := range st.References {
		for _, b := range r.Branches {
			for _, c := range b.Cells {
				out[branchCell{b.Router, c.Scope, c.Branch, c.Detail}] += c.Count
			}
		}
	}
	return out, nil
}

func getJSON(u string, v any) error {
	cl := &http.Client{Timeout: 15 * time.Second}
	resp, err := cl.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", u, resp.StatusCode, body)
	}
	return json.Unmarshal(body, v)
}
