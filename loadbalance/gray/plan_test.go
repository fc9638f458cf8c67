package gray

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/router"
)

// seedProviders are seed 002's four providers; 9012 is gray.
func seedProviders(skip int) []*router.URL {
	var out []*router.URL
	for port := 9011; port <= 9014; port++ {
		if port == skip {
			continue
		}
		s := fmt.Sprintf("dubbo://10.0.0.%d:%d/com.dalaoyang.api.UserService?application=dubbo_provider&version=2.0.0", port-9010, port)
		if port == 9012 {
			s += "&status=gray"
		}
		out = append(out, router.MustParseURL(s))
	}
	return out
}

var seedConsumer = router.MustParseURL("consumer://10.0.0.99/com.dalaoyang.api.UserService?application=dubbo_consumer&grayUserids=1,2,3,4,5,6,7,8,9,10")

func userCall(id string) *router.Call {
	return &router.Call{Method: "testUser", Args: []any{id, "2.0.0"}, Attachments: router.AttachmentMap{"userId": id}}
}

// pcg is a seeded generator so distribution tests are reproducible.
func pcg(seed uint64) router.Rand {
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	return r.Uint64N
}

// fixed returns the given values in turn (each reduced modulo n).
func fixed(vals ...uint64) router.Rand {
	i := 0
	return func(n uint64) uint64 {
		v := vals[i%len(vals)]
		i++
		return v % n
	}
}

func TestSeed002Scenario(t *testing.T) {
	p := Compile(Input{Consumer: seedConsumer, Providers: seedProviders(0)}, Options{Rand: pcg(1)})
	if g, n := p.Pools(); g != 1 || n != 3 || !p.IsGray(1) {
		t.Fatalf("pools gray=%d normal=%d", g, n)
	}
	seen := map[int]int{}
	for i := 0; i < 1000; i++ {
		var d Decision
		idx, err := p.Pick(userCall("10"), &d)
		if err != nil || p.addrs[idx] != "10.0.0.2:9012" || d.Branch != router.BranchGray || !d.Gray {
			t.Fatalf("user 10 -> %d %v %+v", idx, err, d)
		}
		idx, err = p.Pick(userCall("3333"), &d)
		if err != nil || idx == 1 || d.Branch != router.BranchNormal || d.Gray {
			t.Fatalf("user 3333 -> %d %v %+v", idx, err, d)
		}
		seen[idx]++
	}
	if len(seen) != 3 {
		t.Fatalf("normal users must spread over the three normal providers: %v", seen)
	}
	// 9012 gone: user 10 falls back to the others.
	p = Compile(Input{Consumer: seedConsumer, Providers: seedProviders(9012)}, Options{Rand: pcg(2)})
	seen = map[int]int{}
	for i := 0; i < 300; i++ {
		var d Decision
		idx, err := p.Pick(userCall("10"), &d)
		if err != nil || d.Branch != router.BranchGrayFall || !d.Gray {
			t.Fatalf("fallback: %v %+v", err, d)
		}
		seen[idx]++
	}
	if len(seen) != 3 {
		t.Fatalf("fallback must reach all normal providers: %v", seen)
	}
	// Users 1..10 are gray, 11 and 0 are not; no userId is normal.
	p = Compile(Input{Consumer: seedConsumer, Providers: seedProviders(0)}, Options{})
	for id := 0; id <= 11; id++ {
		gray := p.Classify(userCall(strconv.Itoa(id)), nil)
		if gray != (id >= 1 && id <= 10) {
			t.Errorf("user %d gray=%v", id, gray)
		}
	}
	if p.Classify(&router.Call{Method: "testUser"}, nil) {
		t.Error("call without userId classified gray")
	}
}

func TestOptionsRenameEveryName(t *testing.T) {
	provs := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:1/s?stage=canary"),
		router.MustParseURL("dubbo://10.0.0.2:2/s?status=gray"),
	}
	cons := router.MustParseURL("consumer://10.0.0.9/s?canaryUsers=u7,%20u8&grayUserids=u9")
	cons.Params.Set("canaryUsers", "u7, u8")
	p := Compile(Input{Consumer: cons, Providers: provs}, Options{UserKey: "uid", GrayUsersParam: "canaryUsers", StatusParam: "stage", GrayStatus: "canary"})
	if !p.IsGray(0) || p.IsGray(1) {
		t.Fatal("renamed provider status not used")
	}
	for id, want := range map[string]bool{"u7": true, "u8": true, "u9": false} {
		c := &router.Call{Attachments: router.AttachmentMap{"uid": id, "userId": "u9"}}
		if got := p.Classify(c, nil); got != want {
			t.Errorf("%s gray=%v want %v", id, got, want)
		}
	}
}

