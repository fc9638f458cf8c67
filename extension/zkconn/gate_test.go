package zkconn

import (
	"context"
	"errors"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
)

type okInvoker struct{ *base.BaseInvoker }

func (okInvoker) Invoke(context.Context, base.Invocation) result.Result {
	return &result.RPCResult{Rest: "served"}
}

// TestGate: calls fail with the refusal until the probe is due and passes
// (a registry URL that is not ZooKeeper always passes), then go through.
func TestGate(t *testing.T) {
	u, err := common.NewURL("dubbo://127.0.0.1:20880/com.foo.Bar")
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("NoAuth")
	g := Gate(okInvoker{base.NewBaseInvoker(u)}, u, u, refused)
	inv := invocation.NewRPCInvocation("queryAll", nil, nil)
	if r := g.Invoke(context.Background(), inv); !errors.Is(r.Error(), refused) || g.IsAvailable() {
		t.Fatalf("gated call: %v, available %v; want the refusal", r.Error(), g.IsAvailable())
	}
	g.(*gate).err.Store(&gateErr{err: refused}) // probe due now
	if r := g.Invoke(context.Background(), inv); r.Error() != nil || r.Result() != "served" {
		t.Fatalf("call after a passing probe: %v %v", r.Error(), r.Result())
	}
	if !g.IsAvailable() {
		t.Error("not available after a passing probe")
	}
}
