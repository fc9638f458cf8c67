package lane

import (
	"context"
	"sort"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/extension/internal/shared"
)

// served is what a provider's handler gets for an incoming call with atts:
// the ctx after captureLane and dubbo-go's ProxyInvoker.
func served(atts map[string]any) (context.Context, *invocation.RPCInvocation) {
	in := invocation.NewRPCInvocation("hop", nil, atts)
	ctx := captureLane(context.Background(), in)
	return context.WithValue(ctx, constant.AttachmentKey, in.Attachments()), in
}

// outgoing is what dubbo-go's client builds for a call made with ctx
// (client.generateInvocation: its own timeout/retries, then every ctx
// attachment copied over).
func outgoing(ctx context.Context) *invocation.RPCInvocation {
	atts := map[string]any{constant.TimeoutKey: "3s", constant.RetriesKey: "2"}
	switch m := ctx.Value(constant.AttachmentKey).(type) {
	case map[string]any:
		for k, v := range m {
			atts[k] = v
		}
	case map[string]string:
		for k, v := range m {
			atts[k] = v
		}
	}
	return invocation.NewRPCInvocation("hop", nil, atts)
}

type otherKey struct{}

func keys(inv *invocation.RPCInvocation) string {
	var ks []string
	for k := range inv.Attachments() {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func withLaneConfig(t *testing.T, c LaneConfig) {
	t.Helper()
	prev := LaneConfigInUse()
	SetLaneConfig(c)
	t.Cleanup(func() { SetLaneConfig(prev) })
}

// incoming is a call as a Go consumer sends it (measured on dubbo-go
// v3.3.2): its internal keys, the lane and an application attachment.
func incoming() map[string]any {
	return map[string]any{
		"dubbo": "2.0.2", "path": "lanes.B", "interface": "lanes.B", "version": "", "timeout": "0", "retries": "0",
		"local-addr": "127.0.0.1:20881", "remote-addr": "127.0.0.1:50000",
		"dubbo.tag": "gray", "userId": "7", "dubboroute.gray": "gray", "x-app": "secret",
	}
}

func TestLanePassedCtxCarriesOnlyTheLane(t *testing.T) {
	withLaneConfig(t, LaneConfig{})
	ctx, _ := served(incoming())
	l, ok := LaneFrom(ctx)
	if !ok {
		t.Fatal("no lane in the served ctx")
	}
	if got := l.Attachments(); len(got) != 3 || got["dubbo.tag"] != "gray" || got["userId"] != "7" || got["dubboroute.gray"] != "gray" {
		t.Fatalf("lane %v", got)
	}
	out := outgoing(ctx)
	// What dubbo-go alone sends on: everything it received.
	if got := keys(out); got != "dubbo,dubbo.tag,dubboroute.gray,interface,local-addr,path,remote-addr,retries,timeout,userId,version,x-app" {
		t.Fatalf("dubbo-go copied %s", got)
	}
	applyLane(ctx, out)
	if got := keys(out); got != "dubbo.tag,dubboroute.gray,userId" {
		t.Fatalf("after applyLane: %s", got)
	}
}

func TestLaneAddedToANewAttachmentMapAndAppWins(t *testing.T) {
	withLaneConfig(t, LaneConfig{})
	ctx, _ := served(incoming())
	// The handler sets its own attachments for the downstream call.
	ctx2 := context.WithValue(ctx, constant.AttachmentKey, map[string]any{"trace": "t1", "dubbo.tag": "blue"})
	out := outgoing(ctx2)
	applyLane(ctx2, out)
	if got := keys(out); got != "dubbo.tag,dubboroute.gray,retries,timeout,trace,userId" {
		t.Fatalf("keys %s", got)
	}
	if v, _ := out.GetAttachment("dubbo.tag"); v != "blue" {
		t.Fatalf("the application's tag must win, got %s", v)
	}
	// A plain map[string]string too, and a derived ctx.
	ctx3 := context.WithValue(context.WithValue(ctx, otherKey{}, 1), constant.AttachmentKey, map[string]string{"a": "b"})
	out = outgoing(ctx3)
	applyLane(ctx3, out)
	if v, _ := out.GetAttachment("userId"); v != "7" {
		t.Fatalf("userId %q", v)
	}
}

func TestLaneDroppedCtxAndWithLane(t *testing.T) {
	withLaneConfig(t, LaneConfig{})
	ctx, _ := served(incoming())
	out := outgoing(context.Background())
	applyLane(context.Background(), out)
	if got := keys(out); got != "retries,timeout" {
		t.Fatalf("a new ctx carries nothing, got %s", got)
	}
	l, _ := LaneFrom(ctx)
	carried := WithLane(context.Background(), l)
	out = outgoing(carried)
	applyLane(carried, out)
	if got := keys(out); got != "dubbo.tag,dubboroute.gray,retries,timeout,userId" {
		t.Fatalf("WithLane: %s", got)
	}
	nl := NewLane(map[string]string{"dubbo.tag": "canary"})
	if v, ok := nl.Get("dubbo.tag"); !ok || v != "canary" {
		t.Fatalf("NewLane: %q %v", v, ok)
	}
}

func TestLaneKeysConfigurableAndRuleKeys(t *testing.T) {
	withLaneConfig(t, LaneConfig{Keys: []string{"x-app"}})
	ctx, _ := served(incoming())
	out := outgoing(ctx)
	applyLane(ctx, out)
	// x-app configured; userId named by the default user list (the gray
	// balancer's rule keys) still travels.
	if got := keys(out); got != "userId,x-app" {
		t.Fatalf("keys %s", got)
	}
	if err := shared.GrayLB.SetRuleText("lane-test-app", "requests:\n  - conditions: [{source: attachment, key: region, operator: \"=\", value: eu}]\n"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shared.GrayLB.SetRuleText("lane-test-app", "") })
	at := incoming()
	at["region"] = "eu"
	ctx, _ = served(at)
	out = outgoing(ctx)
	applyLane(ctx, out)
	if got := keys(out); got != "region,userId,x-app" {
		t.Fatalf("with a rule naming region: %s", got)
	}
	withLaneConfig(t, LaneConfig{Keys: []string{}, NoRuleKeys: true})
	ctx, _ = served(at)
	out = outgoing(ctx)
	applyLane(ctx, out)
	if got := keys(out); got != "" {
		t.Fatalf("no keys: %s", got)
	}
}

func TestLaneOff(t *testing.T) {
	withLaneConfig(t, LaneConfig{Off: true})
	ctx, _ := served(incoming())
	if _, ok := LaneFrom(ctx); ok {
		t.Fatal("lanes off: nothing captured")
	}
	out := outgoing(ctx)
	before := keys(out)
	applyLane(ctx, out)
	if keys(out) != before {
		t.Fatal("lanes off: dubbo-go's behaviour must stay")
	}
	if shared.GrayLB.StampsDecisions() {
		t.Fatal("lanes off: the gray balancer must not stamp decisions")
	}
}

func TestLaneEnv(t *testing.T) {
	t.Setenv(LaneEnv, "OFF")
	t.Setenv(LaneKeysEnv, " a, b ,,")
	c := laneConfigFromEnv()
	if !c.Off || strings.Join(c.Keys, "|") != "a|b" {
		t.Fatalf("%+v", c)
	}
	t.Setenv(LaneEnv, "")
	if c := laneConfigFromEnv(); c.Off {
		t.Fatal("empty is on")
	}
}

func TestApplyLaneWithoutLaneDoesNotAllocate(t *testing.T) {
	withLaneConfig(t, LaneConfig{})
	inv := invocation.NewRPCInvocation("hop", nil, map[string]any{"userId": "1"})
	ctx := context.WithValue(context.Background(), constant.AttachmentKey, map[string]any{"userId": "1"})
	if a := testing.AllocsPerRun(500, func() { applyLane(ctx, inv) }); a != 0 {
		t.Fatalf("%.1f allocs", a)
	}
}
