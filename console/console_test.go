package console

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	conf "dubbo.apache.org/dubbo-go/v3/common/config"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The fixture: one reference of com.test.Console by console-consumer
// (loadbalance gray) with three providers of console-provider, a v3.1
// service rule (queryByName: 30/70 between 20880 and the rest), a tag rule
// (tag blue: 10.0.0.2:20881), a gray rule (users 1-10 to status=gray) and a
// consumer-app rule whose update was rejected at line 3.
const (
	iface       = "com.test.Console"
	consumerApp = "console-consumer"
	providerApp = "console-provider"
	svcKey      = iface + "::.condition-router"
	tagKey      = providerApp + ".tag-router"
	grayKey     = providerApp + ".gray-router"
	appKey      = consumerApp + ".condition-router"
)

const svcRule = `configVersion: v3.1
scope: service
key: com.test.Console
force: false
conditions:
  - from: {match: method=queryByName}
    to:
      - {match: port=20880, weight: 30}
      - {match: port!=20880, weight: 70}
`

const tagRule = `force: false
tags:
  - name: blue
    addresses: ["10.0.0.2:20881"]
`

const grayRule = `fallback: normal
grayProviders:
  match:
    - { param: status, exact: gray }
requests:
  - name: users-1-to-10
    conditions:
      - { source: attachment, key: userId, operator: range, value: "1~10" }
`

const appRuleGood = `conditions:
  - method = nothing => port = 1
`

const appRuleBad = `conditions:
  - method = nothing => port = 1
  - "method = => =>"
`

// Secrets in the fixture's provider URLs, which the console must not show.
const (
	secretToken    = "s3cr3t-token"
	secretPassword = "hunter2"
	secretUserinfo = "pa55w0rd"
)

var fixture struct {
	router interface {
		Route([]base.Invoker, *common.URL, base.Invocation) []base.Invoker
		Notify([]base.Invoker)
	}
	invokers []base.Invoker
}

// bindingRouter routes through a binding as the directory's router chain
// does.
type bindingRouter struct{ b *extension.Binding }

func (r bindingRouter) Route(_ []base.Invoker, _ *common.URL, inv base.Invocation) []base.Invoker {
	return r.b.Chain().List(inv)
}

func (r bindingRouter) Notify(ivks []base.Invoker) { r.b.Notify(ivks) }

func TestMain(m *testing.M) {
	flag.Parse()
	conf.GetEnvInstance().SetDynamicConfiguration(memory.NewDynamicConfiguration(memory.Configs, ""))
	for k, v := range map[string]string{svcKey: svcRule, tagKey: tagRule, grayKey: grayRule, appKey: appRuleGood} {
		memory.PutRule(k, v)
	}
	// The binding is built from the directory URL a reference's registry
	// directory has, as the installation builds it.
	ref, _ := common.NewURL("dubbo://:0/" + iface + "?interface=" + iface + "&application=" + consumerApp + "&loadbalance=gray&side=consumer")
	reg, _ := common.NewURL("memory://127.0.0.1:0")
	reg.SubURL = ref
	r := bindingRouter{extension.NewBinding(reg)}
	fixture.router = r
	for _, u := range []string{
		"dubbo://10.0.0.1:20880/" + iface + "?interface=" + iface + "&application=" + providerApp + "&weight=100&token=" + secretToken + "&registry.password=" + secretPassword,
		"dubbo://10.0.0.2:20881/" + iface + "?interface=" + iface + "&application=" + providerApp + "&weight=50&dubbo.tag=green",
		"dubbo://admin:" + secretUserinfo + "@10.0.0.3:20882/" + iface + "?interface=" + iface + "&application=" + providerApp + "&status=gray",
	} {
		cu, err := common.NewURL(u)
		if err != nil {
			panic(err)
		}
		fixture.invokers = append(fixture.invokers, base.NewBaseInvoker(cu))
	}
	r.Notify(fixture.invokers)
	memory.PutRule(appKey, appRuleBad) // rejected: the good rule stays
	// Real calls through the chain: counted, and one left without provider.
	for _, at := range []map[string]any{nil, {"dubbo.tag": "blue"}, {"dubbo.tag": "red", "dubbo.force.tag": "true"}} {
		r.Route(fixture.invokers, ref, invocation.NewRPCInvocation("queryAll", nil, at))
	}
	// queryByName with tag blue: only 10.0.0.2:20881 is left for the v3.1
	// pick, so its second destination (port!=20880) is the only candidate.
	for i := 0; i < 2; i++ {
		r.Route(fixture.invokers, ref, invocation.NewRPCInvocation("queryByName", []any{"Go"}, map[string]any{"dubbo.tag": "blue"}))
	}
	os.Exit(m.Run())
}

var fixedNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/console/", http.StripPrefix("/console", New(Options{Now: func() time.Time { return fixedNow }})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// volatile are the values that differ from run to run (wall-clock times,
// the consumer's pid and IP): replaced before comparing with the golden.
var volatile = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`"(accepted_at|at|since)": "[^"]*"`), `"$1": "<time>"`},
	{regexp.MustCompile(`"consumer_url": "[^"]*"`), `"consumer_url": "<consumer url>"`},
	{regexp.MustCompile(`(snapshot \d+\): mock .*?)"`), `$1"`},
	{regexp.MustCompile(`&?(timestamp|pid|ip)=[^&"]*`), ``},
}

func scrub(b []byte) []byte {
	for _, v := range volatile {
		b = v.re.ReplaceAll(b, []byte(v.repl))
	}
	return b
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	got = scrub(got)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./console -run %s -update to create it)", err, t.Name())
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the golden file (go test ./console -run %s -update rewrites it after review)\n--- got\n%s", path, t.Name(), got)
	}
}

// TestStateGolden: api/state's JSON for the fixture, byte for byte.
func TestStateGolden(t *testing.T) {
	srv := newTestServer(t)
	// A what-if and the page's what-if route on the live snapshot and must
	// not count (the branch counts below would be off).
	for _, p := range []string{"/console/api/whatif?", "/console/?"} {
		q := url.Values{"ref": {iface + "@" + consumerApp}, "method": {"queryByName"}, "arg": {"Go"}, "attach": {"dubbo.tag=blue"}, "attachments": {"dubbo.tag=blue"}}
		if code, body := get(t, srv.URL+p+q.Encode()); code != http.StatusOK {
			t.Fatalf("%s: HTTP %d: %s", p, code, body)
		}
	}
	code, body := get(t, srv.URL+"/console/api/state")
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	golden(t, "state.json", body)
	var st State
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	// Beyond the golden: the facts the issue asks for are really there.
	if len(st.References) != 1 {
		t.Fatalf("references: %d", len(st.References))
	}
	r := st.References[0]
	if r.ID != iface+"@"+consumerApp || r.ProviderApp != providerApp || len(r.Providers) != 3 {
		t.Errorf("reference %+v", r)
	}
	if p := r.Providers[2]; !p.Gray || p.Params["status"] != "gray" || r.Providers[1].Weight != 50 || r.Providers[1].Tag != "green" ||
		len(r.Providers[1].DynamicTags) != 1 || r.Providers[1].DynamicTags[0] != "blue" || r.Providers[0].DynamicTags != nil {
		t.Errorf("providers %+v", r.Providers)
	}
	if len(r.NoProvider) != 1 || r.NoProvider[0].Trace[1].Branch != "forced-empty" {
		t.Errorf("no-provider ring %+v", r.NoProvider)
	}
	var tagCounters *Counter
	for i := range r.Counters {
		if r.Counters[i].Router == "tag" {
			tagCounters = &r.Counters[i]
		}
	}
	if c := tagCounters; c == nil || c.Kept+c.Filtered+c.Empty != 5 || c.Empty != 1 {
		t.Errorf("tag counters %+v", c)
	}
	// Per branch, after the fixture's five calls (and the what-if and page
	// requests of other tests, which count nothing).
	for _, w := range []struct {
		router, scope, branch, detail string
		n                             uint64
	}{
		{"service", "rule", "not-applicable", "no condition applied", 2},
		{"tag", "dynamic rule", "tagless", "", 1},
		{"tag", "dynamic rule", "dynamic-hit", `tag "blue"`, 3},
		{"tag", "dynamic rule", "forced-empty", "", 1},
		{"tag", "dynamic rule", "fallback-untagged", "", 0},
		{"service", "rule", "calls", "", 4},
		{"service", "#0 method=queryByName => port=20880 (30) | port!=20880 (70)", "not-applicable", "", 2},
		{"service", "#0 method=queryByName => port=20880 (30) | port!=20880 (70)", "destination", "to[0] port=20880 (weight 30)", 0},
		{"service", "#0 method=queryByName => port=20880 (30) | port!=20880 (70)", "destination", "to[1] port!=20880 (weight 70)", 2},
		{"app", "#0 method = nothing => port = 1", "not-applicable", "", 4},
	} {
		if got, ok := branchCount(r, w.router, w.scope, w.branch, w.detail); !ok || got != w.n {
			t.Errorf("%s %q %s %s = %d (found %t), want %d", w.router, w.scope, w.branch, w.detail, got, ok, w.n)
		}
	}
	var app *Rule
	for i := range st.Rules {
		if st.Rules[i].Key == appKey {
			app = &st.Rules[i]
		}
	}
	if app == nil || !app.InForce || app.Content != appRuleGood || app.Rejected == nil || app.Rejected.Line != 3 {
		t.Errorf("rejected rule not shown with its line: %+v", app)
	}
}