func compileRule(t *testing.T, yaml string, provs []*router.URL, opts Options) *Plan {
	t.Helper()
	r, err := ParseRule(yaml)
	if err != nil {
		t.Fatal(err)
	}
	return Compile(Input{Rule: r, Consumer: seedConsumer, Providers: provs}, opts)
}

func TestOperators(t *testing.T) {
	type probe struct {
		attach map[string]string
		want   bool
	}
	cases := []struct {
		name   string
		op     string
		value  string // YAML value ("" = none)
		probes []probe
	}{
		{"equal", "=", "\"abc\"", []probe{{map[string]string{"k": "abc"}, true}, {map[string]string{"k": "abd"}, false}, {nil, false}}},
		{"not equal, missing is false", "!=", "abc", []probe{{map[string]string{"k": "x"}, true}, {map[string]string{"k": "abc"}, false}, {nil, false}}},
		{"in comma string", "in", "\"a, b,c\"", []probe{{map[string]string{"k": "b"}, true}, {map[string]string{"k": "c"}, true}, {map[string]string{"k": "d"}, false}, {nil, false}}},
		{"in list", "in", "[1, 2]", []probe{{map[string]string{"k": "2"}, true}, {map[string]string{"k": "12"}, false}}},
		{"notIn", "notIn", "[a, b]", []probe{{map[string]string{"k": "c"}, true}, {map[string]string{"k": "a"}, false}, {nil, false}}},
		{"regex is anchored", "regex", "\"u[0-9]+\"", []probe{{map[string]string{"k": "u42"}, true}, {map[string]string{"k": "xu42"}, false}, {map[string]string{"k": "u42x"}, false}}},
		{"wildcard", "wildcard", "\"u*-?\"", []probe{{map[string]string{"k": "u123-a"}, true}, {map[string]string{"k": "u-b"}, true}, {map[string]string{"k": "u123-ab"}, false}, {map[string]string{"k": "x-a"}, false}}},
		{"contains", "contains", "mid", []probe{{map[string]string{"k": "amidb"}, true}, {map[string]string{"k": "mi"}, false}}},
		{"startsWith", "startsWith", "pre", []probe{{map[string]string{"k": "prefix"}, true}, {map[string]string{"k": "apre"}, false}}},
		{"endsWith", "endsWith", "fix", []probe{{map[string]string{"k": "suffix"}, true}, {map[string]string{"k": "fixa"}, false}}},
		{"range inclusive", "range", "\"10~20.5\"", []probe{{map[string]string{"k": "10"}, true}, {map[string]string{"k": "20.5"}, true}, {map[string]string{"k": "15"}, true}, {map[string]string{"k": "9.99"}, false}, {map[string]string{"k": "21"}, false}, {map[string]string{"k": "abc"}, false}, {map[string]string{"k": ""}, false}, {nil, false}}},
		{"range negative", "range", "\"-5~-1\"", []probe{{map[string]string{"k": "-3"}, true}, {map[string]string{"k": "0"}, false}}},
		{"blank", "blank", "", []probe{{nil, true}, {map[string]string{"k": ""}, true}, {map[string]string{"k": "  "}, true}, {map[string]string{"k": "x"}, false}}},
		{"notBlank", "notBlank", "", []probe{{nil, false}, {map[string]string{"k": " "}, false}, {map[string]string{"k": "x"}, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y := "requests:\n  - conditions:\n      - source: attachment\n        key: k\n        operator: \"" + c.op + "\"\n"
			if c.value != "" {
				y += "        value: " + c.value + "\n"
			}
			p := compileRule(t, y, seedProviders(0), Options{})
			for _, pr := range c.probes {
				call := &router.Call{Attachments: router.AttachmentMap(pr.attach)}
				if got := p.Classify(call, nil); got != pr.want {
					t.Errorf("%v: gray=%v want %v", pr.attach, got, pr.want)
				}
			}
		})
	}
}

func TestTimeOperatorsUseInjectedClock(t *testing.T) {
	y := "requests:\n  - conditions:\n      - operator: timeAfter\n        value: \"2025-06-01T00:00:00Z\"\n      - operator: timeBefore\n        value: \"2025-06-02T00:00:00Z\"\n"
	now := time.Date(2025, 5, 31, 23, 59, 59, 0, time.UTC)
	p := compileRule(t, y, seedProviders(0), Options{Now: func() time.Time { return now }})
	for _, step := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2025, 5, 31, 23, 59, 59, 0, time.UTC), false},
		{time.Date(2025, 6, 1, 0, 0, 1, 0, time.UTC), true},
		{time.Date(2025, 6, 1, 23, 0, 0, 0, time.UTC), true},
		{time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), false},
	} {
		now = step.at
		if got := p.Classify(&router.Call{}, nil); got != step.want {
			t.Errorf("at %v gray=%v want %v", step.at, got, step.want)
		}
	}
}

