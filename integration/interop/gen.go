package interop

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Rule is one element of a case's "rules" (the route contract): a
// config-center rule (Key, Content; a nil Content is a delete), a single
// condition (Condition, Force, Enabled) or a registry router URL (URL).
type Rule struct {
	Key       *string `json:"key,omitempty"`
	Content   *string `json:"content,omitempty"`
	Condition *string `json:"condition,omitempty"`
	Force     *bool   `json:"force,omitempty"`
	Enabled   *bool   `json:"enabled,omitempty"`
	URL       *string `json:"url,omitempty"`
}

// MarshalJSON writes a delete as "content": null (omitempty would drop it).
func (r Rule) MarshalJSON() ([]byte, error) {
	if r.Key != nil && r.Content == nil {
		return json.Marshal(map[string]any{"key": *r.Key, "content": nil})
	}
	type plain Rule
	return json.Marshal(plain(r))
}

// Invocation is a case's call.
type Invocation struct {
	Method      string            `json:"method"`
	Arguments   []any             `json:"arguments"`
	Attachments map[string]string `json:"attachments"`
}

// Provider is one provider of a case, in registry order.
type Provider struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// Case is one routing case of the JSON contract that both `dubboroute
// route` and the Java oracle evaluate.
type Case struct {
	ID           string     `json:"id"`
	Rules        []Rule     `json:"rules"`
	ConsumerURL  string     `json:"consumer_url"`
	Invocation   Invocation `json:"invocation"`
	Providers    []Provider `json:"providers"`
	Destinations bool       `json:"destinations,omitempty"`
	// Affinity asks both sides to put Java's service affinity router in
	// the chain (Java 3.3.6 compiles it in but does not register it).
	Affinity bool `json:"affinity,omitempty"`
	// RegistryConfigurators are the registry's override:// URLs (the
	// children of <interface>/configurators, decoded).
	RegistryConfigurators []string `json:"registry_configurators,omitempty"`
}

// Iface is the interface every generated case calls.
const Iface = "com.foo.BarService"

// Generator produces random routing cases from a grammar covering the
// condition and tag rule languages (spec §3-§6). The same seed gives the
// same cases.
type Generator struct {
	r *rand.Rand
	// LoopbackHosts lets providers live on 127.0.0.x hosts. Off by default:
	// Java never matches an address pattern other than *, *.*.*.* and CIDR
	// against such a host (NetUtils.isValidV4Address), which dubboroute does
	// not reproduce (see testdata/known-divergences.jsonl).
	LoopbackHosts bool

	mixed int // cases made by NextConfiguratorsMixed
}

// NewGenerator returns a generator seeded with seed.
func NewGenerator(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909))}
}

func (g *Generator) intn(n int) int        { return g.r.IntN(n) }
func (g *Generator) chance(p float64) bool { return g.r.Float64() < p }
func pick[T any](g *Generator, xs ...T) T  { return xs[g.r.IntN(len(xs))] }

func ptr[T any](v T) *T { return &v }

// the case's world: names the generated rules and values draw from.
var (
	consumerApps = []string{"cons-app", "demo-consumer"}
	providerApps = []string{"prov-a", "prov-b"}
	regions      = []string{"hangzhou", "beijing", "shanghai", "my-zone", "hang*zhou"}
	envs         = []string{"gray", "prod", "dev"}
	tagNames     = []string{"gray", "blue", "red", "gray|blue", "gray|blue|green", "blue|x"}
	methods      = []string{"sayHello", "getFoo", "queryAll", "queryByName"}
	ports        = []int{20880, 20881, 20882}
	hosts4       = []string{"10.20.3.3", "10.20.3.4", "10.0.0.1", "10.0.0.2", "10.0.0.3", "192.168.1.10", "10.1.2.3"}
	loopHosts    = []string{"127.0.0.1", "127.0.0.2"}
)

