package tag

import (
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// BenchmarkTagRoute routes a mix of requests (dynamic hit, multi-level hit,
// static tag, failover, tagless) over n providers with a dynamic rule.
func BenchmarkTagRoute(b *testing.B) {
	rule, err := ParseRuleWith(`configVersion: v3.0
tags:
  - name: gray
    addresses: ["10.0.0.*:20880", "10.1.0.0/16"]
  - name: a|b
    addresses: ["10.0.1.1-50"]
  - name: canary
    match: [{key: env, value: {exact: canary}}]
`, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			urls := make([]*router.URL, n)
			for i := range urls {
				q := "application=prov"
				switch i % 7 {
				case 0:
					q += "&dubbo.tag=blue"
				case 1:
					q += "&env=canary"
				}
				urls[i] = router.MustParseURL(fmt.Sprintf("dubbo://10.%d.%d.%d:%d/com.foo.S?%s", i%3, (i/250)%256, i%250+1, 20880+i%2, q))
			}
			u := router.NewUniverse(n)
			c := Compile(rule, u, router.MustParseURL("consumer://127.0.0.1/x"), urls)
			calls := []*router.Call{
				{Attachments: router.AttachmentMap{TagKey: "gray"}},
				{Attachments: router.AttachmentMap{TagKey: "a|b|c"}},
				{Attachments: router.AttachmentMap{TagKey: "blue"}},
				{Attachments: router.AttachmentMap{TagKey: "red"}},
				{Attachments: router.AttachmentMap{}},
			}
			in := u.All()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Route(in, calls[i%len(calls)], nil)
			}
		})
	}
}

// BenchmarkTagCompile is the off-hot-path cost of one address or rule change.
func BenchmarkTagCompile(b *testing.B) {
	rule, _ := ParseRuleWith("tags: [{name: gray, addresses: [\"10.0.0.*:20880\", \"10.1.0.0/16\"]}]", nil)
	for _, n := range []int{100, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			urls := make([]*router.URL, n)
			for i := range urls {
				urls[i] = router.MustParseURL(fmt.Sprintf("dubbo://10.%d.%d.%d:20880/S?dubbo.tag=t%d", i%3, (i/250)%256, i%250+1, i%5))
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Compile(rule, router.NewUniverse(n), nil, urls)
			}
		})
	}
}
