package dubbogo

import (
	"strconv"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/random"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/loadbalance/gray/internal/graybench"
)

func benchInvokers(b *testing.B, n int) []base.Invoker {
	out := make([]base.Invoker, n)
	for i, u := range graybench.Providers(n) {
		cu, err := common.NewURL(u.String())
		if err != nil {
			b.Fatal(err)
		}
		out[i] = base.NewBaseInvoker(cu)
	}
	return out
}

// BenchmarkSelect compares the dubbo-go adapter on a cached slice (gray
// rule, weighted random inside the pool) with dubbo-go's built-in random
// balancer on the same invokers, in the same run.
func BenchmarkSelect(b *testing.B) {
	for _, n := range graybench.Sizes {
		invs := benchInvokers(b, n)
		lb := New(gray.Options{})
		if err := lb.SetRuleText("book-provider", graybench.Rule); err != nil {
			b.Fatal(err)
		}
		inv := invocation.NewRPCInvocation("queryAll", nil, map[string]any{"userId": "7"})
		attrs := inv.Attributes()
		b.Run("gray/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				delete(attrs, RetryAttribute)
				_ = lb.Select(invs, inv)
			}
		})
		builtin := random.NewRandomLoadBalance()
		b.Run("dubbogo-random/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = builtin.Select(invs, inv)
			}
		})
	}
}
