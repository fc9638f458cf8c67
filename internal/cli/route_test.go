package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
)

const bookFacade = "com.muke.dubbocourse.common.api.BookFacade"

// seedRule is the seeds' service rule, as Dubbo Admin stores it.
const seedRule = "scope: service\nforce: true\nruntime: true\nenabled: true\nkey: " + bookFacade +
	"\nconditions:\n  - method=queryAll => address=*:20880\n  - method=queryByName => address=*:20881\n"

func bookProviders(extra20881 string) []map[string]string {
	return []map[string]string{
		{"id": "b20880", "url": "dubbo://127.0.0.1:20880/" + bookFacade + "?application=demo-provider&interface=" + bookFacade + "&methods=queryAll,queryByName"},
		{"id": "b20881", "url": "dubbo://127.0.0.1:20881/" + bookFacade + "?application=demo-provider&interface=" + bookFacade + "&methods=queryAll,queryByName" + extra20881},
	}
}

func bookCase(id, app, method string, rules []map[string]any, attachments map[string]string, extra20881 string) map[string]any {
	if attachments == nil {
		attachments = map[string]string{}
	}
	if rules == nil {
		rules = []map[string]any{}
	}
	return map[string]any{
		"id":           id,
		"rules":        rules,
		"consumer_url": "consumer://127.0.0.1/" + bookFacade + "?application=" + app + "&interface=" + bookFacade,
		"invocation":   map[string]any{"method": method, "arguments": []any{}, "attachments": attachments},
		"providers":    bookProviders(extra20881),
	}
}

// routeOne runs route on one case and decodes the answer.
func routeOne(t *testing.T, c any, args ...string) (Result, int) {
	t.Helper()
	in, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, string(in), append([]string{"route"}, args...)...)
	var r Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("route output is not one JSON object: %v\nstdout %q\nstderr %q", err, out, errOut)
	}
	return r, code
}

func resultOf(t *testing.T, r Result) []string {
	t.Helper()
	if r.Result == nil {
		t.Fatalf("case %s: no result (error %q)", r.ID, r.Error)
	}
	return *r.Result
}

// TestRouteBookFacadeSeeds replays the seeds' BookFacade scenarios.
func TestRouteBookFacadeSeeds(t *testing.T) {
	svc := []map[string]any{{"key": bookFacade + "::.condition-router", "content": seedRule}}
	app := []map[string]any{{"key": "demo-consumer1.condition-router", "content": "conditions:\n  - application=demo-consumer1 => address=*:20880\n"}}
	tagRule := []map[string]any{{"key": "demo-provider.tag-router", "content": "force: false\ntags:\n  - name: gray\n    addresses: [\"127.0.0.1:20881\"]\n"}}
	cases := []struct {
		name string
		c    map[string]any
		want []string
	}{
		{"queryAll=>20880", bookCase("s1", "demo-consumer", "queryAll", svc, nil, ""), []string{"b20880"}},
		{"queryByName=>20881", bookCase("s2", "demo-consumer", "queryByName", svc, nil, ""), []string{"b20881"}},
		{"other method untouched", bookCase("s3", "demo-consumer", "addBook", svc, nil, ""), []string{"b20880", "b20881"}},
		{"app demo-consumer1=>20880", bookCase("s4", "demo-consumer1", "queryByName", app, nil, ""), []string{"b20880"}},
		{"other app not read", bookCase("s5", "demo-consumer2", "queryByName", app, nil, ""), []string{"b20880", "b20881"}},
		{"static tag hit", bookCase("s6", "demo-consumer", "queryAll", nil, map[string]string{"dubbo.tag": "gray"}, "&dubbo.tag=gray"), []string{"b20881"}},
		{"static tag: tagless request avoids tagged", bookCase("s7", "demo-consumer", "queryAll", nil, nil, "&dubbo.tag=gray"), []string{"b20880"}},
		{"dynamic tag hit", bookCase("s8", "demo-consumer", "queryAll", tagRule, map[string]string{"dubbo.tag": "gray"}, ""), []string{"b20881"}},
		{"dynamic tag: tagless request", bookCase("s9", "demo-consumer", "queryAll", tagRule, nil, ""), []string{"b20880"}},
		// force: true and queryAll's destination taken by the gray tag: no provider.
		{"tag then service, fail", bookCase("s10", "demo-consumer", "queryAll", append(append([]map[string]any{}, tagRule...), svc...), map[string]string{"dubbo.tag": "gray"}, ""), []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, code := routeOne(t, tc.c)
			if code != ExitOK || r.Error != "" {
				t.Fatalf("exit %d, error %q", code, r.Error)
			}
			if got := resultOf(t, r); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("result %v, want %v (trace %+v)", got, tc.want, r.Trace)
			}
			if len(r.Rejected) != 0 {
				t.Fatalf("rejected %v", r.Rejected)
			}
		})
	}
}