// Next returns the next case, with id prefix+index.
func (g *Generator) Next(id string) Case {
	c := Case{ID: id, Destinations: true}
	capp := pick(g, consumerApps...)
	papp := pick(g, providerApps...)
	c.ConsumerURL = g.consumerURL(capp)
	n := 1 + g.intn(6)
	for i := 0; i < n; i++ {
		app := papp
		if i > 0 && g.chance(0.15) {
			app = pick(g, providerApps...)
		}
		c.Providers = append(c.Providers, Provider{ID: "p" + strconv.Itoa(i+1), URL: g.providerURL(app)})
	}
	c.Invocation = g.invocation()
	nr := g.intn(4)
	if g.chance(0.1) {
		nr = 4 + g.intn(3)
	}
	var keys []string
	for i := 0; i < nr; i++ {
		// A later rule for a key already used is a change event (sometimes a delete).
		if len(keys) > 0 && g.chance(0.2) {
			k := pick(g, keys...)
			if g.chance(0.25) {
				c.Rules = append(c.Rules, Rule{Key: ptr(k)})
			} else {
				c.Rules = append(c.Rules, Rule{Key: ptr(k), Content: ptr(g.contentFor(k, capp, papp))})
			}
			continue
		}
		r := g.rule(capp, papp)
		if r.Key != nil {
			keys = append(keys, *r.Key)
		}
		c.Rules = append(c.Rules, r)
	}
	return c
}

func (g *Generator) consumerURL(app string) string {
	q := []string{"application=" + app}
	if g.chance(0.7) {
		q = append(q, "region="+pick(g, regions...))
	}
	if g.chance(0.6) {
		q = append(q, "env="+pick(g, envs...))
	}
	if g.chance(0.1) {
		q = append(q, "dubbo.tag="+pick(g, tagNames...))
	}
	if g.chance(0.05) {
		q = append(q, "dubbo.force.tag="+pick(g, "true", "false"))
	}
	if g.chance(0.1) {
		q = append(q, "zone=my-provider.zone")
	}
	if g.chance(0.05) {
		q = append(q, "version=1.0.0")
	}
	host := pick(g, "127.0.0.1", "10.20.3.3", "192.168.1.10")
	return "consumer://" + host + "/" + Iface + "?" + strings.Join(q, "&")
}

func (g *Generator) providerURL(app string) string {
	host := pick(g, hosts4...)
	if g.LoopbackHosts && g.chance(0.2) {
		host = pick(g, loopHosts...)
	}
	proto := "dubbo"
	if g.chance(0.03) {
		proto = "mock"
	}
	q := []string{"application=" + app, "interface=" + Iface}
	if g.chance(0.6) {
		q = append(q, "region="+pick(g, regions...))
	}
	if g.chance(0.5) {
		q = append(q, "env="+pick(g, envs...))
	}
	if g.chance(0.35) {
		q = append(q, "dubbo.tag="+pick(g, "gray", "blue", "red", "gray|blue", ""))
	}
	if g.chance(0.2) {
		q = append(q, "status="+pick(g, "gray", "normal"))
	}
	if g.chance(0.2) {
		q = append(q, "weight="+pick(g, "100", "200", "0"))
	}
	if g.chance(0.1) {
		q = append(q, "methods="+pick(g, "getFoo,sayHello", "queryAll,queryByName"))
	}
	if g.chance(0.05) {
		q = append(q, "timestamp=1700000000000")
	}
	return fmt.Sprintf("%s://%s:%d/%s?%s", proto, host, pick(g, ports...), Iface, strings.Join(q, "&"))
}

func (g *Generator) invocation() Invocation {
	inv := Invocation{Method: pick(g, methods...), Arguments: []any{}, Attachments: map[string]string{}}
	na := g.intn(4)
	for i := 0; i < na; i++ {
		inv.Arguments = append(inv.Arguments, g.argument())
	}
	if g.chance(0.08) { // generic call: $invoke(method, types, args)
		real := pick(g, methods...)
		types := []any{}
		for range inv.Arguments {
			types = append(types, "java.lang.String")
		}
		inv.Arguments = []any{real, types, inv.Arguments}
		inv.Method = pick(g, "$invoke", "$invokeAsync")
	}
	if g.chance(0.4) {
		inv.Attachments["dubbo.tag"] = pick(g, slices.Concat(tagNames, []string{""})...)
	}
	if g.chance(0.15) {
		inv.Attachments["dubbo.force.tag"] = pick(g, "true", "false", "TRUE", "yes")
	}
	if g.chance(0.4) {
		inv.Attachments["userId"] = pick(g, "1", "42", "100", "101", "500", "abc", "-5", "007")
	}
	if g.chance(0.2) {
		inv.Attachments["foo.bar"] = pick(g, "x", "y")
	}
	if g.chance(0.1) {
		inv.Attachments["user_id"] = pick(g, "7", "250")
	}
	if g.chance(0.03) {
		inv.Attachments["invocation.need.mock"] = pick(g, "true", "false", "maybe")
	}
	return inv
}

