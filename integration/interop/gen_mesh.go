package interop

import (
	"fmt"
	"strconv"
	"strings"
)

// Mesh rule cases (issue 12): the generator below covers Java Dubbo 3.3.6's
// standard mesh router: VirtualService and DestinationRule documents at
// <provider-app>.MESHAPPRULE for several provider applications, every
// matcher (services, name_match, argc, argp, args with str_value/num_value/
// bool_value, sourceLabels, attachments dubboContext/tracingContext,
// headers), weights, fallbacks, subsets read consumer-first, updates,
// deletes, values Java rejects or ignores, plus condition and tag rules.

var (
	meshApps     = []string{"prov-a", "prov-b", "prov-c"}
	meshSubsets  = []string{"v1", "v2", "v3", "gray", "all", "none"}
	meshVersions = []string{"v1", "v2", "v3"}
	meshLabels   = []string{"{ver: v1}", "{ver: v2}", "{ver: v3}", "{env: gray}", "{env: prod}", "{region: hangzhou}",
		"{ver: v2, env: prod}", "{application: prov-a}", "{side: consumer}", "{category: providers}", "{}", "{ver: v9}",
		"{trafficLabel: gray}", "{weight: '100'}", "{dubbo.tag: gray}"}
	meshTraffic = []string{"gray", "testing-trunk", "xxx", "", "GRAY"}
)

// NextMesh returns a mesh case, with id.
func (g *Generator) NextMesh(id string) Case {
	c := Case{ID: id, Destinations: true}
	capp := pick(g, consumerApps...)
	q := []string{"application=" + capp, "side=consumer", "interface=" + Iface}
	if g.chance(0.4) {
		q = append(q, "env="+pick(g, envs...))
	}
	if g.chance(0.3) {
		q = append(q, "trafficLabel="+pick(g, meshTraffic...))
	}
	if g.chance(0.3) {
		q = append(q, "region="+pick(g, regions...))
	}
	if g.chance(0.1) {
		q = append(q, "ver="+pick(g, meshVersions...))
	}
	if g.chance(0.05) {
		q = append(q, "dubbo.tag=gray")
	}
	c.ConsumerURL = "consumer://10.20.3.3/" + Iface + "?" + strings.Join(q, "&")
	napps := 1 + g.intn(3)
	apps := meshApps[:napps]
	n := 1 + g.intn(8)
	for i := 0; i < n; i++ {
		app := pick(g, apps...)
		if g.chance(0.04) {
			app = pick(g, "", "unknown")
		}
		c.Providers = append(c.Providers, Provider{ID: "p" + strconv.Itoa(i+1), URL: g.meshProviderURL(app)})
	}
	c.Invocation = g.meshInvocation()
	nr := 1 + g.intn(3)
	var keys []string
	for i := 0; i < nr; i++ {
		app := pick(g, apps...)
		if g.chance(0.05) {
			app = "prov-z" // no provider of it: unread
		}
		k := app + ".MESHAPPRULE"
		c.Rules = append(c.Rules, Rule{Key: ptr(k), Content: ptr(g.meshRule(false))})
		keys = append(keys, k)
	}
	// Updates and deletes of the same keys, later in time.
	for g.chance(0.3) {
		k := pick(g, keys...)
		if g.chance(0.25) {
			c.Rules = append(c.Rules, Rule{Key: ptr(k)})
		} else {
			c.Rules = append(c.Rules, Rule{Key: ptr(k), Content: ptr(g.meshRule(true))})
		}
	}
	// Condition and tag rules in the same chain.
	if papp := urlApp(c.Providers[0].URL); papp != "" && g.chance(0.3) {
		c.Rules = append(c.Rules, g.rule(capp, papp))
	}
	// Script rules: Java 3.3.6 on Java 17 has no JavaScript engine.
	if g.chance(0.08) {
		app := pick(g, apps...)
		c.Rules = append(c.Rules, Rule{Key: ptr(app + ".script-router"), Content: ptr(pick(g,
			"configVersion: v3.0\nkey: demo-provider\ntype: javascript\nenabled: true\nscript: |\n  (function route(invokers) { return invokers.subList(0, 1); } (invokers))\n",
			"type: groovy\nscript: 'return invokers'\n",
			"enabled: false\nscript: x\n",
			"script: [unclosed\n"))})
	}
	return c
}

