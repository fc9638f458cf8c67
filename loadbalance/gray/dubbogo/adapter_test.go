package dubbogo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	clusterbase "dubbo.apache.org/dubbo-go/v3/cluster/cluster/base"
	"dubbo.apache.org/dubbo-go/v3/cluster/directory/static"
	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
)

var _ loadbalance.LoadBalance = (*LoadBalance)(nil)

const refURL = "consumer://10.0.0.99/com.dalaoyang.api.UserService?application=dubbo_consumer&grayUserids=1,2,3,4,5,6,7,8,9,10&timestamp=1700000000000"

// seedInvokers builds invokers the way dubbo-go's registry directory does:
// provider URL merged with the reference URL.
func seedInvokers(t testing.TB, ports []int, extra map[int]string) []base.Invoker {
	t.Helper()
	ref, err := common.NewURL(refURL)
	if err != nil {
		t.Fatal(err)
	}
	var out []base.Invoker
	for _, port := range ports {
		s := fmt.Sprintf("dubbo://10.0.0.%d:%d/com.dalaoyang.api.UserService?application=dubbo_provider&interface=com.dalaoyang.api.UserService", port%256, port)
		if port == 9012 {
			s += "&status=gray"
		}
		if e := extra[port]; e != "" {
			s += "&" + e
		}
		pu, err := common.NewURL(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, base.NewBaseInvoker(pu.MergeURL(ref)))
	}
	return out
}

func userInv(id string) *invocation.RPCInvocation {
	return invocation.NewRPCInvocation("testUser", []any{id, "2.0.0"}, map[string]any{"userId": id})
}

func port(ivk base.Invoker) string { return ivk.GetURL().Port }

func TestAdapterSeed002(t *testing.T) {
	lb := New(gray.Options{})
	invs := seedInvokers(t, []int{9011, 9012, 9013, 9014}, nil)
	for i := 0; i < 300; i++ {
		if p := port(lb.Select(invs, userInv("10"))); p != "9012" {
			t.Fatalf("user 10 -> %s", p)
		}
		if p := port(lb.Select(invs, userInv("3333"))); p == "9012" {
			t.Fatal("user 3333 reached the gray provider")
		}
	}
	if lb.Compiles() != 1 {
		t.Fatalf("same slice compiled %d times", lb.Compiles())
	}
	without := seedInvokers(t, []int{9011, 9013, 9014}, nil)
	ivk, d := lb.Explain(without, userInv("10"))
	if port(ivk) == "9012" || d.Branch != "gray-fallback" || d.GrayPool != 0 || d.NormalPool != 3 {
		t.Fatalf("fallback: %s %+v", port(ivk), d)
	}
	if ivk := lb.Select(invs[:1], userInv("3333")); ivk != invs[0] {
		t.Fatal("single invoker not returned")
	}
	if lb.Select(nil, userInv("1")) != nil {
		t.Fatal("empty list must give nil")
	}
}

func TestAdapterCachedSelectDoesNotAllocate(t *testing.T) {
	lb := New(gray.Options{})
	if err := lb.SetRuleText("dubbo_provider", "requests:\n  - conditions: [{source: attachment, key: userId, operator: in, value: \"1,2,10\"}]\n  - percent: 10\n    hashKey: attachment:userId\n"); err != nil {
		t.Fatal(err)
	}
	invs := seedInvokers(t, []int{9011, 9012, 9013, 9014}, nil)
	inv := userInv("10")
	lb.Select(invs, inv)
	attrs := inv.Attributes()
	if a := testing.AllocsPerRun(500, func() {
		delete(attrs, RetryAttribute) // a fresh call each time
		_ = lb.Select(invs, inv)
	}); a != 0 {
		t.Fatalf("first-attempt Select allocates %.1f", a)
	}
	if a := testing.AllocsPerRun(500, func() { _ = lb.Select(invs, inv) }); a != 0 {
		t.Fatalf("retry Select allocates %.1f", a)
	}
	if lb.Compiles() != 1 {
		t.Fatalf("compiles %d", lb.Compiles())
	}
}

