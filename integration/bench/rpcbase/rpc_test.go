//go:build !race

package rpcbase

import (
	"fmt"
	"os"
	"testing"

	dgtag "dubbo.apache.org/dubbo-go/v3/cluster/router/tag"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/integration/bench/internal/rpcfix"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

var (
	ports rpcfix.Ports
	cons  *rpcfix.Consumer
)

func TestMain(m *testing.M) {
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func setup() error {
	var err error
	ports, cons, err = rpcfix.Setup(rpcfix.Ports.DubbogoServiceRule)
	return err
}

// TestRoutedByDubbogo: the consumer routes with dubbo-go's own routers. Its
// tag factory is dubbo-go's; the benchmark calls reach the ports the rules
// name; a gray queryAll gets no provider (tag: P1, service: P0, force); and
// the seeds' address= form of the service rule matches nothing in dubbo-go,
// so queryAll then fails too (dubboroute routes it, see package rpc).
func TestRoutedByDubbogo(t *testing.T) {
	if f, ok := dgext.GetRouterFactories()[constant.TagRouterFactoryKey]; !ok {
		t.Fatal("no tag router factory")
	} else if _, ok := f().(*dgtag.RouteFactory); !ok {
		t.Fatalf("tag router factory is %T, not dubbo-go's", f())
	}
	if err := rpcfix.Check(cons.Calls(ports), 10); err != nil {
		t.Fatal(err)
	}
	if p, err := cons.QueryAll(true); err == nil {
		t.Errorf("gray queryAll served by %d, want no provider", p)
	}
	t.Cleanup(func() { memory.PutRule(api.ServiceRuleKey, ports.DubbogoServiceRule()) })
	memory.PutRule(api.ServiceRuleKey, "configVersion: v3.0\n"+ports.SeedServiceRule())
	if p, err := cons.QueryAll(false); err == nil {
		t.Errorf("with address=*:%d dubbo-go served queryAll by %d; 3.3.2 matches no provider", ports.P0, p)
	}
	memory.PutRule(api.ServiceRuleKey, ports.DubbogoServiceRule())
	if err := rpcfix.Check(cons.Calls(ports), 2); err != nil {
		t.Errorf("after restoring the port= rule: %v", err)
	}
}

// BenchmarkRPC is one real call per op (queryAll and gray queryByName in
// turn) through dubbo-go's built-in routers.
func BenchmarkRPC(b *testing.B) {
	b.Run("impl=dubbogo", func(b *testing.B) { rpcfix.Bench(b, cons.Calls(ports)) })
}