func (g *Generator) meshProviderURL(app string) string {
	q := []string{"interface=" + Iface}
	if app != "" {
		q = append(q, "application="+app)
	}
	if g.chance(0.7) {
		q = append(q, "ver="+pick(g, meshVersions...))
	}
	if g.chance(0.5) {
		q = append(q, "env="+pick(g, envs...))
	}
	if g.chance(0.3) {
		q = append(q, "region="+pick(g, regions...))
	}
	if g.chance(0.15) {
		q = append(q, "trafficLabel="+pick(g, meshTraffic...))
	}
	if g.chance(0.15) {
		q = append(q, "dubbo.tag="+pick(g, "gray", "blue"))
	}
	if g.chance(0.1) {
		q = append(q, "weight=100")
	}
	proto := "dubbo"
	if g.chance(0.02) {
		proto = "mock"
	}
	return fmt.Sprintf("%s://%s:%d/%s?%s", proto, pick(g, hosts4...), pick(g, ports...), Iface, strings.Join(q, "&"))
}

func (g *Generator) meshInvocation() Invocation {
	inv := Invocation{Method: pick(g, methods...), Arguments: []any{}, Attachments: map[string]string{}}
	na := g.intn(4)
	for i := 0; i < na; i++ {
		inv.Arguments = append(inv.Arguments, g.meshArgument())
	}
	if g.chance(0.06) {
		real := inv.Method
		types := []any{}
		for range inv.Arguments {
			types = append(types, "java.lang.String")
		}
		inv.Arguments = []any{real, types, inv.Arguments}
		inv.Method = "$invoke"
	}
	if g.chance(0.5) {
		inv.Attachments["trafficLabel"] = pick(g, meshTraffic...)
	}
	if g.chance(0.3) {
		inv.Attachments["userId"] = pick(g, "1", "42", "abc")
	}
	if g.chance(0.1) {
		inv.Attachments["dubbo.tag"] = pick(g, "gray", "blue")
	}
	if g.chance(0.02) {
		inv.Attachments["invocation.need.mock"] = "true"
	}
	return inv
}

func (g *Generator) meshArgument() any {
	switch g.intn(8) {
	case 0, 1:
		return g.intn(20) - 5
	case 2:
		return pick(g, 1.5, 2.0, -0.5, 10.25)
	case 3:
		return g.chance(0.5)
	case 4:
		if g.chance(0.3) {
			return nil
		}
		return pick(g, "1", "2.5", " 3 ", "1e1", "NaN", "0x1p3", "7d", "abc")
	default:
		return pick(g, "gray", "Dubbo", "hello", "", "v1", "x")
	}
}

// meshRule is one MESHAPPRULE value: usually a DestinationRule and a
// VirtualService, sometimes something Java ignores or rejects. update says
// the value is a change event (a DestinationRule without subsets is only
// generated there: as the first value, Java's address notification throws).
func (g *Generator) meshRule(update bool) string {
	var docs []string
	switch g.intn(40) {
	case 0:
		return "kind: VirtualService\nmetadata: {name: bad\n" // bad YAML
	case 1:
		docs = append(docs, g.virtualService(g.meshName())) // VirtualService only: ignored
	case 2:
		docs = append(docs, g.destinationRule(g.meshName(), update))
	case 3:
		docs = append(docs, "hello") // a scalar document: skipped, nothing left: clears
	default:
		name := g.meshName()
		dr := g.destinationRule(name, update)
		vs := g.virtualService(name)
		if g.chance(0.5) {
			docs = append(docs, dr, vs)
		} else {
			docs = append(docs, vs, dr)
		}
		if g.chance(0.15) {
			docs = append(docs, g.destinationRule(g.meshName(), update))
		}
		if g.chance(0.15) {
			docs = append(docs, g.virtualService(g.meshName()))
		}
		if g.chance(0.05) {
			docs = append(docs, "kind: Other\nmetadata: {name: x}\nspec: {}")
		}
	}
	return strings.Join(docs, "\n---\n") + "\n"
}

func (g *Generator) meshName() string {
	switch g.intn(60) {
	case 0:
		return "demo-route.v1" // rule type v1: not standard
	case 1:
		return "" // empty metadata name is still standard
	case 2:
		return "123" // not a string: Java's cast throws
	case 3:
		return "~" // metadata {name: null}: Java throws
	}
	return pick(g, "demo-route", "mesh-rule")
}

func (g *Generator) metadata(name string) string {
	switch {
	case name == "" && g.chance(0.5):
		return "metadata: {}" // empty metadata: document skipped
	case name == "":
		return "metadata: {name: ''}"
	}
	return "metadata: {name: " + name + "}"
}