func (g *Generator) argument() any {
	switch g.intn(6) {
	case 0:
		return g.intn(300) - 20
	case 1:
		return nil
	case 2:
		return g.chance(0.5)
	default:
		return pick(g, "a", "b", "Dubbo", "Go in Action", "x", "hello*", "42", "")
	}
}

// rule is a new rule of any form.
func (g *Generator) rule(capp, papp string) Rule {
	switch g.intn(10) {
	case 0:
		return Rule{Condition: ptr(g.condition(false)), Force: ptr(g.chance(0.4)), Enabled: ptr(!g.chance(0.1))}
	case 1:
		return Rule{URL: ptr(g.routerURL())}
	case 2, 3:
		k := g.tagKey(papp)
		return Rule{Key: &k, Content: ptr(g.tagRule())}
	default:
		k := g.conditionKey(capp, papp)
		return Rule{Key: &k, Content: ptr(g.conditionRule())}
	}
}

func (g *Generator) contentFor(key, capp, papp string) string {
	if strings.HasSuffix(key, ".tag-router") {
		return g.tagRule()
	}
	return g.conditionRule()
}

func (g *Generator) tagKey(papp string) string {
	if g.chance(0.1) {
		return "other-app.tag-router"
	}
	return papp + ".tag-router"
}

func (g *Generator) conditionKey(capp, papp string) string {
	switch g.intn(10) {
	case 0, 1, 2, 3:
		return Iface + "::.condition-router"
	case 4, 5:
		return capp + ".condition-router"
	case 6, 7:
		return papp + ".condition-router"
	case 8:
		return Iface + ":1.0.0:.condition-router"
	default:
		return pick(g, "other-app.condition-router", "com.foo.Other::.condition-router")
	}
}

func (g *Generator) routerURL() string {
	q := url.Values{}
	q.Set("category", "routers")
	q.Set("dynamic", "false")
	if g.chance(0.5) {
		q.Set("force", strconv.FormatBool(g.chance(0.5)))
	}
	if g.chance(0.3) {
		q.Set("enabled", strconv.FormatBool(!g.chance(0.3)))
	}
	q.Set("rule", g.condition(false))
	proto := "condition"
	if g.chance(0.3) {
		proto = "route"
		q.Set("router", "condition")
	}
	return proto + "://0.0.0.0/" + Iface + "?" + q.Encode()
}

