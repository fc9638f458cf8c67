package interop

import (
	"fmt"
	"strconv"
	"strings"
)

// ScriptApp is the provider application of every script case: the script
// rule's key is ScriptApp + ".script-router" (Java's AppScriptStateRouter
// reads the first provider's application).
const ScriptApp = "demo-provider"

// NextScript returns a script-rule case: 1-6 providers of ScriptApp, an
// invocation, and one to three events of the script key (a rule, sometimes
// changed or deleted afterwards). The scripts are Java-dialect (ES5,
// Nashorn's idioms: java.util.ArrayList, "s".equals, getUrl(), Java.to),
// with every result kind Java's ScriptStateRouter treats differently: a
// java.util.List, a Java array, the invokers binding, a JS array, null, a
// string, a thrown JS error, a Java exception, a function declaration
// that never runs.
func (g *Generator) NextScript(id string) Case {
	c := Case{ID: id, Destinations: true}
	c.ConsumerURL = "consumer://10.20.3.1/" + Iface + "?application=demo-consumer&side=consumer" + pick(g, "", "&region=hangzhou", "&env=gray", "&version=1.0")
	n := 1 + g.intn(6)
	for i := 0; i < n; i++ {
		q := []string{"application=" + ScriptApp, "interface=" + Iface}
		if g.chance(0.5) {
			q = append(q, "env="+pick(g, envs...))
		}
		if g.chance(0.5) {
			q = append(q, "region="+pick(g, "hangzhou", "beijing"))
		}
		if g.chance(0.3) {
			q = append(q, "version="+pick(g, "1.0", "2.0"))
		}
		c.Providers = append(c.Providers, Provider{ID: "p" + strconv.Itoa(i+1),
			URL: fmt.Sprintf("dubbo://%s:%d/%s?%s", pick(g, hosts4...), pick(g, ports...), Iface, strings.Join(q, "&"))})
	}
	inv := Invocation{Method: pick(g, methods...), Arguments: []any{}, Attachments: map[string]string{}}
	for i, na := 0, g.intn(3); i < na; i++ {
		inv.Arguments = append(inv.Arguments, pick[any](g, "tom", "ann", 42, 7))
	}
	if g.chance(0.5) {
		inv.Attachments["userId"] = pick(g, "u-7", "u-8", "42")
	}
	if g.chance(0.3) {
		inv.Attachments["env"] = pick(g, envs...)
	}
	c.Invocation = inv
	key := ScriptApp + ".script-router"
	c.Rules = append(c.Rules, Rule{Key: ptr(key), Content: ptr(g.scriptRule())})
	if g.chance(0.15) {
		c.Rules = append(c.Rules, Rule{Key: ptr(key), Content: ptr(g.scriptRule())})
	}
	if g.chance(0.03) {
		c.Rules = append(c.Rules, Rule{Key: ptr(key)}) // a delete (a pinned divergence)
	}
	return c
}

