package gray

import (
	"strconv"
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/gray/internal/graybench"
	"github.com/dubboroute/dubboroute/router"
)

// BenchmarkGrayPick is one classification plus one weighted pick on a
// compiled plan; users alternate between a listed gray user and sticky
// rollout users.
func BenchmarkGrayPick(b *testing.B) {
	r, err := ParseRule(graybench.Rule)
	if err != nil {
		b.Fatal(err)
	}
	calls := make([]*router.Call, 64)
	for i := range calls {
		calls[i] = &router.Call{Method: "queryAll", Attachments: router.AttachmentMap{"userId": strconv.Itoa(i * 37)}}
	}
	for _, n := range graybench.Sizes {
		p := Compile(Input{Rule: r, Providers: graybench.Providers(n)}, Options{})
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
	r, _ := ParseRule(graybench.Rule)
	for _, n := range []int{10, 1000} {
		provs := graybench.Providers(n)
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = Compile(Input{Rule: r, Providers: provs}, Options{})
			}
		})
	}
}

// BenchmarkRoundRobin measures the roundrobin delegate (Java's
// RoundRobinLoadBalance, loadbalance/roundrobin) under parallel load.
func BenchmarkRoundRobin(b *testing.B) {
	for _, n := range []int{10, 100} {
		provs := make([]string, n)
		for i := range provs {
			provs[i] = strconv.Itoa(1 + i%7)
		}
		p := Compile(Input{Providers: weighted(provs...)}, Options{Delegate: DelegateRoundRobin})
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				c := &router.Call{Method: "m"}
				for pb.Next() {
					_, _ = p.Pick(c, nil)
				}
			})
		})
	}
}
