package consumer

import (
	"context"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
)

type stubInvoker struct {
	base.Invoker
	u    *common.URL
	seen []string
}

func (s *stubInvoker) GetURL() *common.URL { return s.u }
func (s *stubInvoker) Invoke(_ context.Context, inv base.Invocation) result.Result {
	v, _ := inv.GetAttachment("timeout")
	s.seen = append(s.seen, v)
	// dubbo-go's DubboInvoker rewrites the attachment to milliseconds.
	inv.SetAttachment("timeout", "1500")
	return &result.RPCResult{}
}

// TestConfiguredTimeoutReachesInvocation: a configured timeout is passed
// to dubbo-go's protocol invoker as the invocation's timeout, also on a
// retry through another configured provider; a caller's own timeout wins.
func TestConfiguredTimeoutReachesInvocation(t *testing.T) {
	u, _ := common.NewURL("dubbo://10.0.0.1:20880/com.foo.Bar?methods=queryAll&weight=100")
	in := &stubInvoker{u: u}
	c := &cfgInvoker{Invoker: in, base: u, timeout: "1500", timeoutAttachment: "1500ms"}
	inv := invocation.NewRPCInvocation("queryAll", nil, nil)
	c.Invoke(context.Background(), inv)
	c2 := &cfgInvoker{Invoker: in, base: u, timeout: "700", timeoutAttachment: "700ms"}
	c2.Invoke(context.Background(), inv) // a retry: the previous attempt's value is replaced
	if len(in.seen) != 2 || in.seen[0] != "1500ms" || in.seen[1] != "700ms" {
		t.Errorf("timeouts seen: %v", in.seen)
	}
	// dubbo-go's client always sets the attachment, empty without a per-call timeout.
	empty := invocation.NewRPCInvocation("queryAll", nil, map[string]any{"timeout": ""})
	in.seen = nil
	c.Invoke(context.Background(), empty)
	if in.seen[0] != "1500ms" {
		t.Errorf("empty timeout attachment kept: %v", in.seen)
	}
	own := invocation.NewRPCInvocation("queryAll", nil, map[string]any{"timeout": "9ms"})
	in.seen = nil
	c.Invoke(context.Background(), own)
	if in.seen[0] != "9ms" {
		t.Errorf("caller's timeout replaced: %v", in.seen)
	}
}
