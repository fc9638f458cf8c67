package strategies

import (
	"context"
	"errors"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/dubbo/hessian2"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"dubbo.apache.org/dubbo-go/v3/protocol/triple/triple_protocol"
	perrors "github.com/pkg/errors"

	"github.com/dubboroute/dubboroute/cluster/strategy"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want strategy.Kind
	}{
		{"nil", nil, strategy.OK},
		{"dubbo business exception (Java or Go provider)", perrors.WithStack(&hessian2.GenericException{ExceptionClass: "java.lang.IllegalStateException", ExceptionMessage: "x"}), strategy.Business},
		{"dubbo provider RpcException", &hessian2.GenericException{ExceptionClass: javaRpcException}, strategy.ResultRPC},
		{"dubbo non-OK status", perrors.Errorf("java exception:%s", "Thread pool is EXHAUSTED"), strategy.Thrown},
		{"timeout", errors.New("maybe the client read timeout or fail to decode tcp stream in Writer.Write"), strategy.Thrown},
		{"tri business", triple_protocol.NewWireError(triple_protocol.CodeBizError, errors.New("biz")), strategy.Business},
		{"tri status", triple_protocol.NewWireError(triple_protocol.CodeUnavailable, errors.New("down")), strategy.ResultRPC},
		{"tri transport", triple_protocol.NewError(triple_protocol.CodeUnavailable, errors.New("dial")), strategy.Thrown},
	} {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%s: Classify = %v, want %v", c.name, got, c.want)
		}
	}
}

type fakeInvoker struct {
	url   *common.URL
	err   error
	calls int
}

func (f *fakeInvoker) GetURL() *common.URL { return f.url }
func (f *fakeInvoker) IsAvailable() bool   { return true }
func (f *fakeInvoker) Destroy()            {}
func (f *fakeInvoker) Invoke(_ context.Context, inv base.Invocation) result.Result {
	f.calls++
	if f.err != nil {
		return &result.RPCResult{Err: f.err}
	}
	if p, ok := inv.Reply().(*string); ok {
		*p = "real"
	}
	return &result.RPCResult{Rest: inv.Reply()}
}

type fakeDir struct {
	url  *common.URL
	list []base.Invoker
}

func (d *fakeDir) GetURL() *common.URL                 { return d.url }
func (d *fakeDir) IsAvailable() bool                   { return true }
func (d *fakeDir) Destroy()                            {}
func (d *fakeDir) List(base.Invocation) []base.Invoker { return d.list }
func (d *fakeDir) Subscribe(*common.URL) error         { return nil }

func newFleet(t *testing.T, ref string, errs ...error) (*invoker, []*fakeInvoker) {
	t.Helper()
	u, err := common.NewURL(ref)
	if err != nil {
		t.Fatal(err)
	}
	var fs []*fakeInvoker
	var list []base.Invoker
	for i, e := range errs {
		pu, _ := common.NewURL("dubbo://10.0.0." + string(rune('1'+i)) + ":20880/demo.Svc")
		f := &fakeInvoker{url: pu, err: e}
		fs, list = append(fs, f), append(list, f)
	}
	return newInvoker(Strategy(u.GetParam("cluster", "failover")), &fakeDir{url: u, list: list}), fs
}

func total(fs []*fakeInvoker) int {
	n := 0
	for _, f := range fs {
		n += f.calls
	}
	return n
}

// A business exception is never retried; a failed call is, retries+1 times.
func TestFailoverAttempts(t *testing.T) {
	biz := &hessian2.GenericException{ExceptionClass: "java.lang.IllegalStateException", ExceptionMessage: "no"}
	ci, fs := newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc", biz, biz, biz)
	var reply string
	r := ci.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"), invocation.WithReply(&reply)))
	if Classify(r.Error()) != strategy.Business || total(fs) != 1 {
		t.Fatalf("business exception: %v after %d calls, want it after 1", r.Error(), total(fs))
	}
	down := errors.New("connect refused")
	ci, fs = newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=2", down, down, down)
	r = ci.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"), invocation.WithReply(&reply)))
	if r.Error() == nil || total(fs) != 3 {
		t.Fatalf("failed calls: %v after %d calls, want an error after 3", r.Error(), total(fs))
	}
}

// force:return null reaches no provider; fail:return "x" answers a failed call.
func TestMockFromReference(t *testing.T) {
	ci, fs := newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&mock=force%3Areturn+null", nil)
	ci.params() // no chain: the reference URL
	var reply string
	r := ci.Invoke(context.Background(), invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"), invocation.WithReply(&reply)))
	_ = r
	// Without dubboroute's chain (a registries join) mock is left to the
	// inner invokers: the provider is called.
	if total(fs) != 1 {
		t.Fatalf("calls = %d", total(fs))
	}
	got := mockOnly(t, "force:return null", nil)
	if got.calls != 0 || got.reply != "" || got.err != nil {
		t.Fatalf("force:return null = %+v, want no call, zero reply", got)
	}
	got = mockOnly(t, `fail:return "x"`, errors.New("connect refused"))
	if got.reply != "x" || got.err != nil {
		t.Fatalf(`fail:return "x" = %+v, want reply x`, got)
	}
	got = mockOnly(t, `fail:return "x"`, &hessian2.GenericException{ExceptionClass: "a.B"})
	if got.reply != "" || Classify(got.err) != strategy.Business || got.calls != 1 {
		t.Fatalf("fail mock on a business exception = %+v, want the exception", got)
	}
}

type mocked struct {
	calls int
	reply string
	err   error
}

// mockOnly runs a call with a mock value through the invoker's mock path
// (as Invoke does with a chain snapshot).
func mockOnly(t *testing.T, value string, provErr error) mocked {
	t.Helper()
	ci, fs := newFleet(t, "consumer://127.0.0.1/demo.Svc?interface=demo.Svc&retries=0", provErr)
	var reply string
	inv := invocation.NewRPCInvocationWithOptions(invocation.WithMethodName("sayHello"), invocation.WithReply(&reply))
	call := &dgCall{i: ci, ctx: context.Background(), inv: inv}
	p := ci.params()
	r, _, _ := mockInvoke(value, call, func() result.Result { return ci.run(call, p, "sayHello") }, func(cause error) result.Result { return ci.degrade(value, cause, inv) })
	return mocked{calls: total(fs), reply: reply, err: r.Error()}
}

// One list of cluster names: every cluster dubbo-go v3.3.2 ships is
// installed behind the chain, adaptiveService as dubbo-go's own, the rest
// as dubboroute's strategies; Java's names too.
func TestClusterNameList(t *testing.T) {
	want := []string{constant.ClusterKeyFailover, constant.ClusterKeyFailfast, constant.ClusterKeyFailsafe,
		constant.ClusterKeyFailback, constant.ClusterKeyForking, constant.ClusterKeyBroadcast,
		constant.ClusterKeyAvailable, constant.ClusterKeyZoneAware, constant.ClusterKeyAdaptiveService}
	if got := DubboGoNames(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("dubbo-go names %v, want %v", got, want)
	}
	for name, s := range map[string]string{"zoneAware": "zone-aware", "zone-aware": "zone-aware", "mergeable": "mergeable",
		"failover": "failover", constant.ClusterKeyAdaptiveService: "", "nosuch": ""} {
		if got := Strategy(name); got != s {
			t.Errorf("Strategy(%q) = %q, want %q", name, got, s)
		}
	}
	if New("nosuch").strategy != "failover" {
		t.Fatal("unknown cluster is not failover")
	}
}
