package script

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/router"
)

// The providers and call of the spec's probes (script-rules spec §0.2).
var (
	specURLs = []*router.URL{
		router.MustParseURL("dubbo://10.20.3.3:20880/com.foo.Greeter?application=demo-provider&version=1.0"),
		router.MustParseURL("dubbo://10.20.3.4:20880/com.foo.Greeter?application=demo-provider&env=gray"),
		router.MustParseURL("dubbo://10.20.3.5:20881/com.foo.Greeter?application=demo-provider"),
	}
	specConsumer = router.MustParseURL("consumer://10.20.3.1/com.foo.Greeter?application=demo-consumer&side=consumer")
	specCall     = router.Call{Method: "sayHello", Args: []any{"tom", 42}, Attachments: router.AttachmentMap{"userId": "u-7", "ctxKey": "ctxVal"}}
)

// rule is a script rule as the spec's vectors write it.
func rule(script string, extra ...string) string {
	var b strings.Builder
	b.WriteString("key: demo-provider\n")
	hasType, hasEnabled := false, false
	for _, e := range extra {
		hasType = hasType || strings.HasPrefix(e, "type:")
		hasEnabled = hasEnabled || strings.HasPrefix(e, "enabled:")
		b.WriteString(e + "\n")
	}
	if !hasType {
		b.WriteString("type: javascript\n")
	}
	if !hasEnabled {
		b.WriteString("enabled: true\n")
	}
	b.WriteString("script: |\n")
	for _, l := range strings.Split(script, "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// routeIDs routes specCall with content in dialect d and names the kept
// providers (P1..P3), with the step's branch.
func routeIDs(t *testing.T, content string, d Dialect) (string, router.Branch) {
	t.Helper()
	r, err := Parse(content, d)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, content)
	}
	u := router.NewUniverse(len(specURLs))
	c := r.Compile(u, specConsumer, specURLs, CompileOptions{Budget: 2 * time.Second})
	// Twice on the same compiled rule: the second call reuses the pooled
	// runtime and must see the same bindings and globals as the first.
	var first string
	var firstBranch router.Branch
	for i := 0; i < 2; i++ {
		call := specCall
		var step router.Step
		out := c.Route(u.All(), &call, &step)
		if i == 0 {
			first, firstBranch = ids(out), step.Branch
		} else if ids(out) != first || step.Branch != firstBranch {
			t.Errorf("second call: [%s] %s, first [%s] %s (%s)", ids(out), step.Branch, first, firstBranch, step.Detail)
		}
	}
	return first, firstBranch
}

func ids(s *router.Set) string {
	var p []string
	s.ForEach(func(i int) { p = append(p, "P"+string(rune('1'+i))) })
	return strings.Join(p, ",")
}

const (
	all  = "P1,P2,P3"
	none = ""
)

const docsExample = `(function route(invokers,invocation,context) {
    var result = new java.util.ArrayList(invokers.size());
    for (i = 0; i < invokers.size(); i ++) {
        if ("10.20.3.3".equals(invokers.get(i).getUrl().getHost())) { result.add(invokers.get(i)); }
    }
    return result;
} (invokers, invocation, context));`

const goSample = `(function(invokers, invocation, context) {
  if (!invokers || invokers.length === 0) return [];
  return invokers.filter(function(invoker) {
    var url = invoker.GetURL();
    return url && url.Port === "20880";
  });
})(invokers, invocation, context);`