func (g *Generator) destinationRule(name string, update bool) string {
	var b strings.Builder
	b.WriteString("apiVersion: service.dubbo.apache.org/v1alpha1\nkind: DestinationRule\n")
	b.WriteString(g.metadata(name) + "\n")
	if update && g.chance(0.05) {
		b.WriteString(pick(g, "spec: {host: demo}", "spec: {host: demo, subsets: [abc]}"))
		return b.String()
	}
	b.WriteString("spec:\n  host: demo\n  subsets:\n")
	n := 1 + g.intn(4)
	for i := 0; i < n; i++ {
		sub := pick(g, meshSubsets...)
		switch {
		case sub == "all":
			if g.chance(0.5) {
				fmt.Fprintf(&b, "    - name: all\n")
			} else {
				fmt.Fprintf(&b, "    - name: all\n      labels: {}\n")
			}
		case strings.HasPrefix(sub, "v") && g.chance(0.7):
			fmt.Fprintf(&b, "    - name: %s\n      labels: {ver: %s}\n", sub, sub)
		default:
			fmt.Fprintf(&b, "    - name: %s\n      labels: %s\n", sub, pick(g, meshLabels...))
		}
	}
	if g.chance(0.2) {
		b.WriteString("  trafficPolicy:\n    loadBalancer: {simple: ROUND_ROBIN}\n")
	}
	return b.String()
}

func (g *Generator) virtualService(name string) string {
	var b strings.Builder
	b.WriteString("apiVersion: service.dubbo.apache.org/v1alpha1\nkind: VirtualService\n")
	b.WriteString(g.metadata(name) + "\n")
	if g.chance(0.02) {
		return b.String() // no spec: Java throws on every call
	}
	b.WriteString("spec:\n  hosts: [demo]\n  dubbo:\n")
	if g.chance(0.25) { // a plain weighted split
		b.WriteString("    - routedetail:\n        - name: split\n          route:\n")
		for t, nt := 0, 2+g.intn(2); t < nt; t++ {
			fmt.Fprintf(&b, "            - weight: %s\n              destination: {host: demo, subset: %s}\n",
				pick(g, "1", "10", "30", "60", "90"), pick(g, "v1", "v2", "v3", "all", "gray"))
		}
		return b.String()
	}
	nr := 1
	if g.chance(0.2) {
		nr = 2
	}
	for r := 0; r < nr; r++ {
		b.WriteString("    - name: route" + strconv.Itoa(r) + "\n")
		if g.chance(0.5) {
			b.WriteString("      services:\n")
			ns := 1 + g.intn(2)
			for i := 0; i < ns; i++ {
				b.WriteString("        - " + g.stringMatch(pick(g, Iface, "com.foo.Other", "com.foo.*", ".*BarService", "com.foo")) + "\n")
			}
		}
		b.WriteString("      routedetail:\n")
		nd := 1 + g.intn(3)
		for d := 0; d < nd; d++ {
			b.WriteString("        - name: d" + strconv.Itoa(d) + "\n")
			if !(d == nd-1 && g.chance(0.6)) {
				nm := 1 + g.intn(2)
				b.WriteString("          match:\n")
				for m := 0; m < nm; m++ {
					b.WriteString(g.matchRequest("            "))
				}
			}
			if g.chance(0.04) {
				continue // no route: the app contributes nothing
			}
			if g.chance(0.02) {
				b.WriteString("          route: []\n")
				continue
			}
			b.WriteString("          route:\n")
			nt := 1 + g.intn(2) + g.intn(3)
			for t := 0; t < nt; t++ {
				b.WriteString(g.routeDestination("            "))
			}
		}
	}
	return b.String()
}

