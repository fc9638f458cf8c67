package consumer

import (
	"errors"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/global"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	dto "github.com/prometheus/client_model/go"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/extension/internal/rulestore"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/router/condition"
)

// TestStaticServiceRuleScope: a static service-scope rule applies to every
// reference as dubbo-go's service router applies it, whatever its key; a
// rule keyed by the reference's interface wins over one keyed otherwise.
func TestStaticServiceRuleScope(t *testing.T) {
	yes := true
	cfgs := []*global.RouterConfig{
		{Scope: "service", Key: "com.foo.Bar", Force: &yes, Conditions: []string{"method=a => port=1"}},
		{Scope: "service", Key: "com.foo.Other", Force: &yes, Conditions: []string{"=> port=2"}},
		{Scope: "application", Key: "c1", Conditions: []string{"=> port=3"}},
	}
	ref, _ := common.NewURL("dubbo://:0/com.foo.Bar?interface=com.foo.Bar&application=c1")
	ref.SetAttribute(constant.RoutersConfigKey, cfgs)
	reg, _ := common.NewURL("memory://127.0.0.1:0")
	reg.SubURL = ref
	st := staticRules(reg, "com.foo.Bar", "c1")
	svc := st.Slots[cluster.SlotService]
	if svc.Condition == nil || len(svc.Condition.Conditions) != 1 || svc.Condition.Conditions[0].Text != "method=a => port=1" || !svc.Condition.Force {
		t.Errorf("service slot = %+v", svc)
	}
	if st.Slots[cluster.SlotConsumerApp].Condition == nil {
		t.Error("application rule keyed by the consumer app not applied")
	}
	other := staticRules(reg, "com.foo.Other", "c9")
	if c := other.Slots[cluster.SlotService].Condition; c == nil || c.Conditions[0].Text != "=> port=2" {
		t.Errorf("com.foo.Other got %+v", other.Slots[cluster.SlotService])
	}
	// No rule keyed by com.foo.Third: the last service-scope rule applies,
	// as in dubbo-go.
	third := staticRules(reg, "com.foo.Third", "c9")
	if c := third.Slots[cluster.SlotService].Condition; c == nil || c.Conditions[0].Text != "=> port=2" {
		t.Errorf("com.foo.Third (no rule keyed by it) got %+v, want the last service-scope rule", third.Slots[cluster.SlotService])
	}
}

// TestRuleStoreLastGoodRuleAndCounts drives a binding through the memory
// config center: accepted, rejected (kept), deleted, each counted.
func TestRuleStoreLastGoodRuleAndCounts(t *testing.T) {
	dc := memory.NewDynamicConfiguration(memory.Configs, "")
	prev := envDynamicConfiguration()
	setEnvDynamicConfiguration(dc)
	defer setEnvDynamicConfiguration(prev)
	key := "com.test.Unit::.condition-router"
	defer memory.DeleteRule(key)
	ref, _ := common.NewURL("dubbo://:0/com.test.Unit?interface=com.test.Unit&application=unit-consumer")
	reg, _ := common.NewURL("memory://127.0.0.1:0")
	reg.SubURL = ref
	b := newBinding(reg)
	u1, _ := common.NewURL("dubbo://10.0.0.1:1/com.test.Unit?interface=com.test.Unit&application=unit-provider")
	u2, _ := common.NewURL("dubbo://10.0.0.2:2/com.test.Unit?interface=com.test.Unit&application=unit-provider")
	b.setInvokers([]base.Invoker{base.NewBaseInvoker(u1), base.NewBaseInvoker(u2)})
	route := func() int { return len(b.chain.Route(invocation.NewRPCInvocation("m", nil, nil), nil)) }
	if n := route(); n != 2 {
		t.Fatalf("no rule: %d", n)
	}
	memory.PutRule(key, "force: true\nconditions:\n  - => port=2\n")
	if n := route(); n != 1 {
		t.Fatalf("rule: %d", n)
	}
	memory.PutRule(key, "conditions: [unclosed\n")
	if n := route(); n != 1 {
		t.Errorf("malformed update changed routing: %d", n)
	}
	memory.DeleteRule(key)
	if n := route(); n != 2 {
		t.Errorf("deleted: %d", n)
	}
	for outcome, want := range map[string]float64{"accepted": 1, "rejected": 1, "deleted": 1} {
		if got := counterValue(t, key, outcome); got != want {
			t.Errorf("%s = %v, want %v", outcome, got, want)
		}
	}
	if b.ProviderApp() != "unit-provider" || !rulestore.Listening("unit-provider.tag-router") || !rulestore.Listening("unit-consumer.condition-router") {
		t.Errorf("provider-app keys not subscribed (app %q)", b.ProviderApp())
	}
}