// yamlStr renders s as a YAML scalar: plain when that is certainly safe,
// else double-quoted (JSON strings are YAML double-quoted scalars).
func (g *Generator) yamlStr(s string) string {
	safe := s != "" && !strings.ContainsAny(s[:1], "*&!=%@`|>[]{},?:#-'\"$~ ") &&
		!strings.Contains(s, ": ") && !strings.Contains(s, " #") && !strings.HasSuffix(s, ":") &&
		s != "true" && s != "false" && s != "null" && s != "~"
	if safe && g.chance(0.5) {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return s
		}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func (g *Generator) conditionRule() string {
	if g.chance(0.3) {
		return g.conditionRuleV31()
	}
	var b strings.Builder
	switch g.intn(12) {
	case 0:
		b.WriteString("configVersion: v3.0\n")
	case 1:
		b.WriteString("configVersion: " + pick(g, "V3.0", "v2.7", "v10", "v3.2", "v4.0", "3.1", "v3.0.1") + "\n")
	}
	if g.chance(0.5) {
		b.WriteString("scope: " + pick(g, "service", "application") + "\nkey: " + Iface + "\n")
	}
	if g.chance(0.8) {
		b.WriteString("force: " + pick(g, "true", "false", "True", "yes") + "\n")
	}
	if g.chance(0.5) {
		b.WriteString("enabled: " + pick(g, "true", "true", "false") + "\n")
	}
	if g.chance(0.2) {
		b.WriteString("runtime: true\n")
	}
	if g.chance(0.1) {
		b.WriteString("priority: " + pick(g, "1", "5", "high") + "\n")
	}
	n := 1 + g.intn(3)
	if g.chance(0.04) {
		n = 0
	}
	if n == 0 {
		// No conditions: invalid, Java keeps the previous rule. (Empty
		// content is not generated: see testdata/known-divergences.jsonl.)
		b.WriteString(pick(g, "conditions: []\n", "runtime: false\n"))
		return b.String()
	}
	if n > 0 {
		b.WriteString("conditions:\n")
	}
	for i := 0; i < n; i++ {
		b.WriteString("  - " + g.yamlStr(g.condition(false)) + "\n")
	}
	return b.String()
}

func (g *Generator) conditionRuleV31() string {
	var b strings.Builder
	b.WriteString("configVersion: " + pick(g, "v3.1", "v3.1", "V3.1") + "\n")
	if g.chance(0.4) {
		b.WriteString("scope: service\nkey: " + Iface + "\n")
	}
	if g.chance(0.7) {
		b.WriteString("force: " + pick(g, "true", "false") + "\n")
	}
	if g.chance(0.3) {
		b.WriteString("enabled: " + pick(g, "true", "false") + "\n")
	}
	n := 1 + g.intn(2)
	b.WriteString("conditions:\n")
	for i := 0; i < n; i++ {
		first := true
		item := func(s string) {
			if first {
				b.WriteString("  - " + s + "\n")
				first = false
			} else {
				b.WriteString("    " + s + "\n")
			}
		}
		switch g.intn(8) {
		case 0: // no from
		case 1:
			item("from:")
		default:
			item("from:")
			b.WriteString("      match: " + g.yamlStr(g.part(true)) + "\n")
		}
		switch g.intn(10) {
		case 0: // no to: traffic disabled
			if first {
				item("from:")
				b.WriteString("      match: " + g.yamlStr(g.part(true)) + "\n")
			}
		case 1:
			item("to: []")
		default:
			item("to:")
			nd := 1 + g.intn(3)
			for d := 0; d < nd; d++ {
				dfirst := true
				dline := func(s string) {
					if dfirst {
						b.WriteString("      - " + s + "\n")
						dfirst = false
					} else {
						b.WriteString("        " + s + "\n")
					}
				}
				switch g.intn(10) {
				case 0:
					dline("match: " + pick(g, `""`, "false", `"false"`))
				case 1: // no match
				case 2, 3, 4, 5: // simple, often non-empty subsets: weighted draws happen
					dline("match: " + g.yamlStr(pick(g, "region=hangzhou", "env=gray", "env!=gray", "port=20880", "host=10.0.0.*", "region=beijing,shanghai", "status=gray")))
				default:
					dline("match: " + g.yamlStr(g.part(false)))
				}
				if g.chance(0.7) {
					w := pick(g, "100", "900", "1", "3", "0", "-5", "50", `"200"`, "1.5", "abc")
					if g.chance(0.85) {
						w = pick(g, "100", "900", "1", "3", "0", "-5", "50", `"200"`)
					}
					dline("weight: " + w)
				}
				if dfirst {
					dline("weight: 100")
				}
			}
		}
	}
	return b.String()
}

func (g *Generator) tagRule() string {
	var b strings.Builder
	version := ""
	switch g.intn(4) {
	case 0:
		version = "v3.0"
	case 1:
		version = pick(g, "v3.1", "V3.0")
	}
	if version != "" {
		b.WriteString("configVersion: " + version + "\n")
	}
	if g.chance(0.7) {
		b.WriteString("force: " + pick(g, "true", "false", "false") + "\n")
	}
	if g.chance(0.5) {
		b.WriteString("enabled: " + pick(g, "true", "true", "false") + "\n")
	}
	if g.chance(0.3) {
		b.WriteString("runtime: true\nkey: prov-a\n")
	}
	n := 1 + g.intn(3)
	if g.chance(0.04) {
		b.WriteString("tags: []\n")
		return b.String()
	}
	b.WriteString("tags:\n")
	for i := 0; i < n; i++ {
		name := pick(g, "gray", "gray", "blue", "red", "gray|blue", "gray|blue|green", "green")
		b.WriteString("  - name: " + g.yamlStr(name) + "\n")
		switch g.intn(5) {
		case 0, 1, 2:
			na := 1 + g.intn(3)
			var as []string
			for j := 0; j < na; j++ {
				a, _ := json.Marshal(g.addressPattern())
				as = append(as, string(a))
			}
			b.WriteString("    addresses: [" + strings.Join(as, ", ") + "]\n")
			if g.chance(0.1) {
				b.WriteString(g.tagMatch())
			}
		case 3:
			b.WriteString(g.tagMatch())
		default:
			if g.chance(0.5) {
				b.WriteString("    addresses: []\n")
			}
		}
	}
	return b.String()
}

func (g *Generator) tagMatch() string {
	var b strings.Builder
	b.WriteString("    match:\n")
	n := 1 + g.intn(2)
	for i := 0; i < n; i++ {
		key := pick(g, "env", "region", "status", "nokey", "application")
		b.WriteString("      - key: " + key + "\n")
		if g.chance(0.05) {
			continue // no value: never matches
		}
		b.WriteString("        value:\n")
		switch g.intn(6) {
		case 0:
			b.WriteString("          exact: " + pick(g, "gray", "prod", "hangzhou", "prov-a") + "\n")
		case 1:
			b.WriteString("          prefix: " + pick(g, "gr", "hang", "pro") + "\n")
		case 2:
			b.WriteString("          regex: " + g.yamlStr(pick(g, "gr.*", "(gray|prod)", "h.*u", "b")) + "\n")
		case 3:
			b.WriteString("          wildcard: " + g.yamlStr(pick(g, "*", "gray", "gr*")) + "\n")
		case 4:
			b.WriteString("          empty: " + g.yamlStr(pick(g, "true", "x")) + "\n")
		default:
			b.WriteString("          noempty: " + g.yamlStr(pick(g, "true", "x")) + "\n")
		}
	}
	return b.String()
}

// addressPattern is a tag address pattern Java can match (patterns that can
// never match are a documented divergence: dubboroute rejects them).
func (g *Generator) addressPattern() string {
	h := pick(g, hosts4...)
	p := strconv.Itoa(pick(g, ports...))
	switch g.intn(11) {
	case 0:
		return h
	case 1, 2:
		return h + ":" + p
	case 3:
		return pick(g, "*", "*.*.*.*")
	case 4:
		return pick(g, "10.0.0.*", "10.20.3.*", "10.0.*.*", "192.168.1.*")
	case 5:
		return pick(g, "10.0.0.1-2", "10.20.3.3-4", "10.0.0.2-3:"+p, "10.0-1.*.*")
	case 6:
		return pick(g, "10.0.0.*:"+p, "*.*.*.*:"+p)
	case 7:
		return pick(g, "10.0.0.0/30", "10.20.0.0/16", "192.168.1.10/32", "10.0.0.0/8", "127.0.0.0/8")
	case 8, 9:
		return "0.0.0.0:" + p
	default:
		return pick(g, "10.9.9.9", "10.9.9.9:20880")
	}
}

// condition is one condition string: when => then, then-only, blacklists,
// and now and then a malformed one (which rejects the whole rule).
func (g *Generator) condition(_ bool) string {
	if g.chance(0.03) {
		return pick(g, "a==b => c=d", "=a => b=c", "method=x => ,b", "a=!b => c=d", "a,b=c => d=e", "method=get => region=!x", "  ")
	}
	arrow := pick(g, " => ", "=>", " =>  ", " => ")
	switch g.intn(20) {
	case 0:
		return g.part(false) // no "=>": then only
	case 1:
		return "=>"
	case 2:
		return g.part(true) + " =>" // blacklist
	case 3:
		return g.part(true) + arrow + "false"
	case 4:
		return "true" + arrow + g.part(false)
	case 5:
		return "=> " + g.part(false)
	}
	return g.part(true) + arrow + g.part(false)
}

// part is a when-part (when) or then-part (!when) of a condition.
func (g *Generator) part(when bool) string {
	n := 1 + g.intn(3)
	var b strings.Builder
	if g.chance(0.03) {
		b.WriteString("&")
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(pick(g, " & ", "&", " ", "  &  "))
		}
		b.WriteString(g.term(when))
	}
	if g.chance(0.03) {
		b.WriteString("&")
	}
	return b.String()
}