// scriptRule is a script rule's YAML.
func (g *Generator) scriptRule() string {
	var b strings.Builder
	b.WriteString("key: " + ScriptApp + "\n")
	if g.chance(0.85) {
		b.WriteString("type: " + pick(g, "javascript", "javascript", "js", "JavaScript", "nashorn", "ecmascript") + "\n")
	}
	switch {
	case g.chance(0.05):
		b.WriteString("enabled: false\n")
	case g.chance(0.03):
		b.WriteString("valid: false\n")
	case g.chance(0.6):
		b.WriteString("enabled: true\n")
	}
	if g.chance(0.2) {
		b.WriteString("force: " + pick(g, "true", "false") + "\n")
	}
	if g.chance(0.1) {
		b.WriteString("runtime: " + pick(g, "true", "false") + "\n")
	}
	if g.chance(0.1) {
		b.WriteString("priority: " + pick(g, "1", "10") + "\n")
	}
	b.WriteString("script: |\n")
	for _, l := range strings.Split(g.script(), "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// script is a Java-dialect script.
func (g *Generator) script() string {
	loopVar := pick(g, "var i = 0", "i = 0") // the docs' example uses an implicit global
	pred := g.scriptPred(2)
	collect := func(result string) string {
		return "for (" + loopVar + "; i < invokers.size(); i++) {\n" +
			"    var u = invokers.get(i).getUrl();\n" +
			"    if (" + pred + ") { " + result + " }\n" +
			"}"
	}
	iife := func(body string) string {
		return "(function route(invokers, invocation, context) {\n" + body + "\n} (invokers, invocation, context));"
	}
	switch g.intn(16) {
	case 0, 1, 2, 3: // the docs' example shape: a java.util.ArrayList
		return iife("var result = new java.util.ArrayList(invokers.size());\n" + collect("result.add(invokers.get(i));") + "\nreturn result;")
	case 4: // Java.type
		return "var ArrayList = Java.type(\"java.util.ArrayList\");\nvar result = new ArrayList();\n" + collect("result.add(invokers.get(i));") + "\nresult"
	case 5: // a JS array turned into a List or an Object[]
		return iife("var a = [];\n" + collect("a.push(invokers.get(i));") + "\nreturn Java.to(a, \"" + pick(g, "java.util.List", "java.lang.Object[]") + "\");")
	case 6: // a JS array: Java's ClassCastException
		return iife("var a = [];\n" + collect("a.push(invokers.get(i));") + "\nreturn a;")
	case 7: // the invokers binding, maybe trimmed
		if g.chance(0.5) {
			return "if (invokers.size() > 1 && (" + g.scriptCallPred() + ")) { invokers.remove(" + strconv.Itoa(g.intn(2)) + "); }\ninvokers"
		}
		return iife("return invokers;")
	case 8: // null / undefined / a string / a number
		return iife("if (" + g.scriptCallPred() + ") { return " + pick(g, "null", "undefined", "\"10.20.3.3\"", "42") + "; }\nreturn invokers;")
	case 9: // a JS error: every provider
		return iife("var result = new java.util.ArrayList();\n" + collect("result.add(invokers.get(i));") + "\nif (result.isEmpty()) { " + pick(g, "throw new Error(\"none\");", "undefinedFunction();", "invokers.filter(function(x) { return true; });") + " }\nreturn result;")
	case 10: // a Java exception: the call fails, unless caught
		if g.chance(0.5) {
			return iife("var result = new java.util.ArrayList();\ntry { result.add(invokers.get(" + strconv.Itoa(g.intn(8)) + ")); } catch (e) { result.add(invokers.get(0)); }\nreturn result;")
		}
		return iife("var result = new java.util.ArrayList();\nresult.add(invokers.get(" + strconv.Itoa(g.intn(8)) + "));\nreturn result;")
	case 11: // the 2.x legacy form: a declaration, then (invokers)
		return "function route(invokers) { var r = new java.util.ArrayList(); r.add(invokers.get(0)); return r; } (invokers);"
	case 12: // a declaration only: the value is undefined
		return "function route(invokers, invocation, context) {\n  return invokers;\n}"
	case 13: // a declaration, then a call on the next line
		return "function route(invokers) {\n  var r = new java.util.ArrayList();\n  " + collect("r.add(invokers.get(i));") + "\n  return r;\n}\nroute(invokers)"
	case 14: // bean properties and list indexing
		return iife("var result = new java.util.ArrayList();\nfor (var j = 0; j < invokers.length; j++) {\n  if (" + pick(g, "invokers[j].url.port == "+strconv.Itoa(pick(g, ports...)), "invokers[j].url.host == \""+pick(g, hosts4...)+"\"") + ") { result.add(invokers[j]); }\n}\nreturn result;")
	default: // reversed order and duplicates: retainAll keeps the input order
		return iife("var result = new java.util.ArrayList();\nfor (var k = invokers.size() - 1; k >= 0; k--) {\n  var u = invokers.get(k).getUrl();\n  if (" + strings.ReplaceAll(pred, "invokers.get(i)", "invokers.get(k)") + ") { result.add(invokers.get(k)); result.add(invokers.get(k)); }\n}\nreturn result;")
	}
}

// scriptPred is a condition on provider u (invokers.get(i)) and the call.
func (g *Generator) scriptPred(depth int) string {
	if depth > 0 && g.chance(0.35) {
		op := pick(g, " && ", " || ")
		return "(" + g.scriptPred(depth-1) + op + g.scriptPred(depth-1) + ")"
	}
	if depth > 0 && g.chance(0.1) {
		return "!" + g.scriptPred(depth-1)
	}
	if g.chance(0.25) {
		return g.scriptCallPred()
	}
	switch g.intn(9) {
	case 0:
		return "\"" + pick(g, hosts4...) + "\".equals(u.getHost())"
	case 1:
		return "u.getHost() == \"" + pick(g, hosts4...) + "\""
	case 2:
		return "u.getPort() " + pick(g, "==", ">", "!=") + " " + strconv.Itoa(pick(g, ports...))
	case 3:
		return "\"" + pick(g, envs...) + "\".equals(u.getParameter(\"env\"))"
	case 4:
		return "u.getParameter(\"" + pick(g, "env", "region", "version", "nope", "side", "category") + "\") == " + pick(g, "null", "\"consumer\"", "\"providers\"", "\"1.0\"")
	case 5:
		return "u.getParameter(\"region\", \"none\") == \"" + pick(g, "hangzhou", "beijing", "none") + "\""
	case 6:
		return "u.getAddress() == \"" + pick(g, hosts4...) + ":" + strconv.Itoa(pick(g, ports...)) + "\""
	case 7:
		return "invokers.get(i).url.host == \"" + pick(g, hosts4...) + "\""
	default:
		return "u.getProtocol() == \"dubbo\" && u.getParameter(\"application\") == \"" + pick(g, ScriptApp, "demo-consumer") + "\""
	}
}

// scriptCallPred is a condition on the call only.
func (g *Generator) scriptCallPred() string {
	switch g.intn(7) {
	case 0:
		return "invocation.getMethodName() == \"" + pick(g, methods...) + "\""
	case 1:
		return "\"" + pick(g, methods...) + "\".equals(invocation.getMethodName())"
	case 2:
		return "invocation.getAttachment(\"userId\") == \"" + pick(g, "u-7", "u-8") + "\""
	case 3:
		return "invocation.getAttachment(\"userId\") === null"
	case 4:
		return "context.getAttachment(\"env\") == \"" + pick(g, envs...) + "\""
	case 5:
		return "(invocation.getArguments().length > 0 && invocation.getArguments()[0] == \"tom\")"
	default:
		return "(invocation.getArguments().length > 1 && invocation.getArguments()[1] == 42)"
	}
}