// TestRouteChain: tag, service, provider-app and consumer-app rules in one
// case; the trace shows Java's order and the fail-fast stop.
func TestRouteChain(t *testing.T) {
	consumer := "consumer://10.0.0.9/" + bookFacade + "?application=c1&interface=" + bookFacade + "&region=hz"
	providers := []map[string]string{
		{"id": "p1", "url": "dubbo://10.0.0.1:20880/" + bookFacade + "?application=prov&region=hz"},
		{"id": "p2", "url": "dubbo://10.0.0.2:20880/" + bookFacade + "?application=prov&region=bj"},
		{"id": "p3", "url": "dubbo://10.0.0.3:20881/" + bookFacade + "?application=prov&region=hz"},
		{"id": "p4", "url": "dubbo://10.0.0.4:20881/" + bookFacade + "?application=prov&region=hz&dubbo.tag=canary"},
	}
	c := map[string]any{
		"id": "chain",
		"rules": []map[string]any{
			{"key": "c1.condition-router", "content": "conditions:\n  - => port=20881\n"},
			{"key": bookFacade + "::.condition-router", "content": "conditions:\n  - => region=$region\n"},
			{"key": "prov.condition-router", "content": "conditions:\n  - method=queryAll => host!=10.0.0.3\n"},
			{"key": "other.condition-router", "content": "conditions:\n  - =>\n"},
			{"key": "prov.tag-router", "content": "tags:\n  - name: blue\n    addresses: [\"10.0.0.2\"]\n"},
		},
		"consumer_url": consumer,
		"invocation":   map[string]any{"method": "queryAll", "arguments": []any{"x", 3}, "attachments": map[string]string{}},
		"providers":    providers,
	}
	r, code := routeOne(t, c)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, r.Error)
	}
	// tag: tagless request -> untagged providers not claimed by blue: p1, p3.
	// service: region=hz keeps both. provider-app: host!=10.0.0.3 -> p1.
	// consumer-app: port=20881 matches none of {p1} -> fallback -> p1.
	if got := resultOf(t, r); !reflect.DeepEqual(got, []string{"p1"}) {
		t.Fatalf("result %v, want [p1]; trace %+v", got, r.Trace)
	}
	var routers []string
	for _, s := range r.Trace {
		routers = append(routers, fmt.Sprintf("%s %d->%d %s", s.Router, s.In, s.Out, s.Branch))
	}
	want := []string{"mock 4->4 no-mock", "tag 4->2 tagless", "service 2->2 matched", "provider-app 2->1 matched", "app 1->1 fallback"}
	if !reflect.DeepEqual(routers, want) {
		t.Fatalf("trace %v, want %v", routers, want)
	}
	if len(r.Unread) != 1 || r.Unread[0].Key != "other.condition-router" || r.Unread[0].Rule != 3 {
		t.Fatalf("unread %+v, want rule 3 other.condition-router", r.Unread)
	}

	// Without the provider-app rule, the provider-app router applies the
	// consumer-app rule too (Java's ProviderAppStateRouter quirk).
	c["rules"] = []map[string]any{{"key": "c1.condition-router", "content": "conditions:\n  - => port=20881\n"}}
	r, _ = routeOne(t, c)
	if got := resultOf(t, r); !reflect.DeepEqual(got, []string{"p3"}) || r.Trace[3].Key != "c1.condition-router" {
		t.Fatalf("quirk: result %v, trace %+v", got, r.Trace)
	}
}