// TestJavaDialectVectors: the Java column of the spec's vectors (§8), run
// on Java 3.3.6 + Nashorn by the spec's probe.
func TestJavaDialectVectors(t *testing.T) {
	cases := []struct {
		id, script string
		extra      []string
		want       string
		branch     router.Branch
	}{
		{"V01", docsExample, nil, "P1", BranchRouted},
		{"V02", goSample, nil, all, BranchError},
		{"V03", `[invokers[0], invokers[2]]`, nil, none, BranchFailed},
		{"V04", "var L = Java.type(\"java.util.ArrayList\"); var r = new L(); r.add(invokers.get(1)); r", nil, "P2", BranchRouted},
		{"V05", `invokers`, nil, all, BranchRouted},
		{"V06", `"10.20.3.3"`, nil, none, BranchFailed},
		{"V07", `(function(){ throw new Error("boom"); })()`, nil, all, BranchError},
		{"V08", `(function(){ return null; })()`, nil, none, BranchFailed},
		{"V09", `function route(invokers, invocation, context) { return invokers; }`, nil, none, BranchFailed},
		{"V10", `(function(){ return []; })()`, []string{"force: true"}, none, BranchFailed},
		{"V10b", `new java.util.ArrayList()`, []string{"force: false"}, none, BranchRouted},
		{"V11", `[invokers[0]]`, []string{"enabled: false"}, all, router.BranchDisabled},
		{"V12", "var r = new java.util.ArrayList(); r.add(invokers.get(1)); r", []string{"runtime: false"}, "P2", BranchRouted},
		{"V13", "var r = new java.util.ArrayList(); if (invocation.getArguments()[0] == \"tom\" && invocation.getArguments()[1] == 42) r.add(invokers.get(2)); r", nil, "P3", BranchRouted},
		{"V13g", "(function(){ var a = invocation.Arguments(); return a[0] === \"tom\" && a[1] === 42 ? invokers.filter(function(x){ return x.GetURL().Port === \"20881\"; }) : invokers; })()", nil, all, BranchError},
		{"V14", "var r = new java.util.ArrayList(); if (invocation.getAttachment(\"userId\") === \"u-7\" && invocation.getMethodName() === \"sayHello\") r.add(invokers.get(2)); r", nil, "P3", BranchRouted},
		{"V14g", `invokers.filter(function(x){ return invocation.GetAttachment("userId") === "u-7"; })`, nil, all, BranchError},
		{"V15", `function route(invokers) { return [invokers[0]]; } (invokers);`, nil, all, BranchRouted},
		{"V16", "function route(invokers) { var r = []; r.push(invokers[0]); return r; }\nroute(invokers)", nil, none, BranchFailed},
		{"V19", `invokers`, []string{"type: js"}, all, BranchRouted},
		{"objarray", `Java.to([invokers[0], invokers[1]], "java.lang.Object[]")`, nil, "P1,P2", BranchRouted},
		{"reversed", "var r = new java.util.ArrayList(); r.add(invokers.get(2)); r.add(invokers.get(0)); r", nil, "P1,P3", BranchRouted},
		{"dup-foreign", "var r = new java.util.ArrayList(); r.add(invokers.get(1)); r.add(invokers.get(1)); r.add(\"x\"); r", nil, "P2", BranchRouted},
		{"get99", `invokers.get(99)`, nil, none, BranchFailed},
		{"caught-java", "var r = new java.util.ArrayList(); try { invokers.get(99); } catch (e) { r.add(invokers.get(0)); } r", nil, "P1", BranchRouted},
		{"ctx", "var r = new java.util.ArrayList(); if (context.getAttachment(\"ctxKey\") == \"ctxVal\") r.add(invokers.get(0)); r", nil, "P1", BranchRouted},
		{"bean", "var r = new java.util.ArrayList(); for (var j = 0; j < invokers.length; j++) { if (invokers[j].url.port == 20881) r.add(invokers[j]); } r", nil, "P3", BranchRouted},
		{"param", "var r = new java.util.ArrayList(); for (var j = 0; j < invokers.size(); j++) { var u = invokers.get(j).getUrl(); if (u.getParameter(\"env\") == null && u.getRemoteApplication() == \"demo-provider\") r.add(invokers.get(j)); } r", nil, "P1,P3", BranchRouted},
		{"consumer-first", "var r = new java.util.ArrayList(); if (invokers.get(0).getUrl().getParameter(\"application\") == \"demo-provider\" && invokers.get(0).getUrl().getParameter(\"side\") == \"consumer\" && invokers.get(0).getUrl().getRemoteApplication() == \"demo-provider\" && invokers.get(0).getUrl().getParameter(\"version\") == \"1.0\" && invokers.get(0).getUrl().getParameter(\"methods\") === null) r.add(invokers.get(0)); r", nil, "P1", BranchRouted},
		{"missing-attachment", "var r = new java.util.ArrayList(); if (invocation.getAttachment(\"nope\") === null) r.add(invokers.get(0)); r", nil, "P1", BranchRouted},
		{"no-filter", `invokers.filter(function(){ return true; })`, nil, all, BranchError},
		{"remove", "invokers.remove(0); invokers", nil, "P2,P3", BranchRouted},
		{"subList", `(function route(invokers) { return invokers.subList(0, 1); } (invokers))`, nil, "P1", BranchRouted},
		{"subList-oob", `invokers.subList(0, 9)`, nil, none, BranchFailed},
		{"iterator", "var r = new java.util.ArrayList(); var it = invokers.iterator(); while (it.hasNext()) { var x = it.next(); if (x.getUrl().getPort() == 20880) r.add(x); } r", nil, "P1,P2", BranchRouted},
		{"from", `Java.to(Java.from(invokers).slice(1), "java.util.List")`, nil, "P2,P3", BranchRouted},
	}
	for _, tc := range cases {
		got, br := routeIDs(t, rule(tc.script, tc.extra...), DialectJava)
		if got != tc.want || br != tc.branch {
			t.Errorf("%s: got [%s] %s, want [%s] %s", tc.id, got, br, tc.want, tc.branch)
		}
	}
}

