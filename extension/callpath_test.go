package extension_test

import (
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
)

// pathLB records the call stack of its first pick and picks the first
// provider; pathRouter (a foreign router of the call-path consumer)
// records the stack of the routing step.
type pathLB struct{}

var (
	pathOnce, routeOnce   sync.Once
	pathStack, routeStack []string
)

func stack() []string {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []string
	for {
		f, more := frames.Next()
		out = append(out, f.Function)
		if !more {
			return out
		}
	}
}

func (pathLB) Select(ivks []base.Invoker, _ base.Invocation) base.Invoker {
	pathOnce.Do(func() { pathStack = stack() })
	return ivks[0]
}

type pathRouter struct{ u *common.URL }

func (p pathRouter) Route(ivks []base.Invoker, _ *common.URL, _ base.Invocation) []base.Invoker {
	routeOnce.Do(func() { routeStack = stack() })
	return ivks
}
func (p pathRouter) URL() *common.URL      { return p.u }
func (p pathRouter) Priority() int64       { return 0 }
func (p pathRouter) Notify([]base.Invoker) {}

// callPathApp is the consumer application whose reference gets pathRouter.
const callPathApp = "demo-consumer-callpath"

// pkgOf is the package path of a fully qualified function name.
func pkgOf(fn string) string {
	slash := strings.LastIndex(fn, "/")
	dot := strings.Index(fn[slash+1:], ".")
	if dot < 0 {
		return fn
	}
	return fn[:slash+1+dot]
}

// TestCallPathPackages walks the stack of one real call from the client's
// proxy to the balancer's pick and counts the packages it crosses: the
// cluster layer reaches the routed providers through the bound directory
// (strategies.Routing), not through dubbo-go's RegistryDirectory.List and
// router chain. docs/architecture.md quotes the list this logs.
func TestCallPathPackages(t *testing.T) {
	dgext.SetLoadbalance("test-callpath", func() loadbalance.LoadBalance { return pathLB{} })
	c := newConsumer(t, consumer.Options{App: callPathApp, LoadBalance: "test-callpath"})
	if _, err := queryAll(c, nil)(); err != nil {
		t.Fatal(err)
	}
	if len(pathStack) == 0 || len(routeStack) == 0 {
		t.Fatal("the balancer or the routing step was not reached")
	}
	ours, theirs := map[string]bool{}, map[string]bool{}
	var order []string
	all := append(append([]string(nil), pathStack...), routeStack...)
	for i := len(all) - 1; i >= 0; i-- {
		p := pkgOf(all[i])
		switch {
		case strings.HasPrefix(p, "github.com/dubboroute/dubboroute/extension_test"), strings.HasPrefix(p, "github.com/dubboroute/dubboroute/samples/"):
			continue
		case strings.HasPrefix(p, "github.com/dubboroute/dubboroute/"):
			if !ours[p] {
				order = append(order, strings.TrimPrefix(p, "github.com/dubboroute/dubboroute/"))
			}
			ours[p] = true
		case strings.HasPrefix(p, "dubbo.apache.org/dubbo-go/v3/"):
			theirs[p] = true
		}
	}
	var dg []string
	for p := range theirs {
		dg = append(dg, strings.TrimPrefix(p, "dubbo.apache.org/dubbo-go/v3/"))
	}
	sort.Strings(dg)
	t.Logf("call path (the pick's stack and the routing step's): %d dubboroute packages %v; %d dubbo-go packages %v", len(ours), order, len(dg), dg)
	for _, p := range dg {
		if strings.HasPrefix(p, "registry/directory") || strings.HasPrefix(p, "cluster/router") {
			t.Errorf("the call went through dubbo-go's %s (directory List / router chain)", p)
		}
	}
}