// TestRouteJavaSmoke replays the Java oracle's smoke cases and compares with
// the answers Java Dubbo gave (integration/java/testdata): results, rejected
// rule indexes, unread keys and, for v3.1 picks, Java's exact probabilities.
func TestRouteJavaSmoke(t *testing.T) {
	in, err := os.ReadFile("../../integration/java/testdata/smoke.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := os.ReadFile("../../integration/java/testdata/smoke.expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, string(in), "route", "--batch", "--no-trace")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	want := strings.Split(strings.TrimSpace(string(exp)), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d answers for %d expected", len(got), len(want))
	}
	type javaLeaf struct {
		Result []string `json:"result"`
		P      string   `json:"p"`
	}
	type javaAnswer struct {
		ID           string      `json:"id"`
		Result       *[]string   `json:"result"`
		Rejected     []Rejection `json:"rejected"`
		Unread       []Unread    `json:"unread"`
		Destinations []javaLeaf  `json:"destinations"`
	}
	for i := range want {
		var j javaAnswer
		var g Result
		if err := json.Unmarshal([]byte(want[i]), &j); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(got[i]), &g); err != nil {
			t.Fatal(err)
		}
		if j.Result != nil && (g.Result == nil || !reflect.DeepEqual(*g.Result, *j.Result)) {
			t.Errorf("%s: result %v, Java %v", j.ID, g.Result, *j.Result)
		}
		idx := func(rs []Rejection) (o []int) {
			for _, r := range rs {
				o = append(o, r.Rule)
			}
			return
		}
		if !reflect.DeepEqual(idx(g.Rejected), idx(j.Rejected)) {
			t.Errorf("%s: rejected %v, Java %v", j.ID, g.Rejected, j.Rejected)
		}
		keys := func(us []Unread) (o []string) {
			for _, u := range us {
				o = append(o, u.Key)
			}
			return
		}
		if !reflect.DeepEqual(keys(g.Unread), keys(j.Unread)) {
			t.Errorf("%s: unread %v, Java %v", j.ID, g.Unread, j.Unread)
		}
		if j.Destinations != nil {
			var mine []javaLeaf
			for _, l := range g.Destinations {
				mine = append(mine, javaLeaf{Result: l.Result, P: l.P})
			}
			if !reflect.DeepEqual(mine, j.Destinations) {
				t.Errorf("%s: destinations %+v, Java %+v", j.ID, mine, j.Destinations)
			}
		}
	}
}