// TestJavaDialectNoScriptValid: a rule without a script, valid false or
// enabled "yes" passes through (Java's ScriptRule.isValid / parseBoolean).
func TestJavaDialectNoScriptValid(t *testing.T) {
	for _, content := range []string{
		"key: demo-provider\nenabled: true\n",
		"key: demo-provider\nvalid: false\nscript: '[invokers[0]]'\n",
		"key: demo-provider\nenabled: 'yes'\nscript: '[invokers[0]]'\n",
	} {
		r, err := Parse(content, DialectJava)
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if r.Routes() || r.Why == "" {
			t.Errorf("%q: routes=%v why=%q, want a pass-through rule with a reason", content, r.Routes(), r.Why)
		}
	}
}

// TestJavaDialectRejects: what Java ignores (the update keeps the previous
// rule) and what dubboroute rejects at load with a position.
func TestJavaDialectRejects(t *testing.T) {
	cases := []struct {
		content, want string
		line, col     int
	}{
		{rule("invokers", "type: groovy"), "unsupported route engine type", 0, 0},
		{rule("invokers", "type: Javascript"), "unsupported route engine type", 0, 0},
		{"- a\n- b\n", "not a YAML mapping", 0, 0},
		{"script: [1]\n", "script must be a string", 0, 0},
		{"priority: high\nscript: invokers\n", "priority is not an integer", 0, 0},
		{rule("var x = 1;\nvar y = (;"), "line 2 column 10", 2, 10},
		{rule("var ok = 1;\ninvokers.filter(x => true)"), "arrow function is ES6 syntax", 2, 17},
		{rule("let r = invokers; r"), "let/const is ES6 syntax", 1, 1},
	}
	for _, tc := range cases {
		_, err := Parse(tc.content, DialectJava)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want it to contain %q", tc.content, err, tc.want)
			continue
		}
		var se *SyntaxError
		if tc.line > 0 && (!errors.As(err, &se) || se.Line != tc.line || se.Column != tc.col) {
			t.Errorf("%q: err %#v, want line %d column %d", tc.content, err, tc.line, tc.col)
		}
	}
}