func (g *Generator) term(when bool) string {
	key := g.key(when)
	if g.chance(0.03) {
		return key // bare key: never matches (3.2+)
	}
	op := pick(g, "=", "=", "!=", " = ", " != ")
	if g.chance(0.02) {
		op = "= ="
	}
	n := 1
	if g.chance(0.25) {
		n = 2 + g.intn(2)
	}
	vals := make([]string, n)
	for i := range vals {
		vals[i] = g.value(key, when)
	}
	sep := pick(g, ",", ", ", " , ")
	t := key + op + strings.Join(vals, sep)
	if g.chance(0.05) { // both = and != on the same key
		t += " " + pick(g, "!=", "=") + g.value(key, when)
	}
	return t
}

func (g *Generator) key(when bool) string {
	if when {
		switch g.intn(16) {
		case 0, 1, 2:
			return "method"
		case 3, 4:
			return "arguments[" + strconv.Itoa(g.intn(4)) + "]"
		case 5:
			return pick(g, "arguments", "arguments[0].name", "arguments[x]")
		case 6, 7:
			return "attachments[" + pick(g, "userId", "userId", "user_id", "dubbo.tag", "foo.bar", "foo", "") + "]"
		case 8:
			return pick(g, "host", "address")
		case 9:
			return pick(g, "application", "consumer.application")
		case 10, 11:
			return pick(g, "region", "consumer.region", "env")
		case 12:
			return pick(g, "port", "protocol", "methods", "zone")
		case 13:
			return pick(g, "nokey", "version")
		default:
			return pick(g, "region", "env", "method")
		}
	}
	switch g.intn(16) {
	case 0, 1, 2:
		return pick(g, "host", "address")
	case 3, 4:
		return "port"
	case 5, 6:
		return pick(g, "region", "provider.region")
	case 7, 8:
		return "env"
	case 9:
		return pick(g, "application", "dubbo.tag")
	case 10:
		return pick(g, "status", "weight", "protocol")
	case 11:
		return pick(g, "method", "arguments[0]", "attachments[userId]")
	case 12:
		// Not "timestamp" or "pid": Java strips them from provider URLs
		// (testdata/known-divergences.jsonl, known-timestamp-then-part).
		return pick(g, "nokey", "methods", "side")
	default:
		return pick(g, "region", "env", "host")
	}
}