func TestRouteDestinationsAndSamples(t *testing.T) {
	rules := []map[string]any{{"key": bookFacade + "::.condition-router", "content": "configVersion: v3.1\nconditions:\n  - to:\n      - match: port=20880\n        weight: 25\n      - match: port=20881\n        weight: 75\n"}}
	c := bookCase("w", "demo-consumer", "queryAll", rules, nil, "")
	r, code := routeOne(t, c, "--destinations")
	if code != ExitOK || len(r.Destinations) != 2 {
		t.Fatalf("exit %d, destinations %+v", code, r.Destinations)
	}
	d0, d1 := r.Destinations[0], r.Destinations[1]
	if !reflect.DeepEqual(d0.Result, []string{"b20880"}) || d0.P != "13/50" || *d0.Weight != 25 ||
		!reflect.DeepEqual(d1.Result, []string{"b20881"}) || d1.P != "37/50" || *d1.Weight != 75 {
		t.Fatalf("destinations %+v %+v", d0, d1)
	}
	for i, d := range r.Destinations {
		if len(d.Picks) != 1 || !reflect.DeepEqual(d.Picks[0].Counts, []int64{26, 74}) ||
			!reflect.DeepEqual(d.Picks[0].Weights, []int64{25, 75}) || d.Picks[0].Pick != i {
			t.Fatalf("picks of destination %d: %+v", i, d.Picks)
		}
	}

	r, _ = routeOne(t, c, "--samples", "4000", "--seed", "7")
	if len(r.Outcomes) != 2 || r.Outcomes[0].Count+r.Outcomes[1].Count != 4000 {
		t.Fatalf("outcomes %+v", r.Outcomes)
	}
	n20880 := 0
	for _, o := range r.Outcomes {
		if reflect.DeepEqual(o.Result, []string{"b20880"}) {
			n20880 = o.Count
		}
	}
	if n20880 < 850 || n20880 > 1150 { // 1000 expected; 6 sigma is about 165
		t.Fatalf("b20880 drawn %d of 4000 times, want about 1000", n20880)
	}
	// The same seed draws the same outcomes.
	r2, _ := routeOne(t, c, "--samples", "4000", "--seed", "7")
	if !reflect.DeepEqual(r.Outcomes, r2.Outcomes) {
		t.Fatalf("--seed is not reproducible: %+v vs %+v", r.Outcomes, r2.Outcomes)
	}
}

