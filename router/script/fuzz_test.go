package script

import (
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/router"
)

// FuzzParseRoute: no rule text, in any dialect, panics the parser or a
// call; a call's answer stays within its input; a rejected rule is an
// error, never a half-built rule.
func FuzzParseRoute(f *testing.F) {
	f.Add(rule(docsExample), uint8(0))
	f.Add(rule(goSample), uint8(1))
	f.Add(rule(`[invokers[0], invokers[2]]`), uint8(2))
	f.Add(rule("invokers.get(99)"), uint8(0))
	f.Add("script: '(function(){ return null; })()'\n", uint8(1))
	f.Add("type: [1]\nscript: x\n", uint8(0))
	f.Fuzz(func(t *testing.T, content string, d uint8) {
		dialect := Dialect(d % 4)
		r, err := Parse(content, dialect)
		if err != nil {
			if r != nil {
				t.Fatalf("error %v with a rule", err)
			}
			return
		}
		if r.Dialect == DialectAuto {
			t.Fatalf("unresolved dialect")
		}
		u := router.NewUniverse(len(specURLs))
		c := r.Compile(u, specConsumer, specURLs, CompileOptions{Budget: 10 * time.Millisecond})
		in := u.Of(0, 2)
		call := specCall
		var step router.Step
		out := c.Route(in, &call, &step)
		if out != u.And(out, in) {
			t.Fatalf("routed %v outside the input %v", ids(out), ids(in))
		}
		if step.Branch == "" {
			t.Fatalf("no branch recorded")
		}
	})
}