func TestAdapterRulesHotReload(t *testing.T) {
	lb := New(gray.Options{})
	invs := seedInvokers(t, []int{9011, 9012, 9013}, nil)
	if p := port(lb.Select(invs, userInv("3333"))); p == "9012" {
		t.Fatal("defaults: 3333 is normal")
	}
	if err := lb.SetRuleText("dubbo_provider", "requests:\n  - conditions: [{source: attachment, key: userId, operator: \"=\", value: \"3333\"}]\n"); err != nil {
		t.Fatal(err)
	}
	if p := port(lb.Select(invs, userInv("3333"))); p != "9012" {
		t.Fatalf("rule makes 3333 gray, got %s", p)
	}
	good := lb.Rule("dubbo_provider")
	err := lb.SetRuleText("dubbo_provider", "requests:\n  - percent: 250\n")
	if err == nil || !strings.Contains(err.Error(), "dubbo_provider.gray-router") || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "previous rule kept") {
		t.Fatalf("bad rule error: %v", err)
	}
	if lb.Rule("dubbo_provider") != good {
		t.Fatal("bad rule replaced the good one")
	}
	if p := port(lb.Select(invs, userInv("3333"))); p != "9012" {
		t.Fatal("good rule lost")
	}
	// A rule for another app does not apply here.
	if err := lb.SetRuleText("other-app", "enabled: false\n"); err != nil {
		t.Fatal(err)
	}
	if p := port(lb.Select(invs, userInv("3333"))); p != "9012" {
		t.Fatal("other app's rule applied")
	}
	// Deleting the node returns to the defaults.
	if err := lb.SetRuleText("dubbo_provider", ""); err != nil || lb.Rule("dubbo_provider") != nil {
		t.Fatal(err)
	}
	if p := port(lb.Select(invs, userInv("3333"))); p == "9012" {
		t.Fatal("defaults after delete: 3333 is normal")
	}
}

func TestAdapterRetryKeepsClassification(t *testing.T) {
	// 50 % per request, no hash key: draws alternate 0 (gray), 9999 (normal),
	// so only reuse of the first classification keeps a retry gray.
	lb := New(gray.Options{Rand: fixed(0, 9999)})
	if err := lb.SetRuleText("dubbo_provider", "requests:\n  - percent: 50\n"); err != nil {
		t.Fatal(err)
	}
	invs := seedInvokers(t, []int{9011, 9012, 9013, 9014, 9015}, map[int]string{9015: "status=gray"})
	inv := userInv("x")
	first, d := lb.Explain(invs, inv)
	if !d.Gray || d.Retry {
		t.Fatalf("first attempt: %+v", d)
	}
	for i := 0; i < 5; i++ {
		ivk, d := lb.Explain(invs, inv)
		if !d.Gray || !d.Retry || d.Branch != "gray" {
			t.Fatalf("retry %d: %+v", i, d)
		}
		if p := port(ivk); p != "9012" && p != "9015" {
			t.Fatalf("retry left the gray pool: %s", p)
		}
	}
	// dubbo-go's real reselect: the first gray provider was invoked, so
	// DoSelect asks again and, when the pick was already invoked, asks with
	// the other invokers (a foreign slice). The answer stays gray.
	ci := clusterbase.NewBaseClusterInvoker(static.NewDirectory(invs))
	for i := 0; i < 20; i++ {
		got := ci.DoSelect(lb, inv, invs, []base.Invoker{first})
		if got == first || (port(got) != "9012" && port(got) != "9015") {
			t.Fatalf("reselect gave %s (first %s)", port(got), port(first))
		}
	}
	// Every gray provider already tried and gone from the list: fallback
	// normal moves the retry to the normal pool, fallback fail fails it.
	normals := []base.Invoker{invs[0], invs[2], invs[3]}
	if _, d := lb.Explain(normals, inv); d.Branch != "gray-fallback" || !d.Retry {
		t.Fatalf("exhausted gray pool, fallback normal: %+v", d)
	}
	lb2 := New(gray.Options{})
	if err := lb2.SetRuleText("dubbo_provider", "fallback: fail\n"); err != nil {
		t.Fatal(err)
	}
	inv10 := userInv("10")
	lb2.Select(invs, inv10)
	ivk := lb2.Select(normals, inv10)
	res := ivk.Invoke(context.Background(), inv10)
	if !errors.Is(res.Error(), gray.ErrNoGrayProvider) || !ivk.IsAvailable() || ivk.GetURL() == nil || ivk.GetURL().Key() == "" {
		t.Fatalf("fail invoker: %v", res.Error())
	}
	for _, n := range normals {
		if ivk == n {
			t.Fatal("fail policy returned a normal provider")
		}
	}
}

