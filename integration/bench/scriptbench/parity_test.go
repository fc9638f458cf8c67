package scriptbench

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	dgscript "dubbo.apache.org/dubbo-go/v3/cluster/router/script"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"dubbo.apache.org/dubbo-go/v3/remoting"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/script"
)

// The providers and call of the script spec's probes (§0.2).
var parityProviders = []string{
	"dubbo://10.20.3.3:20880/com.foo.Greeter?application=demo-provider&version=1.0",
	"dubbo://10.20.3.4:20880/com.foo.Greeter?application=demo-provider&env=gray",
	"dubbo://10.20.3.5:20881/com.foo.Greeter?application=demo-provider",
}

// TestScriptSameAsDubbogo runs dubbo-go-dialect scripts (the spec's dubbo-go
// vectors, the samples' script and more) through dubbo-go v3.3.2's own
// script router and through dubboroute's (dubbo-go dialect) on the same
// providers and invocation: the same providers, except where dubbo-go
// panics (a string, number, boolean, null or undefined result), where
// dubboroute passes every provider through.
func TestScriptSameAsDubbogo(t *testing.T) {
	cases := []struct {
		id, script string
		panics     bool
	}{
		{"V02", `(function(invokers, invocation, context) {
  if (!invokers || invokers.length === 0) return [];
  return invokers.filter(function(invoker) { var url = invoker.GetURL(); return url && url.Port === "20880"; });
})(invokers, invocation, context);`, false},
		{"V03", `[invokers[0], invokers[2]]`, false},
		{"V05", `invokers`, false},
		{"V06", `"10.20.3.3"`, true},
		{"V07", `(function(){ throw new Error("boom"); })()`, false},
		{"V08", `(function(){ return null; })()`, true},
		{"V08u", `undefined`, true},
		{"V08n", `42`, true},
		{"V08b", `true`, true},
		{"V09", `function route(invokers, invocation, context) { return invokers; }`, false},
		{"V10", `(function(){ return []; })()`, false},
		{"V13g", `(function(){ var a = invocation.Arguments(); return a[0] === "tom" && a[1] === 42 ? invokers.filter(function(x){ return x.GetURL().Port === "20881"; }) : invokers; })()`, false},
		{"V14g", `invokers.filter(function(x){ return invocation.GetAttachment("userId") === "u-7"; })`, false},
		{"V14g2", `invokers.filter(function(x){ var a = invocation.GetAttachment("userId"); return a[0] === "u-7" && a[1] === true && x.GetURL().Port === "20881"; })`, false},
		{"V15", `function route(invokers) { return [invokers[0]]; } (invokers);`, false},
		{"V16", "function route(invokers) { var r = []; r.push(invokers[0]); return r; }\nroute(invokers)", false},
		{"V20", `invokers.filter(x => x.GetURL().Port === "20881")`, false},
		{"foreign", `[invokers[0], "x"]`, false},
		{"object", `({a: 1})`, false},
		{"ip", `invokers.filter(x => x.GetURL().Ip === "10.20.3.4" && x.GetURL().Location === "10.20.3.4:20880" && x.IsAvailable())`, false},
		{"param", `invokers.filter(x => x.GetURL().GetParam("env", "none") === "none")`, false},
		{"method", `invokers.filter(x => invocation.MethodName() === "sayHello" && x.GetURL().Protocol === "dubbo")`, false},
		{"strict", `(function(){ for (i = 0; i < 1; i++) {} return [invokers[0]]; })()`, false},
		{"java", `(function(){ var r = new java.util.ArrayList(); r.add(invokers.get(0)); return r; })()`, false},
	}
	var dgInvokers []base.Invoker
	var urls []*router.URL
	for _, p := range parityProviders {
		u, err := common.NewURL(p)
		if err != nil {
			t.Fatal(err)
		}
		dgInvokers = append(dgInvokers, base.NewBaseInvoker(u))
		urls = append(urls, router.MustParseURL(p))
	}
	consumer := router.MustParseURL("consumer://10.20.3.1/com.foo.Greeter?application=demo-consumer")
	for _, tc := range cases {
		text := "key: demo-provider\ntype: javascript\nenabled: true\nscript: |\n  " + strings.ReplaceAll(tc.script, "\n", "\n  ") + "\n"
		newInv := func() *invocation.RPCInvocation {
			return invocation.NewRPCInvocation("sayHello", []any{"tom", 42}, map[string]any{"userId": "u-7"})
		}
		// dubbo-go
		dg := dgscript.NewScriptRouter()
		dg.Process(&config_center.ConfigChangeEvent{Key: "demo-provider.script-router", Value: text, ConfigType: remoting.EventTypeUpdate})
		var want string
		panicked := func() (p bool) {
			defer func() {
				if r := recover(); r != nil {
					p = true
				}
			}()
			want = locations(dg.Route(dgInvokers, nil, newInv()))
			return false
		}()
		if panicked != tc.panics {
			t.Errorf("%s: dubbo-go panicked=%v, want %v", tc.id, panicked, tc.panics)
		}
		if panicked {
			want = locations(dgInvokers) // dubboroute: every provider passes through
		}
		// dubboroute
		r, err := script.Parse(text, script.DialectDubboGo)
		if err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		u := router.NewUniverse(len(urls))
		c := r.Compile(u, consumer, urls, script.CompileOptions{})
		call := cluster.CallOf(newInv())
		var got []string
		c.Route(u.All(), &call, nil).ForEach(func(i int) { got = append(got, fmt.Sprintf("%s:%d", urls[i].Host, urls[i].Port)) })
		sort.Strings(got)
		if g := strings.Join(got, ","); g != want {
			t.Errorf("%s: dubboroute [%s], dubbo-go [%s]", tc.id, g, want)
		}
	}
}

// locations are the invokers' addresses, sorted and deduplicated (a set:
// dubboroute routes to a set of providers).
func locations(ivks []base.Invoker) string {
	seen := map[string]bool{}
	var out []string
	for _, i := range ivks {
		l := i.GetURL().Location
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