// TestScriptDubboGoDialect: the dubbo-go column of the spec's vectors (§8)
// and the dubbo-go samples' script; V06, V08 and V18 do not panic (dubbo-go
// v3.3.2 does).
func TestScriptDubboGoDialect(t *testing.T) {
	cases := []struct {
		id, script string
		extra      []string
		want       string
		branch     router.Branch
	}{
		{"V01", docsExample, nil, all, BranchError},
		{"V02", goSample, nil, "P1,P2", BranchRouted},
		{"V03", `[invokers[0], invokers[2]]`, nil, "P1,P3", BranchRouted},
		{"V05", `invokers`, nil, all, BranchRouted},
		{"V06", `"10.20.3.3"`, nil, all, BranchInvalidResult},
		{"V07", `(function(){ throw new Error("boom"); })()`, nil, all, BranchError},
		{"V08", `(function(){ return null; })()`, nil, all, BranchInvalidResult},
		{"V08u", `undefined`, nil, all, BranchInvalidResult},
		{"V08n", `42`, nil, all, BranchInvalidResult},
		{"V09", `function route(invokers, invocation, context) { return invokers; }`, nil, all, BranchInvalidResult},
		{"V10", `(function(){ return []; })()`, []string{"force: true"}, none, BranchRouted},
		{"V11", `[invokers[0]]`, []string{"enabled: false"}, all, router.BranchDisabled},
		{"V13g", "(function(){ var a = invocation.Arguments(); return a[0] === \"tom\" && a[1] === 42 ? invokers.filter(function(x){ return x.GetURL().Port === \"20881\"; }) : invokers; })()", nil, "P3", BranchRouted},
		{"V14", "invokers.filter(function(){ return invocation.getAttachment(\"userId\") === \"u-7\"; })", nil, all, BranchError},
		{"V14g", `invokers.filter(function(x){ return invocation.GetAttachment("userId") === "u-7"; })`, nil, none, BranchRouted},
		{"V14g2", `invokers.filter(function(x){ var a = invocation.GetAttachment("userId"); return a[0] === "u-7" && a[1] === true && x.GetURL().Port === "20881"; })`, nil, "P3", BranchRouted},
		{"V15", `function route(invokers) { return [invokers[0]]; } (invokers);`, nil, "P1", BranchRouted},
		{"V16", "function route(invokers) { var r = []; r.push(invokers[0]); return r; }\nroute(invokers)", nil, all, BranchError},
		{"V20", `invokers.filter(x => x.GetURL().Port === "20881")`, nil, "P3", BranchRouted},
		{"foreign", `[invokers[0], "x"]`, nil, all, BranchInvalidResult},
		{"object", `({a: 1})`, nil, all, BranchInvalidResult},
		{"method", `invokers.filter(x => invocation.MethodName() === "sayHello" && x.GetURL().GetParam("env", "") === "gray")`, nil, "P2", BranchRouted},
		{"strict", `(function(){ for (i = 0; i < 1; i++) {} return invokers; })()`, nil, all, BranchError},
		{"ip", `invokers.filter(x => x.GetURL().Ip === "10.20.3.4" && x.GetURL().Location === "10.20.3.4:20880" && x.IsAvailable())`, nil, "P2", BranchRouted},
	}
	for _, tc := range cases {
		got, br := routeIDs(t, rule(tc.script, tc.extra...), DialectDubboGo)
		if got != tc.want || br != tc.branch {
			t.Errorf("%s: got [%s] %s, want [%s] %s", tc.id, got, br, tc.want, tc.branch)
		}
	}
	// The dubbo-go samples' rule (router/script in apache/dubbo-go-samples):
	// providers on 20000 and 20001, the script keeps 20000.
	samples := []*router.URL{
		router.MustParseURL("tri://127.0.0.1:20000/greet.GreetService?application=script-server"),
		router.MustParseURL("tri://127.0.0.1:20001/greet.GreetService?application=script-server"),
	}
	sr, err := Parse("configVersion: v3.0\nkey: script-server\ntype: javascript\nenabled: true\nscript: |\n"+
		"  (function(invokers, invocation, context) {\n    if (!invokers || invokers.length === 0) return [];\n"+
		"    return invokers.filter(function(invoker) {\n      var url = invoker.GetURL();\n      return url && url.Port === \"20000\";\n    });\n"+
		"  })(invokers, invocation, context);\n", DialectAuto)
	if err != nil || sr.Dialect != DialectDubboGo {
		t.Fatalf("samples' rule: %v, dialect %v", err, sr)
	}
	su := router.NewUniverse(2)
	sc := sr.Compile(su, specConsumer, samples, CompileOptions{})
	for i := 0; i < 10; i++ {
		call := router.Call{Method: "Greet", Args: []any{"hello"}}
		if out := sc.Route(su.All(), &call, nil); out.Len() != 1 || !out.Has(0) {
			t.Fatalf("samples' rule, call %d: routed %v, want 20000 only", i, ids(out))
		}
	}
	// V18: no enabled field (dubbo-go panics in Process): enabled.
	r, err := Parse("key: demo-provider\ntype: javascript\nscript: '[invokers[1]]'\n", DialectDubboGo)
	if err != nil || !r.Routes() || len(r.Findings) == 0 {
		t.Fatalf("V18: %v %+v", err, r)
	}
	// V19: no type: dubbo-go rejects the rule.
	if _, err := Parse("key: demo-provider\nenabled: true\nscript: invokers\n", DialectDubboGo); err == nil {
		t.Errorf("V19: a rule without type was accepted in the dubbo-go dialect")
	}
	// type is lower-cased: JavaScript works, js does not.
	if _, err := Parse(rule("invokers", "type: JavaScript"), DialectDubboGo); err != nil {
		t.Errorf("type JavaScript: %v", err)
	}
	if _, err := Parse(rule("invokers", "type: js"), DialectDubboGo); err == nil {
		t.Errorf("type js accepted in the dubbo-go dialect")
	}
	// A syntax error names the script's own line and column (the prefix
	// dubbo-go adds is not counted).
	_, err = Parse(rule("[invokers[0],\n  )"), DialectDubboGo)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Column != 3 {
		t.Errorf("syntax error: %v, want line 2 column 3", err)
	}
}