func counterValue(t *testing.T, key, outcome string) float64 {
	t.Helper()
	var m dto.Metric
	if err := metrics.RuleChange(key, outcome).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestDubboGoVersionRuleReported: the dubbo-go samples' condition rule
// (configVersion V3.3.2) is ignored as Java ignores it (the rule in force
// stays), and counted as a place where dubbo-go alone would have applied
// it; lint's DR004 says so too.
func TestDubboGoVersionRuleReported(t *testing.T) {
	dc := memory.NewDynamicConfiguration(memory.Configs, "")
	prev := envDynamicConfiguration()
	setEnvDynamicConfiguration(dc)
	defer setEnvDynamicConfiguration(prev)
	key := "com.test.Ver::.condition-router"
	defer memory.DeleteRule(key)
	ref, _ := common.NewURL("dubbo://:0/com.test.Ver?interface=com.test.Ver&application=ver-consumer")
	reg, _ := common.NewURL("memory://127.0.0.1:0")
	reg.SubURL = ref
	b := newBinding(reg)
	defer b.Release()
	u1, _ := common.NewURL("dubbo://10.0.0.1:20000/com.test.Ver?interface=com.test.Ver&application=ver-provider")
	u2, _ := common.NewURL("dubbo://10.0.0.2:20001/com.test.Ver?interface=com.test.Ver&application=ver-provider")
	b.setInvokers([]base.Invoker{base.NewBaseInvoker(u1), base.NewBaseInvoker(u2)})
	route := func() int { return len(b.chain.Route(invocation.NewRPCInvocation("m", nil, nil), nil)) }
	memory.PutRule(key, "configVersion: v3.1\nforce: true\nconditions:\n  - from: {match: ''}\n    to:\n      - {match: port=20000}\n")
	if n := route(); n != 1 {
		t.Fatalf("v3.1 rule: %d providers", n)
	}
	samples := "configVersion: V3.3.2\nforce: true\nconditions:\n  - from: {match: ''}\n    to:\n      - {match: port=20001}\n"
	memory.PutRule(key, samples)
	if got := b.chain.Route(invocation.NewRPCInvocation("m", nil, nil), nil); len(got) != 1 || got[0].GetURL().Port != "20000" {
		t.Errorf("after the V3.3.2 update: %d providers; Java keeps the previous rule (port 20000)", len(got))
	}
	var m dto.Metric
	if err := metrics.DubboGoDiffers(key, "configVersion above v3.1").Write(&m); err != nil {
		t.Fatal(err)
	}
	if m.GetCounter().GetValue() != 1 {
		t.Errorf("dubboroute_dubbogo_differs_total = %v, want 1", m.GetCounter().GetValue())
	}
	_, err := condition.ParseRule(samples)
	if !errors.Is(err, condition.ErrUnsupportedVersion) || !errors.Is(err, condition.ErrDubboGoApplies) || !strings.Contains(err.Error(), "dubbo-go alone would apply it") {
		t.Errorf("parse error %v", err)
	}
}

// samplesScript is the dubbo-go samples' script rule: keep port 20000.
const samplesScript = "configVersion: v3.0\nkey: script-server\ntype: javascript\nenabled: true\nscript: |\n" +
	"  (function(invokers, invocation, context) {\n    if (!invokers || invokers.length === 0) return [];\n" +
	"    return invokers.filter(function(invoker) {\n      var url = invoker.GetURL();\n      return url && url.Port === \"20000\";\n    });\n" +
	"  })(invokers, invocation, context);\n"

// TestScriptDialectSetting: the dubbo-go samples' script rule at the
// provider application's key routes a running binding (auto dialect: the
// script is dubbo-go's); with extension.ScriptDialect "off" (a fleet whose
// Java consumers run on Java 15+ without a script engine) it never routes.
func TestScriptDialectSetting(t *testing.T) {
	dc := memory.NewDynamicConfiguration(memory.Configs, "")
	prev := envDynamicConfiguration()
	setEnvDynamicConfiguration(dc)
	defer setEnvDynamicConfiguration(prev)
	defer func(d string) { *shared.Settings.ScriptDialect = d }(*shared.Settings.ScriptDialect)
	for _, tc := range []struct {
		dialect string
		want    int
	}{{"auto", 1}, {"off", 2}} {
		*shared.Settings.ScriptDialect = tc.dialect
		app := "script-server-" + tc.dialect
		key := app + ".script-router"
		memory.PutRule(key, samplesScript)
		ref, _ := common.NewURL("tri://:0/greet.GreetService?interface=greet.GreetService&application=script-client")
		reg, _ := common.NewURL("memory://127.0.0.1:0")
		reg.SubURL = ref
		b := newBinding(reg)
		u1, _ := common.NewURL("tri://127.0.0.1:20000/greet.GreetService?interface=greet.GreetService&application=" + app)
		u2, _ := common.NewURL("tri://127.0.0.1:20001/greet.GreetService?interface=greet.GreetService&application=" + app)
		b.setInvokers([]base.Invoker{base.NewBaseInvoker(u1), base.NewBaseInvoker(u2)})
		got := b.chain.Route(invocation.NewRPCInvocation("Greet", []any{"hello"}, nil), nil)
		if len(got) != tc.want || (tc.want == 1 && got[0].GetURL().Port != "20000") {
			t.Errorf("dialect %s: %d providers routed, want %d", tc.dialect, len(got), tc.want)
		}
		b.Release()
		memory.DeleteRule(key)
	}
}
