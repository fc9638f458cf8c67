//go:build !race

package rpc

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"

	_ "github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/integration/bench/internal/rpcfix"
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
	ports, cons, err = rpcfix.Setup(rpcfix.Ports.SeedServiceRule)
	return err
}

// TestRoutedByDubboroute: the consumer routes with dubboroute. Its tag
// factory is dubboroute's; the seeds' address= rule (which dubbo-go cannot
// match) sends the benchmark calls to the ports it names; a gray queryAll
// gets no provider (tag: P1, service: P0, force), as in package rpcbase.
func TestRoutedByDubboroute(t *testing.T) {
	f, ok := dgext.GetRouterFactories()[constant.TagRouterFactoryKey]
	if !ok {
		t.Fatal("no tag router factory")
	}
	typ := reflect.TypeOf(f())
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if pkg := typ.PkgPath(); !strings.HasPrefix(pkg, "github.com/dubboroute/dubboroute/") {
		t.Fatalf("tag router factory is from %s, not dubboroute", pkg)
	}
	if err := rpcfix.Check(cons.Calls(ports), 10); err != nil {
		t.Fatal(err)
	}
	if p, err := cons.QueryAll(true); err == nil {
		t.Errorf("gray queryAll served by %d, want no provider", p)
	}
}

// BenchmarkRPC is one real call per op (queryAll and gray queryByName in
// turn) through dubboroute.
func BenchmarkRPC(b *testing.B) {
	b.Run("impl=dubboroute", func(b *testing.B) { rpcfix.Bench(b, cons.Calls(ports)) })
}
