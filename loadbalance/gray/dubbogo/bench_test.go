package dubbogo

import (
	"fmt"
	"strconv"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance/random"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
)

var benchSizes = []int{10, 100, 1000, 10000}

const benchRule = `
requests:
  - conditions:
      - {source: attachment, key: userId, operator: in, value: "1,2,3,4,5,6,7,8,9,10"}
  - conditions:
      - {source: method, operator: startsWith, value: query}
    percent: 20
    hashKey: attachment:userId
`

func benchInvokers(b *testing.B, n int) []base.Invoker {
	out := make([]base.Invoker, n)
	for i, u := range benchURLs(n) {
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
	for _, n := range benchSizes {
		invs := benchInvokers(b, n)
		lb := New(gray.Options{})
		if err := lb.SetRuleText("book-provider", benchRule); err != nil {
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

func benchURLs(n int) []*router.URL {
	out := make([]*router.URL, n)
	for i := range out {
		s := fmt.Sprintf("dubbo://10.%d.%d.%d:20880/com.example.BookFacade?application=book-provider&weight=%d", i>>16&255, i>>8&255, i&255, 50+i%100)
		if i%10 == 0 {
			s += "&status=gray"
		}
		out[i] = router.MustParseURL(s)
	}
	return out
}