// stringMatch is a flow-style StringMatch aimed at value.
func (g *Generator) stringMatch(value string) string {
	var fields []string
	n := 1
	if g.chance(0.15) {
		n = 2
	}
	for i := 0; i < n; i++ {
		switch g.intn(9) {
		case 0, 1:
			fields = append(fields, "exact: "+g.yamlStr(value))
		case 2:
			p := value
			if len(p) > 2 {
				p = p[:len(p)/2]
			}
			fields = append(fields, "prefix: "+g.yamlStr(p))
		case 3:
			fields = append(fields, "regex: "+g.yamlStr(pick(g, ".*", value, "g.*", "[a-z]+", "(", ".*Service", "v[12]")))
		case 4:
			fields = append(fields, "wildcard: "+g.yamlStr(pick(g, "*", value, value+"*")))
		case 5:
			fields = append(fields, "empty: "+pick(g, "x", "''", "true"))
		case 6:
			fields = append(fields, "noempty: "+pick(g, "x", "true"))
		case 7:
			fields = append(fields, "exact: "+g.yamlStr(pick(g, "gray", "v1", "other", "")))
		default:
			if g.chance(0.3) {
				return "{}" // matches nothing
			}
			fields = append(fields, "exact: "+g.yamlStr(value))
		}
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

func (g *Generator) doubleMatch() string {
	switch g.intn(8) {
	case 0, 1:
		return "{exact: " + pick(g, "1.0", "2.0", "1.5", "-0.5", "10.25", "3.0", ".nan", "8.0") + "}"
	case 2:
		return "{exact: " + pick(g, "1", "2", "10") + "}" // an Integer: Java ignores it
	case 3:
		return "{range: {start: " + pick(g, "0.0", "1.0", "-1.0", "2") + ", end: " + pick(g, "5.0", "10.0", "3") + "}}"
	case 4:
		return "{range: {start: " + pick(g, "0.0", "2.5") + "}}"
	case 5:
		return "{range: {end: " + pick(g, "2.0", "0.0") + "}}"
	case 6:
		return "{mod: " + pick(g, "2.0", "3.0", "3") + ", exact: " + pick(g, "0.0", "1.0") + "}"
	}
	return "{}"
}

func (g *Generator) matchRequest(indent string) string {
	var parts []string
	if g.chance(0.5) {
		var m []string
		if g.chance(0.6) {
			m = append(m, "name_match: "+g.stringMatch(pick(g, methods...)))
		}
		if g.chance(0.2) {
			m = append(m, "argc: "+pick(g, "0", "1", "2", "'1'"))
		}
		if g.chance(0.15) {
			var ps []string
			for i := 0; i < 1+g.intn(2); i++ {
				ps = append(ps, g.stringMatch(pick(g, "java.lang.String", "String", "int", "double", "boolean", "Object", "java.lang.Object", "long")))
			}
			m = append(m, "argp: ["+strings.Join(ps, ", ")+"]")
		}
		if g.chance(0.35) {
			var as []string
			for i := 0; i < 1+g.intn(2); i++ {
				idx := pick(g, "0", "0", "1", "2", "5")
				switch g.intn(4) {
				case 0:
					as = append(as, "{index: "+idx+", str_value: {oneof: ["+g.stringMatch(pick(g, "gray", "hello", "v1", "Dubbo"))+"]}}")
				case 1:
					as = append(as, "{index: "+idx+", num_value: {oneof: ["+g.doubleMatch()+", "+g.doubleMatch()+"]}}")
				case 2:
					as = append(as, "{index: "+idx+", bool_value: {exact: "+pick(g, "true", "false")+"}}")
				default:
					as = append(as, "{index: "+idx+", "+pick(g, "str_value: {}", "num_value: {}", "type: string", "str_value: {oneof: []}")+"}")
				}
			}
			m = append(m, "args: ["+strings.Join(as, ", ")+"]")
		}
		parts = append(parts, "method: {"+strings.Join(m, ", ")+"}")
	}
	if g.chance(0.25) {
		parts = append(parts, "sourceLabels: "+pick(g, "{trafficLabel: gray}", "{env: gray}", "{application: cons-app}", "{region: hangzhou, env: prod}", "{}", "{side: consumer}"))
	}
	if g.chance(0.5) {
		var a []string
		if g.chance(0.9) {
			a = append(a, "dubboContext: {trafficLabel: "+g.stringMatch(pick(g, meshTraffic...))+"}")
		}
		if g.chance(0.08) {
			a = append(a, "tracingContext: {trace: {exact: x}}")
		}
		if g.chance(0.05) {
			a = append(a, "dubbocontext: {trafficLabel: {exact: gray}}")
		}
		parts = append(parts, "attachments: {"+strings.Join(a, ", ")+"}")
	}
	if g.chance(0.05) {
		parts = append(parts, "headers: {x: {exact: y}}")
	}
	if len(parts) == 0 {
		return indent + "- {}\n"
	}
	return indent + "- {" + strings.Join(parts, ", ") + "}\n"
}

func (g *Generator) routeDestination(indent string) string {
	var b strings.Builder
	b.WriteString(indent + "- ")
	if g.chance(0.6) {
		switch g.intn(40) {
		case 0:
			b.WriteString("weight: '5'\n" + indent + "  ") // Java rejects the update
		case 1:
			b.WriteString("weight: 0\n" + indent + "  ")
		default:
			b.WriteString("weight: " + pick(g, "1", "2", "10", "50", "90", "100", "-3") + "\n" + indent + "  ")
		}
	}
	b.WriteString("destination:\n")
	fmt.Fprintf(&b, "%s    host: demo\n%s    subset: %s\n", indent, indent, pick(g, meshSubsets...))
	if g.chance(0.3) {
		if g.chance(0.2) {
			fmt.Fprintf(&b, "%s    fallback: {host: demo, subset: %s}\n", indent, pick(g, meshSubsets...)) // ignored form
		} else {
			fmt.Fprintf(&b, "%s    fallback:\n%s      destination: {host: demo, subset: %s", indent, indent, pick(g, meshSubsets...))
			if g.chance(0.3) {
				fmt.Fprintf(&b, ", fallback: {destination: {subset: %s}}", pick(g, meshSubsets...))
			}
			b.WriteString("}\n")
		}
	}
	return b.String()
}

// urlApp is the application parameter of a URL.
func urlApp(u string) string {
	_, q, _ := strings.Cut(u, "?")
	for _, kv := range strings.Split(q, "&") {
		if v, ok := strings.CutPrefix(kv, "application="); ok {
			return v
		}
	}
	return ""
}
