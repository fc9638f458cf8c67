package graybench

import (
	"fmt"

	"github.com/dubboroute/dubboroute/router"
)

// Sizes are the provider counts every gray benchmark sweeps.
var Sizes = []int{10, 100, 1000, 10000}

// Rule is a gray rule with a listed-users request rule and a 20 % sticky
// rollout, so both classification paths are exercised.
const Rule = `
requests:
  - conditions:
      - {source: attachment, key: userId, operator: in, value: "1,2,3,4,5,6,7,8,9,10"}
  - conditions:
      - {source: method, operator: startsWith, value: query}
    percent: 20
    hashKey: attachment:userId
`

// Providers is a fleet of n: every 10th provider gray (status=gray),
// weights varied so the weighted path (binary search over prefix sums) is
// exercised.
func Providers(n int) []*router.URL {
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