func TestSourcesAndMatchModes(t *testing.T) {
	y := `
requests:
  - name: and-rule
    conditions:
      - {source: method, operator: "=", value: queryAll}
      - {source: "argument[1]", operator: range, value: "1~5"}
      - {source: param, key: application, operator: "=", value: dubbo_consumer}
  - name: or-rule
    matchMode: or
    conditions:
      - {source: param, key: application, operator: "=", value: someone-else}
      - {source: "argument[0]", operator: startsWith, value: vip-}
  - name: never
    conditions:
      - {source: param, key: application, operator: "=", value: someone-else}
`
	p := compileRule(t, y, seedProviders(0), Options{})
	cases := []struct {
		name string
		call *router.Call
		rule int
		gray bool
	}{
		{"and: all hold", &router.Call{Method: "queryAll", Args: []any{"x", 3}}, 0, true},
		{"and: int arg out of range", &router.Call{Method: "queryAll", Args: []any{"x", 6}}, -1, false},
		{"and: wrong method", &router.Call{Method: "queryByName", Args: []any{"x", int64(3)}}, -1, false},
		{"and: argument missing", &router.Call{Method: "queryAll", Args: []any{"x"}}, -1, false},
		{"or: one holds", &router.Call{Method: "m", Args: []any{"vip-7"}}, 1, true},
		{"or: none holds", &router.Call{Method: "m", Args: []any{"vip7"}}, -1, false},
		{"float argument", &router.Call{Method: "queryAll", Args: []any{"x", 2.5}}, 0, true},
		{"unsupported argument type counts as missing", &router.Call{Method: "m", Args: []any{[]int{1}}}, -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d Decision
			gray := p.Classify(c.call, &d)
			if gray != c.gray || d.Rule != c.rule {
				t.Fatalf("gray=%v rule=%d, want %v %d (%s)", gray, d.Rule, c.gray, c.rule, d.Reason)
			}
		})
	}
}

func TestFirstMatchingRuleDecidesAndPercentZeroExcludes(t *testing.T) {
	y := `
requests:
  - conditions: [{source: attachment, key: userId, operator: "=", value: "7"}]
    percent: 0
  - conditions: []
`
	p := compileRule(t, y, seedProviders(0), Options{})
	if p.Classify(userCall("7"), nil) {
		t.Error("user 7 matched the percent-0 rule first and must be normal")
	}
	var d Decision
	if !p.Classify(userCall("8"), &d) || d.Rule != 1 {
		t.Errorf("user 8 must match the catch-all rule: %+v", d)
	}
	if p := compileRule(t, "requests: []\n", seedProviders(0), Options{}); p.Classify(userCall("1"), nil) {
		t.Error("explicit empty requests: nobody is gray, not even the default list")
	}
	if p := compileRule(t, "delegate: random\n", seedProviders(0), Options{}); !p.Classify(userCall("1"), nil) {
		t.Error("rule without requests keeps the default user list")
	}
	if p := compileRule(t, "enabled: false\nrequests: [{}]\n", seedProviders(0), Options{}); p.Classify(userCall("1"), nil) {
		t.Error("disabled rule must classify everyone normal")
	}
}

func TestBucketIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "1", "10", "3333", "user-42", "日本"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if want := int(h.Sum64() % 10000); Bucket(s) != want {
			t.Errorf("Bucket(%q)=%d want %d", s, Bucket(s), want)
		}
	}
}

func stickyPlan(t *testing.T, percent string) *Plan {
	return compileRule(t, "requests:\n  - percent: "+percent+"\n    hashKey: attachment:userId\n", seedProviders(0), Options{Rand: fixed(0)})
}

func TestStickyPercentIsMonotone(t *testing.T) {
	steps := []string{"5", "20", "50", "100"}
	plans := make([]*Plan, len(steps))
	for i, s := range steps {
		plans[i] = stickyPlan(t, s)
	}
	again := stickyPlan(t, "5")
	counts := make([]int, len(steps))
	const users = 50000
	for u := 0; u < users; u++ {
		c := userCall("user-" + strconv.Itoa(u))
		prev := false
		for i, p := range plans {
			g := p.Classify(c, nil)
			if prev && !g {
				t.Fatalf("user-%d gray at %s%% but not at %s%%", u, steps[i-1], steps[i])
			}
			if g {
				counts[i]++
			}
			prev = g
		}
		// Stickiness across compiles (a restart, a rule re-push): an
		// independently compiled plan gives the same answer.
		if again.Classify(c, nil) != plans[0].Classify(c, nil) {
			t.Fatalf("user-%d: answer changed across compiles", u)
		}
	}
	for i, s := range steps {
		want, _ := strconv.ParseFloat(s, 64)
		got := float64(counts[i]) * 100 / users
		if math.Abs(got-want) > 0.6 {
			t.Errorf("%s%%: %.2f%% of users gray", s, got)
		}
	}
	var d Decision
	plans[0].Classify(userCall("user-1"), &d)
	if d.Bucket != Bucket("user-1") || d.UserKey != "attachment:userId" || !d.UserSeen || d.UserValue != "user-1" {
		t.Fatalf("decision %+v", d)
	}
	if plans[3].Classify(&router.Call{}, &d) || !strings.Contains(d.Reason, "hash key is missing") {
		t.Fatalf("missing hash key must be normal: %+v", d)
	}
}

