package condition

import (
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// The §11 fixture: providers p1-p4 and the consumer.
var (
	specProviderText = []string{
		"dubbo://10.20.3.3:20880/com.foo.BarService?application=prov-a&region=hangzhou&env=gray&methods=findFoo,getFoo",
		"dubbo://10.20.3.4:20881/com.foo.BarService?application=prov-a&region=beijing",
		"dubbo://127.0.0.1:20880/com.foo.BarService?application=prov-b",
		"dubbo://127.0.0.1:20882/com.foo.BarService?application=prov-b&region=hangzhou&serialization=fastjson",
	}
	specConsumerText = "consumer://127.0.0.1/com.foo.BarService?application=cons-app&region=hangzhou&env=gray"
)

func specProviders() []*router.URL {
	out := make([]*router.URL, len(specProviderText))
	for i, s := range specProviderText {
		out[i] = router.MustParseURL(s)
	}
	return out
}

func ids(s *router.Set, names []string) string {
	if s.Empty() {
		return "-"
	}
	var b []string
	s.ForEach(func(i int) { b = append(b, names[i]) })
	return strings.Join(b, " ")
}

var specNames = []string{"p1", "p2", "p3", "p4"}

// routeSpec routes call through rule over the §11 fixture and names the result.
func routeSpec(t *testing.T, r *Rule, call *router.Call) (string, *router.Step) {
	t.Helper()
	return routeOver(t, r, specConsumerText, specProviderText, specNames, call, nil)
}

func routeOver(t *testing.T, r *Rule, consumer string, provs, names []string, call *router.Call, rnd router.Rand) (string, *router.Step) {
	t.Helper()
	urls := make([]*router.URL, len(provs))
	for i, s := range provs {
		urls[i] = router.MustParseURL(s)
	}
	u := router.NewUniverse(len(urls))
	c := r.Compile(u, router.MustParseURL(consumer), urls, CompileOptions{Rand: rnd})
	st := &router.Step{}
	out := c.Route(u.All(), call, st)
	if out != u.And(out, u.All()) || u.And(out, u.All()) != out {
		t.Fatalf("result is not a subset of the input")
	}
	return ids(out, names), st
}

func mustCondition(t *testing.T, text string, force, enabled bool) *Rule {
	t.Helper()
	r, err := ParseCondition(text, force, enabled)
	if err != nil {
		t.Fatalf("ParseCondition(%q): %v", text, err)
	}
	return r
}

func mustRule(t *testing.T, yml string) *Rule {
	t.Helper()
	r, err := ParseRule(yml)
	if err != nil {
		t.Fatalf("ParseRule: %v\n%s", err, yml)
	}
	return r
}

func hasFinding(r *Rule, code string) bool {
	for _, f := range r.Findings() {
		if f.Code == code {
			return true
		}
	}
	return false
}

// fixedRand returns v (mod n) for every draw.
func fixedRand(v uint64) router.Rand { return func(n uint64) uint64 { return v % n } }
