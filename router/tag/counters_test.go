package tag

import (
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// TestCounters: each branch of the tag decision counts exactly the calls
// that took it, static and dynamic, per dynamic tag; a traced route counts
// nothing.
func TestCounters(t *testing.T) {
	f := providers(t,
		"p1", "dubbo://10.0.0.1:20880/s?dubbo.tag=green",
		"p2", "dubbo://10.0.0.2:20880/s",
		"p3", "dubbo://10.0.0.3:20880/s")
	u := router.NewUniverse(len(f.urls))
	call := func(c *Compiled, n int, att ...string) {
		m := router.AttachmentMap{}
		for i := 0; i+1 < len(att); i += 2 {
			m[att[i]] = att[i+1]
		}
		for i := 0; i < n; i++ {
			c.Route(u.All(), &router.Call{Method: "m", Attachments: m}, nil)
		}
		c.Route(u.All(), &router.Call{Method: "m", Attachments: m}, &router.Step{})
	}
	static := Compile(nil, u, nil, f.urls)
	call(static, 4)
	call(static, 3, TagKey, "green")
	call(static, 2, TagKey, "red")
	call(static, 1, TagKey, "red", ForceTagKey, "true")
	static.Route(u.None(), &router.Call{}, nil)
	cnt := static.Counters()
	for br, want := range map[router.Branch]uint64{router.BranchTagless: 4, router.BranchStatic: 3, router.BranchStaticFallback: 2,
		router.BranchStaticForcedEmpty: 1, router.BranchEmptyInput: 1} {
		if got := cnt.Count("static tags", br); got != want {
			t.Errorf("static %s = %d, want %d", br, got, want)
		}
	}

	rule, err := ParseRule("force: false\ntags:\n  - name: gray\n    addresses: [\"10.0.0.3:20880\"]\n  - name: blue\n    addresses: [\"10.9.9.9:1\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	dyn := Compile(rule, u, nil, f.urls)
	call(dyn, 5, TagKey, "gray")
	call(dyn, 2, TagKey, "gray|x") // the level "gray" is found
	call(dyn, 3, TagKey, "blue")   // its address is absent: fallback to untagged unclaimed
	call(dyn, 2, TagKey, "green")  // not in the rule: static tag hit
	call(dyn, 1, TagKey, "red", ForceTagKey, "true")
	call(dyn, 6)
	cnt = dyn.Counters()
	const sc = "dynamic rule"
	checks := []struct {
		br     router.Branch
		detail string
		want   uint64
	}{
		{router.BranchDynamicHit, `tag "gray"`, 7}, {router.BranchDynamicHit, `tag "blue"`, 0},
		{router.BranchFallbackUntagged, "", 3}, {router.BranchStaticInDynamic, "", 2},
		{router.BranchForcedEmpty, "", 1}, {router.BranchTagless, "", 6}, {router.BranchDynamicForceEmpty, "", 0},
	}
	for _, c := range checks {
		if got := cnt.CountDetail(sc, c.br, c.detail); got != c.want {
			t.Errorf("dynamic %s %s = %d, want %d", c.br, c.detail, got, c.want)
		}
	}
	forced, err := ParseRule("force: true\ntags:\n  - name: blue\n    addresses: [\"10.9.9.9:1\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	fc := Compile(forced, u, nil, f.urls)
	call(fc, 2, TagKey, "blue")
	if got := fc.Counters().Count(sc, router.BranchDynamicForceEmpty); got != 2 {
		t.Errorf("dynamic-force-empty = %d, want 2", got)
	}
	// A rebuild with the same rule keeps the counts; another rule resets.
	again := Compile(rule, router.NewUniverse(2), nil, f.urls[:2])
	again.Cells().AdoptCounters(dyn.Cells())
	if got := again.Counters().CountDetail(sc, router.BranchDynamicHit, `tag "gray"`); got != 7 {
		t.Errorf("adopted gray hits = %d, want 7", got)
	}
	other := Compile(forced, u, nil, f.urls)
	other.Cells().AdoptCounters(dyn.Cells())
	if got := other.Counters().Count(sc, router.BranchTagless); got != 0 {
		t.Errorf("another rule kept %d tagless calls", got)
	}
}
