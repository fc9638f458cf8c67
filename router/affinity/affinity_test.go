package affinity

import (
	"errors"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// The spec's probe (§4.3): consumer region=hz; providers hz, sh, sh, none.
func TestRatioTable(t *testing.T) {
	urls := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/s?region=hz"),
		router.MustParseURL("dubbo://10.0.0.2:20880/s?region=sh"),
		router.MustParseURL("dubbo://10.0.0.3:20880/s?region=sh"),
		router.MustParseURL("dubbo://10.0.0.4:20880/s"),
	}
	consumer := router.MustParseURL("consumer://10.0.0.9/s?region=hz")
	u := router.NewUniverse(len(urls))
	for _, tc := range []struct {
		ratio string
		want  int
	}{{"0", 1}, {"25", 1}, {"26", 4}, {"50", 4}} {
		r, err := ParseRule("configVersion: v3.1\naffinityAware:\n  key: region\n  ratio: " + tc.ratio + "\n")
		if err != nil {
			t.Fatal(err)
		}
		c := Compile(r, u, consumer, urls)
		if got := c.Route(u.All(), nil).Len(); got != tc.want {
			t.Errorf("ratio %s: %d providers, want %d", tc.ratio, got, tc.want)
		}
		if n := testing.AllocsPerRun(100, func() { c.Route(u.All(), nil) }); n != 0 {
			t.Errorf("Route allocates %v", n)
		}
	}
	// A glob consumer value is a pattern; no affine provider keeps the input
	// (Java: none with ratio 0).
	r, _ := ParseRule("configVersion: v3.1\naffinityAware: {key: region, ratio: 0}\n")
	if got := Compile(r, u, router.MustParseURL("consumer://x/s?region=s*"), urls).Route(u.All(), nil).Len(); got != 2 {
		t.Errorf("glob s*: %d, want 2", got)
	}
	if got := Compile(r, u, router.MustParseURL("consumer://x/s?region=bj"), urls).Route(u.All(), nil).Len(); got != 4 {
		t.Errorf("no affine provider: %d, want the input (4)", got)
	}
}

func TestParseLikeJava(t *testing.T) {
	for text, want := range map[string]string{
		"configVersion: v3.1\naffinityAware: {key: region, ratio: 20}\n":  "",
		"configVersion: v3.0\naffinityAware: {key: region}\n":             "invalid",
		"configVersion: v3.1\naffinityAware: {key: region, ratio: 120}\n": "invalid",
		"configVersion: v3.1\nvalid: false\naffinityAware: {key: r}\n":    "invalid",
		"configVersion: v3.1\naffinityAware: {key: ''}\n":                 "invalid",
		"affinityAware: {key: ''}\n":                                      "invalid", // empty key: invalid before configVersion is read
		"affinityAware: {key: region}\n":                                  "error",   // then a missing configVersion throws
		"configVersion: v3.1\n":                                           "error",
		"configVersion: v3.1\naffinityAware: {key: region, ratio: x}\n":   "error",
		"configVersion: 3.1\naffinityAware: {key: region}\n":              "error",
		"configVersion: v3.1\naffinityAware: {key: 12}\n":                 "error",
	} {
		_, err := ParseRule(text)
		got := ""
		switch {
		case errors.Is(err, ErrInvalid):
			got = "invalid"
		case err != nil:
			got = "error"
		}
		if got != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}

// TestCounters: hit, below the ratio and miss count exactly the calls that
// took them; a traced route counts nothing.
func TestCounters(t *testing.T) {
	urls := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/s?region=hz"),
		router.MustParseURL("dubbo://10.0.0.2:20880/s?region=sh"),
		router.MustParseURL("dubbo://10.0.0.3:20880/s?region=sh"),
	}
	u := router.NewUniverse(len(urls))
	r, err := ParseRule("configVersion: v3.1\naffinityAware:\n  key: region\n  ratio: 40\n")
	if err != nil {
		t.Fatal(err)
	}
	c := Compile(r, u, router.MustParseURL("consumer://10.0.0.9/s?region=hz"), urls)
	for i := 0; i < 3; i++ {
		c.Route(u.Of(0, 1), nil) // 1 of 2 affine: 50% >= 40%: hit
	}
	for i := 0; i < 2; i++ {
		c.Route(u.All(), nil) // 1 of 3: below the ratio
	}
	c.Route(u.Of(1, 2), nil)            // none affine: miss
	c.Route(u.Of(0, 1), &router.Step{}) // traced: not counted
	const sc = "key region"
	for br, want := range map[router.Branch]uint64{BranchAffine: 3, BranchTooFew: 2, BranchNone: 1, BranchNoValue: 0} {
		if got := c.Counters().Count(sc, br); got != want {
			t.Errorf("%s = %d, want %d", br, got, want)
		}
	}
	again := Compile(r, router.NewUniverse(2), router.MustParseURL("consumer://10.0.0.9/s?region=hz"), urls[:2])
	again.Cells().AdoptCounters(c.Cells())
	if got := again.Counters().Count(sc, BranchAffine); got != 3 {
		t.Errorf("adopted hits = %d, want 3", got)
	}
}