func TestAdapterTimestampOnlyFromProvider(t *testing.T) {
	// The provider published no timestamp: MergeURL copies the consumer's
	// (from 2023) into timestamp and leaves remote.timestamp empty. That
	// must not be read as the provider's start.
	invs := seedInvokers(t, []int{9011, 9013}, nil)
	u := toRouterURL(invs[0].GetURL())
	if _, ok := u.Params.Get("timestamp"); ok {
		t.Fatalf("consumer timestamp leaked: %v", u.Params)
	}
	// A provider timestamp survives.
	invs = seedInvokers(t, []int{9011}, map[int]string{9011: "timestamp=1700000123456"})
	if u := toRouterURL(invs[0].GetURL()); u.Params.Value("timestamp") != "1700000123456" || u.Port != 9011 || u.Host != "10.0.0.51" {
		t.Fatalf("%+v", u)
	}
}

func TestAdapterLeastActiveReadsDubboStatus(t *testing.T) {
	lb := New(gray.Options{Delegate: gray.DelegateLeastActive})
	invs := seedInvokers(t, []int{9021, 9022, 9023}, nil)
	for _, i := range []int{0, 2} {
		base.BeginCount(invs[i].GetURL(), "testUser")
		defer base.EndCount(invs[i].GetURL(), "testUser", 1, true)
	}
	for i := 0; i < 50; i++ {
		if p := port(lb.Select(invs, userInv("3333"))); p != "9022" {
			t.Fatalf("least active is 9022, got %s", p)
		}
	}
	inv := userInv("3333")
	attrs := inv.Attributes()
	if a := testing.AllocsPerRun(200, func() {
		delete(attrs, RetryAttribute)
		_ = lb.Select(invs, inv)
	}); a != 0 {
		t.Fatalf("leastactive Select allocates %.1f", a)
	}
}

func TestAdapterGenericInvokeUsesRealMethodAndArguments(t *testing.T) {
	lb := New(gray.Options{})
	if err := lb.SetRuleText("dubbo_provider", "requests:\n  - conditions:\n      - {source: method, operator: \"=\", value: queryAll}\n      - {source: \"argument[0]\", operator: \"=\", value: \"vip\"}\n"); err != nil {
		t.Fatal(err)
	}
	invs := seedInvokers(t, []int{9011, 9012, 9013}, nil)
	inv := invocation.NewRPCInvocation("$invoke", []any{"queryAll", []string{"java.lang.String"}, []any{"vip"}}, nil)
	if _, d := lb.Explain(invs, inv); !d.Gray || d.Rule != 0 {
		t.Fatalf("generic call not matched: %+v", d)
	}
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

func TestAdapterStampsPercentageDecisions(t *testing.T) {
	lb := New(gray.Options{})
	if err := lb.SetRuleText("dubbo_provider", "requests:\n  - conditions: [{source: attachment, key: userId, operator: in, value: \"1,2,10\"}]\n  - conditions: [{source: attachment, key: cohort, operator: \"=\", value: r}]\n    percent: 50\n"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lb.RuleAttachmentKeys(), ","); got != "cohort,userId" {
		t.Errorf("RuleAttachmentKeys = %s", got)
	}
	invs := seedInvokers(t, []int{9011, 9012, 9013, 9014}, nil)
	cohort := func() *invocation.RPCInvocation {
		return invocation.NewRPCInvocation("testUser", nil, map[string]any{"cohort": "r"})
	}
	// Off (the default): nothing written.
	inv := cohort()
	lb.Select(invs, inv)
	if _, ok := inv.GetAttachment(gray.DefaultDecisionKey); ok {
		t.Fatal("stamped while stamping is off")
	}
	lb.SetStampDecisions(true)
	for i := 0; i < 200; i++ {
		inv := cohort()
		ivk := lb.Select(invs, inv)
		v, ok := inv.GetAttachment(gray.DefaultDecisionKey)
		if !ok || (v == gray.DecisionGray) != (port(ivk) == "9012") {
			t.Fatalf("stamp %q %v, picked %s", v, ok, port(ivk))
		}
		// The next hop honours it.
		next := invocation.NewRPCInvocation("testUser", nil, map[string]any{"cohort": "r", gray.DefaultDecisionKey: v})
		if p := port(lb.Select(invs, next)); (p == "9012") != (v == gray.DecisionGray) {
			t.Fatalf("carried %s, picked %s", v, p)
		}
	}
	// A 100 % rule is re-decided from the user id downstream: no stamp.
	inv = userInv("10")
	lb.Select(invs, inv)
	if _, ok := inv.GetAttachment(gray.DefaultDecisionKey); ok {
		t.Fatal("a 100 % decision was stamped")
	}
	if err := lb.SetRuleText("dubbo_provider", ""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lb.RuleAttachmentKeys(), ","); got != "userId" {
		t.Errorf("RuleAttachmentKeys without rules = %s", got)
	}
}