func TestPerRequestPercentUsesRand(t *testing.T) {
	p := compileRule(t, "requests:\n  - percent: 12.34\n", seedProviders(0), Options{Rand: fixed(1233, 1234)})
	var d Decision
	if !p.Classify(&router.Call{}, &d) || d.Draw != 1233 {
		t.Fatalf("draw 1233 < 1234 must be gray: %+v", d)
	}
	if p.Classify(&router.Call{}, &d) || d.Draw != 1234 {
		t.Fatalf("draw 1234 must be normal: %+v", d)
	}
}

func TestRampWithInjectedClock(t *testing.T) {
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	now := start.Add(-time.Minute)
	y := "requests:\n  - hashKey: attachment:userId\n    ramp: {start: \"2025-06-01T00:00:00Z\", from: 10, to: 50, duration: 4h}\n"
	p := compileRule(t, y, seedProviders(0), Options{Now: func() time.Time { return now }})
	for _, step := range []struct {
		at   time.Duration
		want float64
	}{{-time.Minute, 10}, {0, 10}, {time.Hour, 20}, {2 * time.Hour, 30}, {4 * time.Hour, 50}, {100 * time.Hour, 50}} {
		now = start.Add(step.at)
		var d Decision
		p.Classify(userCall("u"), &d)
		if math.Abs(d.Percent-step.want) > 1e-9 {
			t.Errorf("at %v percent %.4f want %.1f", step.at, d.Percent, step.want)
		}
	}
	// A user gray early in the ramp stays gray later.
	for u := 0; u < 5000; u++ {
		c := userCall(strconv.Itoa(u))
		now = start.Add(30 * time.Minute)
		early := p.Classify(c, nil)
		now = start.Add(3 * time.Hour)
		if early && !p.Classify(c, nil) {
			t.Fatalf("user %d left gray as the ramp rose", u)
		}
	}
}

func TestFallbackPolicies(t *testing.T) {
	noGray := seedProviders(9012)
	p := compileRule(t, "fallback: normal\n", noGray, Options{Rand: fixed(0)})
	var d Decision
	if i, err := p.Pick(userCall("1"), &d); err != nil || i != 0 || d.Branch != router.BranchGrayFall {
		t.Fatalf("normal fallback: %d %v %+v", i, err, d)
	}
	p = compileRule(t, "fallback: fail\n", noGray, Options{Rand: fixed(0)})
	i, err := p.Pick(userCall("1"), &d)
	if !errors.Is(err, ErrNoGrayProvider) || i != -1 || d.Branch != router.BranchGrayFail || d.Chosen != -1 {
		t.Fatalf("fail policy: %d %v %+v", i, err, d)
	}
	if !strings.Contains(err.Error(), "none of the 3 providers is gray") {
		t.Fatalf("error does not say why: %v", err)
	}
	// fail does not affect normal users.
	if _, err := p.Pick(userCall("3333"), &d); err != nil || d.Branch != router.BranchNormal {
		t.Fatalf("normal user under fail policy: %v %+v", err, d)
	}
	// A normal request when every provider is gray.
	allGray := []*router.URL{router.MustParseURL("dubbo://a:1/s?status=gray"), router.MustParseURL("dubbo://b:2/s?status=gray")}
	p = Compile(Input{Consumer: seedConsumer, Providers: allGray}, Options{})
	if _, err := p.Pick(userCall("3333"), nil); !errors.Is(err, ErrNoNormalProvider) {
		t.Fatalf("want ErrNoNormalProvider, got %v", err)
	}
	if _, err := Compile(Input{}, Options{}).Pick(userCall("1"), nil); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("want ErrNoProvider, got %v", err)
	}
}