func TestRouteBadInput(t *testing.T) {
	if _, errOut, code := run(t, "{not json", "route"); code != ExitFail || !strings.Contains(errOut, "invalid case") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("invalid JSON: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, `{"id":"a","consumerUrl":"x"}`, "route"); code != ExitFail || !strings.Contains(errOut, `unknown field "consumerUrl"`) {
		t.Fatalf("unknown field: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, "", "route", "testdata/nope.json"); code != ExitFail || !strings.Contains(errOut, "nope.json") {
		t.Fatalf("missing file: exit %d, %q", code, errOut)
	}
	if _, _, code := run(t, "", "route", "--samples", "-1"); code != ExitUsage {
		t.Fatalf("--samples -1: exit %d", code)
	}
	good, _ := json.Marshal(bookCase("ok", "demo-consumer", "queryAll", nil, nil, ""))
	badKey, _ := json.Marshal(bookCase("badkey", "demo-consumer", "queryAll", []map[string]any{{"key": "foo.yaml", "content": "x"}}, nil, ""))
	noConsumer := `{"id":"nc","providers":[]}`
	badURL := `{"id":"bu","consumer_url":"consumer://h:99999/x","providers":[]}`
	in := strings.Join([]string{string(good), "", "{broken", noConsumer, string(badKey), badURL}, "\n")
	out, _, code := run(t, in, "route", "--batch")
	if code != ExitFail {
		t.Fatalf("batch with bad cases: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("want one answer per non-blank line (5), got %d:\n%s", len(lines), out)
	}
	wantErr := []string{"", "line 3: invalid case", "consumer_url: missing", `key "foo.yaml": not a rule key`, "bad port"}
	for i, l := range lines {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d not JSON: %v", i, err)
		}
		if wantErr[i] == "" && (r.Error != "" || r.Result == nil) || !strings.Contains(r.Error, wantErr[i]) {
			t.Errorf("answer %d: error %q, want it to contain %q", i, r.Error, wantErr[i])
		}
	}
}

// ---------------------------------------------------------------------------
// route versus in-process routing on random cases.

var (
	condPool = []string{
		"=> region = hz", "=> region != hz", "method = queryAll => port = 20880", "method = queryByName => port = 20881",
		"region = hz => host = 10.0.0.1,10.0.0.2", "=> host = 10.0.0.*", "arguments[0] = a => region = bj",
		"attachments[user] = 7 => env = gray", "method = queryAll =>", "=> env = $env", "application = c1 => address = *:20880",
		"method != queryAll => region = bj", "arguments[1] = 1~5 => port = 20882", "=> dubbo.tag = blue",
	}
	tagPool = []string{
		"tags:\n  - name: gray\n    addresses: [\"10.0.0.1\"]\n",
		"force: true\ntags:\n  - name: gray\n    addresses: [\"10.0.0.9:20880\"]\n  - name: blue\n    addresses: [\"0.0.0.0:20881\"]\n",
		"configVersion: v3.0\ntags:\n  - name: blue\n    match:\n      - key: env\n        value:\n          exact: gray\n",
		"enabled: false\ntags:\n  - name: gray\n    addresses: [\"10.0.0.2\"]\n",
	}
)

func randomConditions(rng *rand.Rand) (string, []string, bool, bool) {
	n := 1 + rng.IntN(3)
	var conds []string
	for i := 0; i < n; i++ {
		conds = append(conds, condPool[rng.IntN(len(condPool))])
	}
	force, enabled := rng.IntN(3) == 0, rng.IntN(8) != 0
	var b strings.Builder
	fmt.Fprintf(&b, "force: %t\nenabled: %t\nconditions:\n", force, enabled)
	for _, c := range conds {
		fmt.Fprintf(&b, "  - %q\n", c)
	}
	return b.String(), conds, force, enabled
}

type randomCase struct {
	c        map[string]any
	consumer *router.URL
	urls     []*router.URL
	ids      []string
	call     router.Call
	tagRule  string
	single   []string
	singleF  []bool
	service  string
	provApp  string
	consApp  string
}

func makeRandomCase(rng *rand.Rand, id int) randomCase {
	var rc randomCase
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	app := pick("c1", "c2")
	consumer := "consumer://10.0.0.9/" + bookFacade + "?application=" + app + "&interface=" + bookFacade + "&env=" + pick("gray", "prod")
	if rng.IntN(4) == 0 {
		consumer += "&dubbo.tag=" + pick("gray", "blue")
	}
	rc.consumer = router.MustParseURL(consumer)
	n := 1 + rng.IntN(6)
	var providers []map[string]string
	for i := 0; i < n; i++ {
		u := fmt.Sprintf("dubbo://10.0.0.%d:%s/%s?application=prov&region=%s&env=%s", 1+rng.IntN(3), pick("20880", "20881", "20882"), bookFacade, pick("hz", "bj"), pick("gray", "prod"))
		if rng.IntN(3) == 0 {
			u += "&dubbo.tag=" + pick("gray", "blue")
		}
		pid := fmt.Sprintf("p%d", i)
		providers = append(providers, map[string]string{"id": pid, "url": u})
		rc.urls = append(rc.urls, router.MustParseURL(u))
		rc.ids = append(rc.ids, pid)
	}
	var rules []map[string]any
	if rng.IntN(2) == 0 {
		rc.tagRule = tagPool[rng.IntN(len(tagPool))]
		rules = append(rules, map[string]any{"key": "prov.tag-router", "content": rc.tagRule})
	}
	if rng.IntN(2) == 0 {
		rc.service, _, _, _ = randomConditions(rng)
		rules = append(rules, map[string]any{"key": bookFacade + "::.condition-router", "content": rc.service})
	}
	if rng.IntN(3) == 0 {
		rc.provApp, _, _, _ = randomConditions(rng)
		rules = append(rules, map[string]any{"key": "prov.condition-router", "content": rc.provApp})
	}
	if rng.IntN(2) == 0 {
		rc.consApp, _, _, _ = randomConditions(rng)
		rules = append(rules, map[string]any{"key": app + ".condition-router", "content": rc.consApp})
	}
	if rng.IntN(3) == 0 {
		s := condPool[rng.IntN(len(condPool))]
		f := rng.IntN(2) == 0
		rc.single, rc.singleF = append(rc.single, s), append(rc.singleF, f)
		rules = append(rules, map[string]any{"condition": s, "force": f, "enabled": true})
	}
	rng.Shuffle(len(rules), func(i, j int) { rules[i], rules[j] = rules[j], rules[i] })
	// Single conditions keep their relative order; there is at most one.
	method := pick("queryAll", "queryByName", "addBook")
	args := []any{pick("a", "b"), rng.IntN(8)}
	atts := map[string]string{}
	if rng.IntN(2) == 0 {
		atts["user"] = pick("7", "8")
	}
	if rng.IntN(3) == 0 {
		atts["dubbo.tag"] = pick("gray", "blue", "gray|blue")
	}
	if rng.IntN(5) == 0 {
		atts["dubbo.force.tag"] = "true"
	}
	am := router.AttachmentMap{}
	for k, v := range atts {
		am[k] = v
	}
	rc.call = router.Call{Method: method, Args: []any{args[0], int64(args[1].(int))}, Attachments: am}
	rc.c = map[string]any{
		"id": id, "rules": rules, "consumer_url": consumer,
		"invocation": map[string]any{"method": method, "arguments": args, "attachments": atts},
		"providers":  providers,
	}
	return rc
}

// inProcess routes a random case by calling the router packages directly,
// in Java's order, with fail-fast.
func inProcess(t *testing.T, rc randomCase) []string {
	u := router.NewUniverse(len(rc.urls))
	set := u.All()
	var tr *tag.Rule
	if rc.tagRule != "" {
		var err error
		if tr, err = tag.ParseRule(rc.tagRule); err != nil {
			t.Fatal(err)
		}
	}
	set = tag.Compile(tr, u, rc.consumer, rc.urls).Route(set, &rc.call, nil)
	cond := func(r *condition.Rule) {
		if set.Empty() || r == nil {
			return
		}
		set = r.Compile(u, rc.consumer, rc.urls, condition.CompileOptions{}).Route(set, &rc.call, nil)
	}
	parse := func(s string) *condition.Rule {
		if s == "" {
			return nil
		}
		r, err := condition.ParseRule(s)
		if err != nil {
			t.Fatalf("pool rule rejected: %v\n%s", err, s)
		}
		return r
	}
	for i, s := range rc.single {
		r, err := condition.ParseCondition(s, rc.singleF[i], true)
		if err != nil {
			t.Fatal(err)
		}
		cond(r)
	}
	cond(parse(rc.service))
	pa := rc.provApp
	if pa == "" {
		pa = rc.consApp // Java's ProviderAppStateRouter reads the consumer-app key too
	}
	cond(parse(pa))
	cond(parse(rc.consApp))
	out := []string{}
	set.ForEach(func(i int) { out = append(out, rc.ids[i]) })
	return out
}

// TestRouteAgreesWithInProcess: 10,000 random cases through route --batch
// (JSON in, JSON out) give the same results as calling the packages directly.
func TestRouteAgreesWithInProcess(t *testing.T) {
	const n = 10000
	rng := rand.New(rand.NewPCG(42, 9))
	cases := make([]randomCase, n)
	var in strings.Builder
	for i := range cases {
		cases[i] = makeRandomCase(rng, i)
		b, err := json.Marshal(cases[i].c)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
		in.WriteByte('\n')
	}
	out, errOut, code := run(t, in.String(), "route", "--batch", "--no-trace")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	i, nonEmpty, empty := 0, 0, 0
	for ; sc.Scan(); i++ {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		want := inProcess(t, cases[i])
		if r.Result == nil || !reflect.DeepEqual(*r.Result, want) {
			b, _ := json.Marshal(cases[i].c)
			t.Fatalf("case %d: route %v, in-process %v\n%s", i, r.Result, want, b)
		}
		if len(want) == 0 {
			empty++
		} else if len(want) < len(cases[i].urls) {
			nonEmpty++
		}
	}
	if i != n {
		t.Fatalf("%d answers for %d cases", i, n)
	}
	// The generator must exercise filtering and empty results, not only pass-through.
	if nonEmpty < n/10 || empty < n/50 {
		t.Fatalf("weak generator: %d filtered, %d empty of %d", nonEmpty, empty, n)
	}
}