// TestWhatIfGolden: api/whatif for a gray user's queryAll (no weighted
// pick: deterministic end to end), and the outcomes of queryByName's v3.1
// pick, each byte for byte.
func TestWhatIfGolden(t *testing.T) {
	srv := newTestServer(t)
	q := url.Values{"ref": {iface + "@" + consumerApp}, "method": {"queryAll"}, "attach": {"userId=7"}}
	code, body := get(t, srv.URL+"/console/api/whatif?"+q.Encode())
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	golden(t, "whatif-queryAll.json", body)

	q = url.Values{"ref": {iface + "@" + consumerApp}, "method": {"queryByName"}, "arg": {"Go"}}
	code, body = get(t, srv.URL+"/console/api/whatif?"+q.Encode())
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	var w WhatIf
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(w.Outcomes, "", "  ")
	golden(t, "whatif-queryByName-outcomes.json", append(out, '\n'))
	if len(w.Outcomes) != 2 || w.Outcomes[0].P != "31/100" || w.Outcomes[1].P != "69/100" { // Java's draw: 30+1, 70-1
		t.Errorf("outcomes %+v", w.Outcomes)
	}
	// The drawn trace is one of the outcomes.
	drawn := strings.Join(w.Eligible, ",")
	if drawn != strings.Join(w.Outcomes[0].Result, ",") && drawn != strings.Join(w.Outcomes[1].Result, ",") {
		t.Errorf("drawn %v is no outcome of %+v", w.Eligible, w.Outcomes)
	}
}

// branchCount finds one cell of a reference's branch counters.
func branchCount(r Reference, routerName, scope, branch, detail string) (uint64, bool) {
	for _, b := range r.Branches {
		if b.Router != routerName {
			continue
		}
		for _, c := range b.Cells {
			if c.Scope == scope && string(c.Branch) == branch && c.Detail == detail {
				return c.Count, true
			}
		}
	}
	return 0, false
}

func TestWhatIfErrors(t *testing.T) {
	srv := newTestServer(t)
	for q, want := range map[string]string{
		"ref=nope&method=m":                                   "no reference",
		"ref=" + iface + "@" + consumerApp:                    "method is required",
		"ref=x&method=m&attach=" + url.QueryEscape("novalue"): "want key=value",
	} {
		code, body := get(t, srv.URL+"/console/api/whatif?"+q)
		if code != http.StatusBadRequest || !strings.Contains(string(body), want) {
			t.Errorf("%s: HTTP %d %s, want 400 with %q", q, code, body, want)
		}
	}
}

func TestReadOnlyAndPage(t *testing.T) {
	srv := newTestServer(t)
	resp, err := http.Post(srv.URL+"/console/api/state", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: HTTP %d, want 405", resp.StatusCode)
	}
	code, body := get(t, srv.URL+"/console/?ref="+url.QueryEscape(iface+"@"+consumerApp)+"&method=queryAll&attachments="+url.QueryEscape("dubbo.tag=blue"))
	page := string(body)
	if code != http.StatusOK {
		t.Fatalf("page: HTTP %d", code)
	}
	for _, want := range []string{`id="trace-tree"`, `data-branch="dynamic-hit"`, `10.0.0.2:20881`, `line 3:`, providerApp + ".gray-router"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// No external asset: nothing is loaded from anywhere but the page.
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:)?//`).FindString(page); m != "" {
		t.Errorf("page references an external asset: %s", m)
	}
}

func TestCheckBind(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:0": true, "[::1]:8081": true, "localhost:9": true, "127.0.0.2:1": true,
		":8080": false, "0.0.0.0:8080": false, "10.1.2.3:80": false, "example.com:80": false, "nonsense": false,
	} {
		if err := CheckBind(addr, false); (err == nil) != ok {
			t.Errorf("CheckBind(%q) = %v, want ok=%t", addr, err, ok)
		}
	}
	if err := CheckBind("0.0.0.0:8080", true); err != nil {
		t.Errorf("AllowRemote: %v", err)
	}
	if _, err := Serve(":0", Options{}); err == nil || !strings.Contains(err.Error(), "every interface") {
		t.Errorf("Serve(:0) = %v", err)
	}
	s, err := Serve("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if code, _ := get(t, s.URL()+"api/state"); code != http.StatusOK {
		t.Errorf("served console: HTTP %d", code)
	}
}
