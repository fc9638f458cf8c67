package affinity

import (
	"errors"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// FuzzParseRule: affinity rules come from the config center. No input
// panics; an accepted rule has a key and a ratio in [0, 100]; it compiles
// over a small fleet and routes within the input (the input itself unless
// the affine providers are enough).
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"configVersion: v3.1\nscope: service\nkey: a.B\nenabled: true\naffinityAware:\n  key: region\n  ratio: 20\n",
		"configVersion: v3.1\naffinityAware: {key: zone, ratio: 100}\n", "configVersion: v3.1\naffinityAware: {key: ' ', ratio: 1}\n",
		"configVersion: v3.1\naffinityAware: {key: zone, ratio: 101}\n", "configVersion: v3.1\naffinityAware: {key: zone, ratio: 1e2}\n",
		"configVersion: v3.0\naffinityAware: {key: zone}\n", "affinityAware: [1]\n", "x: &a [*a]\n", "- a\n", "", "~",
		"configVersion: v3.1\nenabled: nope\naffinityAware: {key: zone, ratio: NaN}\n", "configVersion: v3.1\naffinityAware: {key: zone, ratio: 5d}\n",
	} {
		f.Add(s, "hangzhou")
	}
	f.Fuzz(func(t *testing.T, content, value string) {
		r, err := ParseRule(content)
		if err != nil {
			if r != nil && !errors.Is(err, ErrInvalid) {
				t.Fatal("rule and error both returned")
			}
			return
		}
		if r.Key == "" || r.Ratio < 0 || r.Ratio > 100 {
			t.Fatalf("accepted rule %+v", r)
		}
		consumer := &router.URL{Protocol: "consumer", Host: "10.0.0.9"}
		consumer.Params.Set(r.Key, value)
		var urls []*router.URL
		for i, v := range []string{value, "other", "", value + "x"} {
			u := &router.URL{Protocol: "dubbo", Host: "10.0.0.1", Port: 20880 + i}
			if i != 2 {
				u.Params.Set(r.Key, v)
			}
			urls = append(urls, u)
		}
		for _, own := range []*router.URL{consumer, {Protocol: "consumer"}} {
			u := router.NewUniverse(len(urls))
			c := CompileFor(r, u, own, consumer, urls)
			for _, in := range []*router.Set{u.All(), u.Of(1, 2), u.Of(0), u.None()} {
				st := &router.Step{}
				out := c.Route(in, st)
				if u.And(out, in) != out {
					t.Fatalf("result not a subset of the input")
				}
				if out != in && st.Branch != BranchAffine {
					t.Fatalf("input narrowed on branch %s", st.Branch)
				}
				_ = c.Route(in, nil)
			}
		}
	})
}