// TestDetectDialect: auto takes the dubbo-go dialect only for scripts that
// use dubbo-go's names and none of Java's.
func TestDetectDialect(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   Dialect
	}{
		{goSample, DialectDubboGo},
		{`invokers.filter(x => x.GetURL().Port === "20881")`, DialectDubboGo},
		{docsExample, DialectJava},
		{`[invokers[0]]`, DialectJava},
		{`invokers.filter(function(x){ return x.GetURL().getHost() == "a"; })`, DialectJava},
	} {
		r, err := Parse(rule(tc.script), DialectAuto)
		if err != nil {
			t.Fatalf("%q: %v", tc.script, err)
		}
		if r.Dialect != tc.want {
			t.Errorf("%q: dialect %v, want %v", tc.script, r.Dialect, tc.want)
		}
	}
}

// TestOffNeverRoutes: DialectOff reads the rule and never runs it.
func TestOffNeverRoutes(t *testing.T) {
	got, br := routeIDs(t, rule(`[invokers[0]]`), DialectOff)
	if got != all || br != router.BranchDisabled {
		t.Errorf("off: [%s] %s, want all, disabled", got, br)
	}
}

// TestTimeBudget: an endless loop is interrupted within the budget and the
// call passes through; the runtime is reused for the next call.
func TestTimeBudget(t *testing.T) {
	for _, d := range []Dialect{DialectJava, DialectDubboGo} {
		r, err := Parse(rule("(function(){ if (invocation.getMethodName ? invocation.getMethodName() == 'loop' : invocation.MethodName() == 'loop') { while (true) {} } return invokers; })()"), d)
		if err != nil {
			t.Fatal(err)
		}
		u := router.NewUniverse(len(specURLs))
		c := r.Compile(u, specConsumer, specURLs, CompileOptions{Budget: 30 * time.Millisecond})
		loop := router.Call{Method: "loop"}
		var step router.Step
		start := time.Now()
		out := c.Route(u.All(), &loop, &step)
		if el := time.Since(start); el > 5*time.Second {
			t.Fatalf("%v: the loop ran %v", d, el)
		}
		if out != u.All() || step.Branch != BranchTimeout {
			t.Errorf("%v: [%s] %s, want all, timeout", d, ids(out), step.Branch)
		}
		step = router.Step{}
		call := specCall
		out = c.Route(u.All(), &call, &step)
		if step.Branch != BranchRouted || out != u.All() {
			t.Errorf("%v after a timeout: [%s] %s, want a normal run", d, ids(out), step.Branch)
		}
	}
}

// TestGlobalsDoNotLeak: every call starts with fresh globals, as Java's new
// Global per call and dubbo-go's new runtime per call do.
func TestGlobalsDoNotLeak(t *testing.T) {
	r, err := Parse(rule("var seen; if (typeof count == 'undefined') { count = 0; } count++; var r = new java.util.ArrayList(); if (count == 1 && seen === undefined) r.add(invokers.get(0)); seen = 1; r"), DialectJava)
	if err != nil {
		t.Fatal(err)
	}
	u := router.NewUniverse(len(specURLs))
	c := r.Compile(u, specConsumer, specURLs, CompileOptions{})
	for i := 0; i < 5; i++ {
		call := specCall
		if got := ids(c.Route(u.All(), &call, nil)); got != "P1" {
			t.Fatalf("call %d: [%s], want [P1] (a global survived)", i, got)
		}
	}
}