func (g *Generator) value(key string, when bool) string {
	r := g.intn(20)
	switch {
	case r == 0:
		return "*"
	case r == 1:
		return pick(g, "$region", "$env", "$host", "$port", "$application", "$address", "$protocol", "$nokey", "$zone")
	case r == 2:
		return pick(g, "1~100", "~50", "101~", "~", "a~b", "5~3", "1~2~3", "-1~5", "100~101", "0~0", "20880~20881", "~20880")
	case r == 3:
		return pick(g, "*a*", "**", "h*u", "hang*", "*zhou", "10.*", "*:20880", "10.20.*:2088*", "ab*ba", "*.*")
	case r == 4:
		return pick(g, "my-provider.zone", "consumer.x", "prov-consumer.a")
	}
	k := strings.TrimPrefix(strings.TrimPrefix(key, "consumer."), "provider.")
	switch {
	case k == "method":
		return pick(g, slices.Concat(methods, []string{"get*", "*Foo", "$invoke"})...)
	case strings.HasPrefix(k, "arguments"):
		return pick(g, "a", "b", "Dubbo", "42", "0", "null", "true", "dubbo_internal_not_found_argument_condition_value", "1~100", "sayHello")
	case strings.HasPrefix(k, "attachments"):
		return pick(g, "1", "42", "100", "101", "500", "abc", "x", "gray", "7")
	case k == "host":
		if when {
			return pick(g, "127.0.0.1", "10.20.3.3", "192.168.1.10", "10.*")
		}
		return pick(g, hosts4...)
	case k == "address":
		if when {
			return pick(g, "127.0.0.1", "10.20.3.3", "127.0.0.1:0")
		}
		return pick(g, "10.0.0.1:20880", "10.20.3.3:20881", "*:20880", "*:20881", "10.0.0.*", "0.0.0.0:20880")
	case k == "port":
		return pick(g, "20880", "20881", "20882", "0", "2088*")
	case k == "region":
		return pick(g, regions...)
	case k == "env":
		return pick(g, envs...)
	case k == "application":
		return pick(g, "cons-app", "demo-consumer", "prov-a", "prov-b")
	case k == "dubbo.tag":
		return pick(g, "gray", "blue", "")
	case k == "status":
		return pick(g, "gray", "normal")
	case k == "weight":
		return pick(g, "100", "200", "0")
	case k == "protocol":
		return pick(g, "dubbo", "consumer", "mock")
	case k == "zone":
		return pick(g, "my-zone", "my-provider.zone")
	}
	return pick(g, "x", "gray", "1.0.0", "hangzhou")
}
