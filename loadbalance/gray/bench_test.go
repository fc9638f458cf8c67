package gray

import (
	"fmt"
	"strconv"
	"testing"

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

// benchProviders: every 10th provider gray, weights varied so the weighted
// path (binary search over prefix sums) is exercised.
func benchProviders(n int) []*router.URL {
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

// BenchmarkGrayPick is one classification plus one weighted pick on a
// compiled plan; users alternate between a listed gray user and sticky
// rollout users.
func BenchmarkGrayPick(b *testing.B) {
	r, err := ParseRule(benchRule)
	if err != nil {
		b.Fatal(err)
	}
	calls := make([]*router.Call, 64)
	for i := range calls {
		calls[i] = &router.Call{Method: "queryAll", Attachments: router.AttachmentMap{"userId": strconv.Itoa(i * 37)}}
	}
	for _, n := range benchSizes {
		p := Compile(Input{Rule: r, Providers: benchProviders(n)}, Options{})
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := p.Pick(calls[i&63], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile is the slow path: a new routed slice or rule.
func BenchmarkCompile(b *testing.B) {
	r, _ := ParseRule(benchRule)
	for _, n := range []int{10, 1000} {
		provs := benchProviders(n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = Compile(Input{Rule: r, Providers: provs}, Options{})
			}
		})
	}
}

// BenchmarkRoundRobin measures the two smooth weighted round-robin
// implementations under parallel load: a tiny mutex around the O(n) update
// versus Java's per-entry atomics.
func BenchmarkRoundRobin(b *testing.B) {
	for _, n := range []int{10, 100} {
		provs := make([]string, n)
		for i := range provs {
			provs[i] = strconv.Itoa(1 + i%7)
		}
		p := Compile(Input{Providers: weighted(provs...)}, Options{Delegate: DelegateRoundRobin})
		t := p.normal.def.get(0)
		b.Run("mutex/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_ = t.pickLocked()
				}
			})
		})
		b.Run("atomic/n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_ = t.pickAtomic()
				}
			})
		})
	}
}
