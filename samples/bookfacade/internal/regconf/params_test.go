package regconf

import (
	"flag"
	"testing"
)

func TestParamsFlag(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	p := Params{}
	fs.Var(p, "param", "")
	if err := fs.Parse([]string{"-param", "status=gray", "-param", "a=b=c", "-param", "empty="}); err != nil {
		t.Fatal(err)
	}
	if len(p) != 3 || p["status"] != "gray" || p["a"] != "b=c" || p["empty"] != "" {
		t.Errorf("params %v", p)
	}
	for _, bad := range []string{"novalue", "=v"} {
		if err := (Params{}).Set(bad); err == nil {
			t.Errorf("Set(%q): no error", bad)
		}
	}
}