func TestSingleProviderShortcut(t *testing.T) {
	// A lone gray provider is returned even to a normal user, without reading
	// its weight (Java's select; dubbo-go does not call the balancer).
	lone := []*router.URL{router.MustParseURL("dubbo://a:1/s?status=gray&weight=0")}
	p := compileRule(t, "fallback: fail\n", lone, Options{Rand: func(uint64) uint64 { panic("rand used") }})
	var d Decision
	if i, err := p.Pick(userCall("3333"), &d); err != nil || i != 0 || !d.Shortcut {
		t.Fatalf("%d %v %+v", i, err, d)
	}
	// A one-member pool ignores weight 0 too.
	two := []*router.URL{router.MustParseURL("dubbo://a:1/s?status=gray&weight=0"), router.MustParseURL("dubbo://b:2/s?weight=0")}
	p = Compile(Input{Consumer: seedConsumer, Providers: two}, Options{Rand: func(uint64) uint64 { panic("rand used") }})
	if i, err := p.Pick(userCall("1"), &d); err != nil || i != 0 || d.Shortcut {
		t.Fatalf("gray pool of one: %d %v %+v", i, err, d)
	}
}

func weighted(ws ...string) []*router.URL {
	var out []*router.URL
	for i, w := range ws {
		s := fmt.Sprintf("dubbo://10.0.1.%d:20880/s", i+1)
		if w != "" {
			s += "?weight=" + w
		}
		out = append(out, router.MustParseURL(s))
	}
	return out
}

func TestWeightedRandomExactBoundaries(t *testing.T) {
	// weights 10, 0, 30, 60 -> cumulative 10, 10, 40, 100.
	cases := []struct {
		r    uint64
		want int
	}{{0, 0}, {9, 0}, {10, 2}, {39, 2}, {40, 3}, {99, 3}}
	for _, c := range cases {
		var seen uint64
		rnd := func(n uint64) uint64 { seen = n; return c.r }
		p := Compile(Input{Providers: weighted("10", "0", "30", "60")}, Options{Rand: rnd})
		i, err := p.Pick(&router.Call{}, nil)
		if err != nil || i != c.want || seen != 100 {
			t.Errorf("r=%d -> %d (n=%d), want %d", c.r, i, seen, c.want)
		}
	}
	// Equal weights (absent = 100) -> uniform over n, not over the total.
	var seen uint64
	p := Compile(Input{Providers: weighted("", "100", "")}, Options{Rand: func(n uint64) uint64 { seen = n; return 2 }})
	if i, _ := p.Pick(&router.Call{}, nil); i != 2 || seen != 3 {
		t.Fatalf("uniform: %d over %d", i, seen)
	}
	// All zero -> uniform (Java).
	p = Compile(Input{Providers: weighted("0", "0")}, Options{Rand: func(n uint64) uint64 { seen = n; return 1 }})
	if i, _ := p.Pick(&router.Call{}, nil); i != 1 || seen != 2 {
		t.Fatalf("all-zero: %d over %d", i, seen)
	}
}

func checkShares(t *testing.T, counts []int, weights []float64, draws int) {
	t.Helper()
	var total float64
	for _, w := range weights {
		total += w
	}
	for i, w := range weights {
		want := w / total
		got := float64(counts[i]) / float64(draws)
		if want == 0 && counts[i] != 0 || want > 0 && math.Abs(got-want) > 0.02*want {
			t.Errorf("provider %d: share %.4f want %.4f (±2%%)", i, got, want)
		}
	}
}