// TestSubsetInput: the script sees only the routed input and its answer
// stays within it.
func TestSubsetInput(t *testing.T) {
	r, err := Parse(rule("var r = new java.util.ArrayList(); r.add(invokers.get(invokers.size() - 1)); r.add(invokers.get(0)); r"), DialectJava)
	if err != nil {
		t.Fatal(err)
	}
	u := router.NewUniverse(len(specURLs))
	c := r.Compile(u, specConsumer, specURLs, CompileOptions{})
	call := specCall
	if got := ids(c.Route(u.Of(1, 2), &call, nil)); got != "P2,P3" {
		t.Errorf("[%s], want [P2,P3]", got)
	}
	var step router.Step
	if out := c.Route(u.None(), &call, &step); !out.Empty() || step.Branch != router.BranchEmptyInput {
		t.Errorf("empty input: %s %s", ids(out), step.Branch)
	}
}

// TestJavaLooseEquality: == and != as ECMAScript (and Nashorn) define them
// where goja differs (a string against a number or boolean is read with
// ToNumber); the dubbo-go dialect keeps goja's answer, as dubbo-go runs it
// (goja's depends on the operand order: "1.0" == 1 is false, 1 == "1.0"
// true).
func TestJavaLooseEquality(t *testing.T) {
	for _, tc := range []struct {
		expr     string
		java, dg bool
	}{
		{`!null == "1.0"`, true, false},
		{`true == "1.0"`, true, false},
		{`1 == "1.0"`, true, true},
		{`0 == ""`, true, true},
		{`false == ""`, true, true},
		{`2 != "2.0"`, false, false},
		{`invokers.length == "3.0"`, true, true},
		{`20880 == "20880"`, true, true},
		{`"a" == "a"`, true, true},
		{`null == undefined`, true, true},
		{`"x" == 0`, false, false},
		{`"1.0" == 1`, true, false},
		{`"" == 0`, true, true},
		{`1 == 1.0`, true, true},
		{`invokers.get ? invokers.get(0).getUrl().getPort() == "20880.0" : invokers[0].GetURL().Port == 20880.0`, true, true},
	} {
		for _, d := range []Dialect{DialectJava, DialectDubboGo} {
			want := tc.java
			if d == DialectDubboGo {
				want = tc.dg
			}
			src := "(function(){ var r = " + tc.expr + "; return r ? invokers : []; })()"
			if d == DialectJava {
				src = "(function(){ var r = " + tc.expr + "; return r ? invokers : new java.util.ArrayList(); })()"
			}
			got, br := routeIDs(t, rule(src), d)
			if (got == all) != want || br != BranchRouted {
				t.Errorf("%v: %s: got [%s] %s, want %v", d, tc.expr, got, br, want)
			}
		}
	}
}

// TestJavaOverrideFirst: a configurator's override URL is read first by
// getParameter (DubboServiceAddressURL), except for the keys that are always
// the provider's own.
func TestJavaOverrideFirst(t *testing.T) {
	r, err := Parse(rule(`var r = new java.util.ArrayList();
for (var i = 0; i < invokers.size(); i++) {
  var u = invokers.get(i).getUrl();
  if (u.getParameter("env") == "blue" && u.getParameter("application") == "demo-provider") r.add(invokers.get(i));
}
r`), DialectJava)
	if err != nil {
		t.Fatal(err)
	}
	u := router.NewUniverse(len(specURLs))
	over := []*router.URL{nil, router.MustParseURL("override://10.20.3.4:20880/com.foo.Greeter?env=blue&application=x"), nil}
	c := r.Compile(u, specConsumer, specURLs, CompileOptions{Overrides: over})
	call := specCall
	if got := ids(c.Route(u.All(), &call, nil)); got != "P2" {
		t.Errorf("[%s], want [P2] (env from the override, application the provider's)", got)
	}
}