func TestWeightedDistributions(t *testing.T) {
	const draws = 100000
	weights := []float64{100, 200, 0, 300, 400}
	for _, del := range []Delegate{DelegateRandom, DelegateRoundRobin, DelegateLeastActive} {
		t.Run(string(del), func(t *testing.T) {
			p := Compile(Input{Providers: weighted("100", "200", "0", "300", "400")}, Options{Rand: pcg(7), Delegate: del})
			counts := make([]int, 5)
			for i := 0; i < draws; i++ {
				idx, err := p.Pick(&router.Call{Method: "m"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				counts[idx]++
			}
			checkShares(t, counts, weights, draws)
		})
	}
}

func TestSmoothRoundRobinSequence(t *testing.T) {
	// nginx's example: weights a=5 b=1 c=1 -> a a b a c a a.
	p := Compile(Input{Providers: weighted("5", "1", "1")}, Options{Delegate: DelegateRoundRobin})
	var got []string
	for i := 0; i < 14; i++ {
		idx, _ := p.Pick(&router.Call{}, nil)
		got = append(got, string(rune('a'+idx)))
	}
	if s := strings.Join(got, ""); s != "aabacaaaabacaa" {
		t.Fatalf("sequence %s", s)
	}
	// Java's state: a weight change (here: another plan) starts over, and
	// all-zero weights pick the first provider as Java's walk does.
	p = Compile(Input{Providers: weighted("0", "0", "0")}, Options{Delegate: DelegateRoundRobin})
	for i := 0; i < 5; i++ {
		if idx, _ := p.Pick(&router.Call{}, nil); idx != 0 {
			t.Fatalf("all-zero weights: pick %d", idx)
		}
	}
}

type fakeActive map[int]int64

func (f fakeActive) Active(i int, _ string) int64 { return f[i] }

func TestLeastActive(t *testing.T) {
	provs := weighted("100", "100", "300", "100")
	// Unique least -> it, no randomness.
	p := Compile(Input{Providers: provs, Active: fakeActive{0: 3, 1: 1, 2: 2, 3: 5}}, Options{Delegate: DelegateLeastActive, Rand: func(uint64) uint64 { panic("rand used") }})
	if i, _ := p.Pick(&router.Call{}, nil); i != 1 {
		t.Fatalf("least active: %d", i)
	}
	// Ties 1 and 2 (weights 100, 300): offset over 400; 99 -> 1, 100 -> 2.
	for r, want := range map[uint64]int{99: 1, 100: 2, 399: 2} {
		var seen uint64
		p := Compile(Input{Providers: provs, Active: fakeActive{0: 3, 1: 1, 2: 1, 3: 5}}, Options{Delegate: DelegateLeastActive, Rand: func(n uint64) uint64 { seen = n; return r }})
		if i, _ := p.Pick(&router.Call{}, nil); i != want || seen != 400 {
			t.Errorf("offset %d -> %d over %d, want %d", r, i, seen, want)
		}
	}
	// Equal-weight ties -> uniform among them.
	p = Compile(Input{Providers: provs, Active: fakeActive{0: 0, 1: 0, 2: 9, 3: 0}}, Options{Delegate: DelegateLeastActive, Rand: fixed(2)})
	if i, _ := p.Pick(&router.Call{}, nil); i != 3 {
		t.Fatalf("third of the equal-weight ties must be provider 3, got %d", i)
	}
}

func TestP2C(t *testing.T) {
	provs := weighted("100", "100", "200")
	act := fakeActive{0: 5, 1: 1, 2: 3}
	p := Compile(Input{Providers: provs, Active: act}, Options{Delegate: DelegateP2C, Rand: fixed(0, 0)})
	// draws i=0, j=0 -> j skips i -> 1; load 6/100 vs 2/100 -> 1.
	if i, _ := p.Pick(&router.Call{}, nil); i != 1 {
		t.Fatalf("p2c: %d", i)
	}
	// i=2, j=1: 4/200 = 2/100 -> tie keeps the first draw (2).
	p = Compile(Input{Providers: provs, Active: act}, Options{Delegate: DelegateP2C, Rand: fixed(2, 1)})
	if i, _ := p.Pick(&router.Call{}, nil); i != 2 {
		t.Fatalf("p2c tie: %d", i)
	}
}

func TestMethodLevelWeights(t *testing.T) {
	provs := []*router.URL{
		router.MustParseURL("dubbo://a:1/s?queryAll.weight=0"),
		router.MustParseURL("dubbo://b:2/s?methods.queryByName.weight=0&weight=50"),
	}
	p := Compile(Input{Providers: provs}, Options{Rand: pcg(3)})
	for i := 0; i < 200; i++ {
		if idx, _ := p.Pick(&router.Call{Method: "queryAll"}, nil); idx != 1 {
			t.Fatal("queryAll must never pick a (queryAll.weight=0)")
		}
		if idx, _ := p.Pick(&router.Call{Method: "queryByName"}, nil); idx != 0 {
			t.Fatal("queryByName must never pick b (methods.queryByName.weight=0)")
		}
	}
	for r, want := range map[uint64]int{99: 0, 100: 1} { // other methods: 100 vs 50
		p := Compile(Input{Providers: provs}, Options{Rand: fixed(r)})
		if idx, _ := p.Pick(&router.Call{Method: "other"}, nil); idx != want {
			t.Errorf("other method r=%d -> %d", r, idx)
		}
	}
}

func TestWarmupWeightVectors(t *testing.T) {
	const ts = 1_700_000_000_000
	cases := []struct {
		name                 string
		weight, warmup, upMs int64
		want                 int64
	}{
		{"lb-01 60s of 600s", 100, 600000, 60000, 10},
		{"lb-02 300s of 600s", 100, 600000, 300000, 50},
		{"just started clamps to 1", 100, 600000, 1, 1},
		{"uptime 0 keeps full weight (Java tests uptime > 0)", 100, 600000, 0, 100},
		{"clock before timestamp gives 1", 100, 600000, -5, 1},
		{"warmed up", 100, 600000, 600000, 100},
		{"custom warmup", 200, 1000, 500, 100},
		{"weight 0 stays 0", 0, 600000, 60000, 0},
		{"negative weight is 0", -3, 600000, 600001, 0},
	}
	for _, c := range cases {
		if got := WarmupWeight(c.weight, ts, c.warmup, ts+c.upMs); got != c.want {
			t.Errorf("%s: %d want %d", c.name, got, c.want)
		}
	}
	if got := WarmupWeight(100, 0, 600000, ts); got != 100 {
		t.Errorf("no timestamp: %d", got)
	}
}

func TestWarmupRebuildsWithTheClock(t *testing.T) {
	start := time.UnixMilli(1_700_000_000_000)
	now := start.Add(60 * time.Second)
	provs := []*router.URL{
		router.MustParseURL(fmt.Sprintf("dubbo://a:1/s?timestamp=%d", start.UnixMilli())), // warming, 10 at 60 s
		router.MustParseURL("dubbo://b:2/s"),                                              // 100
	}
	var seen uint64
	p := Compile(Input{Providers: provs}, Options{Now: func() time.Time { return now }, Rand: func(n uint64) uint64 { seen = n; return 9 % n }})
	if i, _ := p.Pick(&router.Call{}, nil); i != 0 || seen != 110 {
		t.Fatalf("at 60 s: %d over %d", i, seen)
	}
	now = start.Add(300 * time.Second) // 50 + 100
	if i, _ := p.Pick(&router.Call{}, nil); i != 0 || seen != 150 {
		t.Fatalf("at 300 s: %d over %d", i, seen)
	}
	now = start.Add(20 * time.Minute) // warmed: 100 + 100 -> uniform
	if _, _ = p.Pick(&router.Call{}, nil); seen != 2 {
		t.Fatalf("warmed up: drew over %d, want uniform over 2", seen)
	}
	now = start.Add(60 * time.Second) // clock went back: rebuilt, not stale
	if _, _ = p.Pick(&router.Call{}, nil); seen != 110 {
		t.Fatalf("clock back: over %d", seen)
	}
	// Between steps the table is reused: picks do not allocate.
	now = start.Add(61 * time.Second)
	p.Pick(&router.Call{}, nil)
	c := &router.Call{}
	if a := testing.AllocsPerRun(100, func() { _, _ = p.Pick(c, nil) }); a != 0 {
		t.Fatalf("warm-up pick allocates %.1f", a)
	}
}

func TestPickDoesNotAllocate(t *testing.T) {
	rule := `
requests:
  - conditions:
      - {source: attachment, key: x-env, operator: in, value: [staging, test]}
      - {source: method, operator: regex, value: "query.*"}
      - {source: "argument[0]", operator: startsWith, value: "vip"}
    matchMode: or
  - percent: 30
    hashKey: attachment:userId
`
	for _, del := range []Delegate{DelegateRandom, DelegateRoundRobin, DelegateLeastActive, DelegateP2C} {
		provs := seedProviders(0)
		provs = append(provs, router.MustParseURL("dubbo://10.0.0.7:9017/s?status=gray&weight=50"))
		r, err := ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		r.Delegate = del
		p := Compile(Input{Rule: r, Consumer: seedConsumer, Providers: provs, Active: fakeActive{1: 2}}, Options{})
		calls := []*router.Call{
			{Method: "queryAll", Args: []any{"x"}, Attachments: router.AttachmentMap{"userId": "42"}},
			{Method: "save", Args: []any{"vip-1"}, Attachments: router.AttachmentMap{"userId": "43"}},
			{Method: "save", Args: []any{7}, Attachments: router.AttachmentMap{"userId": "44"}},
		}
		var d Decision
		if a := testing.AllocsPerRun(200, func() {
			for _, c := range calls {
				_, _ = p.Pick(c, nil)
				_, _ = p.Pick(c, &d)
			}
		}); a != 0 {
			t.Errorf("%s: %.1f allocs per 6 picks", del, a)
		}
	}
	p := Compile(Input{Consumer: seedConsumer, Providers: seedProviders(0)}, Options{})
	c := userCall("10")
	if a := testing.AllocsPerRun(200, func() { _, _ = p.Pick(c, nil) }); a != 0 {
		t.Errorf("default mode: %.1f allocs", a)
	}
}

func TestClassifyLaneCarriesPercentageDecisions(t *testing.T) {
	rule := `
requests:
  - name: testers
    conditions:
      - {source: attachment, key: userId, operator: range, value: "1~10"}
  - name: nobody
    conditions:
      - {source: attachment, key: x-env, operator: "=", value: never}
    percent: 0
  - name: sticky
    conditions:
      - {source: attachment, key: x-env, operator: "=", value: sticky}
    percent: 5
    hashKey: attachment:userId
  - name: random
    conditions:
      - {source: attachment, key: x-env, operator: "=", value: random}
    percent: 50
`
	p := compileRule(t, rule, seedProviders(0), Options{Rand: pcg(3)})
	cases := []struct {
		att         router.AttachmentMap
		gray, carry bool
	}{
		{router.AttachmentMap{"userId": "3"}, true, false},                   // 100 %: re-decidable from userId
		{router.AttachmentMap{"userId": "30"}, false, false},                 // no rule matched
		{router.AttachmentMap{"x-env": "never", "userId": "3"}, true, false}, // testers first
		{router.AttachmentMap{"x-env": "never", "userId": "30"}, false, false},
		{router.AttachmentMap{"x-env": "sticky", "userId": "30"}, Bucket("30") < 500, true},
		{router.AttachmentMap{"x-env": "sticky"}, false, false}, // hash key missing
	}
	for _, c := range cases {
		g, carry := p.ClassifyLane(&router.Call{Method: "m", Attachments: c.att}, nil)
		if g != c.gray || carry != c.carry {
			t.Errorf("%v: gray %v carry %v, want %v %v", c.att, g, carry, c.gray, c.carry)
		}
	}
	grays := 0
	for i := 0; i < 2000; i++ {
		g, carry := p.ClassifyLane(&router.Call{Method: "m", Attachments: router.AttachmentMap{"x-env": "random"}}, nil)
		if !carry {
			t.Fatal("a random 50 % decision must be carried")
		}
		if g {
			grays++
		}
	}
	if grays < 800 || grays > 1200 {
		t.Errorf("random 50 %%: %d of 2000 gray", grays)
	}
}

func TestCarriedDecisionIsHonoured(t *testing.T) {
	rule := "requests:\n  - name: random\n    percent: 50\n"
	for _, opts := range []Options{{Rand: pcg(4)}, {Rand: pcg(4), DecisionKey: "x-lane"}} {
		key := opts.WithDefaults().DecisionKey
		p := compileRule(t, rule, seedProviders(0), opts)
		for _, v := range []string{DecisionGray, DecisionNormal} {
			for i := 0; i < 200; i++ {
				var d Decision
				g, carry := p.ClassifyLane(&router.Call{Method: "m", Attachments: router.AttachmentMap{key: v}}, &d)
				if g != (v == DecisionGray) || carry || d.Rule != -1 || d.UserKey != "attachment:"+key {
					t.Fatalf("%s=%s: gray %v carry %v %+v", key, v, g, carry, d)
				}
			}
		}
		// Any other value is no decision: the rule draws.
		seen := map[bool]bool{}
		for i := 0; i < 200; i++ {
			g, carry := p.ClassifyLane(&router.Call{Method: "m", Attachments: router.AttachmentMap{key: "maybe"}}, nil)
			seen[g] = true
			if !carry {
				t.Fatal("a drawn decision must be carried")
			}
		}
		if !seen[true] || !seen[false] {
			t.Errorf("%s=maybe must be ignored: %v", key, seen)
		}
	}
	// The rollback switch wins over a carried gray.
	p := compileRule(t, "enabled: false\nrequests:\n  - percent: 50\n", seedProviders(0), Options{})
	if g, _ := p.ClassifyLane(&router.Call{Method: "m", Attachments: router.AttachmentMap{DefaultDecisionKey: DecisionGray}}, nil); g {
		t.Error("enabled: false must make a carried gray request normal")
	}
	// Without a rule (seed 002 defaults) a carried decision wins too.
	p = Compile(Input{Consumer: seedConsumer, Providers: seedProviders(0)}, Options{})
	if g, _ := p.ClassifyLane(&router.Call{Method: "m", Attachments: router.AttachmentMap{"userId": "3", DefaultDecisionKey: DecisionNormal}}, nil); g {
		t.Error("a carried normal must win over the gray user list")
	}
	c := &router.Call{Method: "m", Attachments: router.AttachmentMap{DefaultDecisionKey: DecisionGray}}
	var d Decision
	if a := testing.AllocsPerRun(200, func() { _, _ = p.Pick(c, &d); _, _ = p.Pick(c, nil) }); a != 0 {
		t.Errorf("a carried decision: %.1f allocs per 2 picks", a)
	}
}

func TestRuleAttachmentKeys(t *testing.T) {
	r, err := ParseRule(`
requests:
  - conditions:
      - {source: attachment, key: x-env, operator: "=", value: a}
      - {source: method, operator: "=", value: m}
      - {source: param, key: application, operator: "=", value: c}
  - percent: 5
    hashKey: attachment:userId
  - conditions:
      - {source: attachment, key: x-env, operator: "=", value: b}
    percent: 5
    hashKey: argument[0]
`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.AttachmentKeys(), ","); got != "userId,x-env" {
		t.Errorf("AttachmentKeys = %s, want userId,x-env", got)
	}
	var nilRule *Rule
	if nilRule.AttachmentKeys() != nil {
		t.Error("nil rule: want no keys")
	}
}
