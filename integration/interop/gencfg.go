package interop

import (
	"fmt"
	"strings"
)

// NextConfigurators returns a random case with dynamic configuration
// (issue 13): the routing rules of Next plus one to three configurators
// rules under <consumer-app>.configurators and <svc>.configurators (and
// sometimes another application's key), in v2.7, v3.0 (with match), no
// configVersion, or the JSON-array-of-URLs form, with every item field,
// updates, deletes and rules Java fails to parse. The consumer lives on a
// non-loopback host (its IP is what consumer-side items match).
func (g *Generator) NextConfigurators(id string) Case {
	c := g.Next(id)
	c.ConsumerURL = strings.Replace(c.ConsumerURL, "consumer://127.0.0.1/", "consumer://"+pick(g, "10.20.3.3", "192.168.1.10")+"/", 1)
	g.addConfigurators(&c)
	return c
}

// NextConfiguratorsMesh is NextMesh (mesh rules for several provider
// applications, with condition and tag rules) plus configurators, whose
// parameters include the keys the mesh subsets label (ver, env, region,
// trafficLabel): the mesh router must see the configured provider URLs.
func (g *Generator) NextConfiguratorsMesh(id string) Case {
	c := g.NextMesh(id)
	if g.chance(0.7) {
		g.labelWriter(&c, "ver: "+pick(g, meshVersions...), "env: "+pick(g, envs...), "region: hangzhou",
			"trafficLabel: gray", "dubbo.tag: gray", "ver: v2, env: prod", "application: "+pick(g, meshApps...))
	}
	g.addConfigurators(&c)
	return c
}

// NextConfiguratorsAffinity is NextAffinity (Java's service affinity
// router in the chain) plus configurators, which also write the affinity
// keys (region, env, zone) on providers and on the consumer URL.
func (g *Generator) NextConfiguratorsAffinity(id string) Case {
	c := g.NextAffinity(id)
	if g.chance(0.7) {
		g.labelWriter(&c, "region: "+pick(g, "hz", "sh", "bj"), "env: "+pick(g, envs...), "zone: hz")
	}
	g.addConfigurators(&c)
	return c
}

// labelWriter puts a well-formed <consumer-app>.configurators rule first:
// consumer-side items that write one of params on one or two providers
// (the values the mesh subsets or the affinity router look at), sometimes
// disable one, and sometimes write on every provider and on the consumer
// URL itself.
func (g *Generator) labelWriter(c *Case, params ...string) {
	capp := urlApp(c.ConsumerURL)
	var b strings.Builder
	b.WriteString("configVersion: " + pick(g, "v3.0", "v2.7") + "\nscope: application\nkey: " + capp + "\nconfigs:\n")
	n := 1 + g.intn(2)
	for i := 0; i < n; i++ {
		addrs := []string{providerAddr(c, g.intn(len(c.Providers)))}
		if g.chance(0.3) {
			addrs = append(addrs, providerAddr(c, g.intn(len(c.Providers))))
		}
		b.WriteString("- side: consumer\n  providerAddresses: [" + strings.Join(addrs, ", ") + "]\n  parameters: {" + pick(g, params...) + "}\n")
	}
	if g.chance(0.25) {
		b.WriteString("- side: consumer\n  providerAddresses: [" + providerAddr(c, g.intn(len(c.Providers))) + "]\n  parameters: {disabled: true}\n")
	}
	if g.chance(0.3) {
		b.WriteString("- side: consumer\n  parameters: {" + pick(g, params...) + "}\n")
	}
	c.Rules = append([]Rule{{Key: ptr(capp + ".configurators"), Content: ptr(b.String())}}, c.Rules...)
}

// NextConfiguratorsMixed cycles through NextConfigurators (three cases in
// five), NextConfiguratorsMesh and NextConfiguratorsAffinity.
func (g *Generator) NextConfiguratorsMixed(id string) Case {
	g.mixed++
	switch g.mixed % 5 {
	case 3:
		return g.NextConfiguratorsMesh(id)
	case 4:
		return g.NextConfiguratorsAffinity(id)
	}
	return g.NextConfigurators(id)
}

// addConfigurators adds one to three configurators rules to c.
func (g *Generator) addConfigurators(c *Case) {
	// A consumer URL always says side=consumer (Java's configurators throw
	// on a URL without a side).
	if !strings.Contains(c.ConsumerURL, "side=consumer") {
		c.ConsumerURL += "&side=consumer"
	}
	capp := urlApp(c.ConsumerURL)
	papp := urlApp(c.Providers[0].URL)
	if g.chance(0.3) {
		c.RegistryConfigurators = g.registryURLs(c, capp)
	}
	svc := Iface + "::"
	if strings.Contains(c.ConsumerURL, "version=1.0.0") {
		svc = Iface + ":1.0.0:"
	}
	keys := []string{capp + ".configurators", svc + ".configurators"}
	n := 1 + g.intn(3)
	var used []string
	for i := 0; i < n; i++ {
		if len(used) > 0 && g.chance(0.3) {
			k := pick(g, used...)
			switch {
			case g.chance(0.25):
				c.Rules = append(c.Rules, Rule{Key: ptr(k)}) // delete
			case g.chance(0.1):
				c.Rules = append(c.Rules, Rule{Key: ptr(k), Content: ptr("")})
			default:
				c.Rules = append(c.Rules, Rule{Key: ptr(k), Content: ptr(g.configuratorsRule(c, capp, papp))})
			}
			continue
		}
		k := pick(g, keys...)
		if g.chance(0.05) && papp != "" {
			k = papp + ".configurators" // a provider application's key: no consumer reads it (unless it is the consumer's)
		}
		used = append(used, k)
		at := g.intn(len(c.Rules) + 1)
		r := Rule{Key: ptr(k), Content: ptr(g.configuratorsRule(c, capp, papp))}
		c.Rules = append(c.Rules[:at], append([]Rule{r}, c.Rules[at:]...)...)
	}
}

// consumerHost is the host of the case's consumer URL.
func consumerHost(c *Case) string {
	s := strings.TrimPrefix(c.ConsumerURL, "consumer://")
	h, _, _ := strings.Cut(s, "/")
	return h
}

// providerAddr is ip:port of provider i.
func providerAddr(c *Case, i int) string {
	s := c.Providers[i].URL
	_, s, _ = strings.Cut(s, "://")
	a, _, _ := strings.Cut(s, "/")
	return a
}

func (g *Generator) configuratorsRule(c *Case, capp, papp string) string {
	if g.chance(0.06) {
		return g.configuratorURLs(c)
	}
	var b strings.Builder
	cv := pick(g, "v2.7", "v3.0", "v3.0", "", "v3.1")
	if g.chance(0.02) {
		b.WriteString("configVersion: 3.0\n") // a number: Java fails the cast
	} else if cv != "" {
		b.WriteString("configVersion: " + cv + "\n")
	}
	scope := pick(g, "service", "service", "application", "")
	if scope != "" {
		b.WriteString("scope: " + scope + "\n")
	}
	if scope == "application" {
		b.WriteString("key: " + pick(g, capp, capp, papp, "other-app") + "\n")
	} else if !g.chance(0.03) {
		b.WriteString("key: " + g.yamlStr(pick(g, Iface, Iface, Iface+":1.0.0", "g1/"+Iface, Iface+"::", "com.other.Svc")) + "\n")
	}
	if g.chance(0.4) {
		b.WriteString("enabled: " + pick(g, "true", "false", "true") + "\n")
	}
	if g.chance(0.03) {
		return b.String() // no configs: Java fails
	}
	ni := 1 + g.intn(3)
	if g.chance(0.03) {
		b.WriteString("configs: []\n")
		return b.String()
	}
	b.WriteString("configs:\n")
	for i := 0; i < ni; i++ {
		g.configItem(&b, c, capp, scope == "application")
	}
	return b.String()
}

func (g *Generator) configItem(b *strings.Builder, c *Case, capp string, app bool) {
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	if g.chance(0.35) {
		add("type: " + pick(g, "general", "weight", "balancing", "disabled"))
	}
	if g.chance(0.5) {
		add("enabled: " + pick(g, "true", "true", "false"))
	}
	switch {
	case g.chance(0.75):
		add("side: consumer")
	case g.chance(0.5):
		add("side: provider")
	case g.chance(0.5):
		add("side: Consumer")
	case g.chance(0.1):
		add("side: both")
	}
	pi := g.intn(len(c.Providers))
	if g.chance(0.3) {
		add("addresses: [" + pick(g, "0.0.0.0", consumerHost(c), "10.9.9.9", providerAddr(c, pi), `"0.0.0.0"`) + "]")
	}
	if g.chance(0.35) {
		list := []string{providerAddr(c, pi)}
		if g.chance(0.3) {
			list = append(list, providerAddr(c, g.intn(len(c.Providers))))
		}
		if g.chance(0.15) {
			list = []string{pick(g, "0.0.0.0", "0.0.0.0:*", "0.0.0.0:20880", strings.Split(providerAddr(c, pi), ":")[0])}
		}
		add("providerAddresses: [" + strings.Join(list, ", ") + "]")
	}
	if !app && g.chance(0.15) {
		add("applications: [" + pick(g, capp, "other-app") + "]")
	}
	if app && g.chance(0.3) {
		add("services: [" + pick(g, Iface, "com.other.Svc", "g1/"+Iface, Iface+":1.0.0") + "]")
	}
	if g.chance(0.4) {
		if m := g.configMatch(c, capp, pi); m != "" {
			add(m)
		}
	}
	if !g.chance(0.03) {
		var ps []string
		np := 1 + g.intn(2)
		for i := 0; i < np; i++ {
			ps = append(ps, pick(g,
				"weight: "+pick(g, "0", "50", "200", `"50"`, "7"),
				"weight: "+pick(g, "0", "50", "200"),
				"disabled: "+pick(g, "true", "true", "false", `"true"`),
				"enabled: false",
				"timeout: 3000",
				"dubbo.tag: "+pick(g, "gray", "blue"),
				"loadbalance: roundrobin",
				"region: "+pick(g, regions...),
				"region: "+pick(g, "hz", "sh"),
				"ver: "+pick(g, meshVersions...),
				"env: "+pick(g, envs...),
				"trafficLabel: gray",
				"zone: hz",
				methods[g.intn(len(methods))]+".weight: 10",
				"priority: "+pick(g, "1", "5"),
			))
		}
		add("parameters: {" + strings.Join(ps, ", ") + "}")
	}
	if g.chance(0.1) {
		add("__generate_by_cp: true")
	}
	if len(lines) == 0 {
		lines = []string{"side: consumer"}
	}
	for i, l := range lines {
		if i == 0 {
			b.WriteString("- " + l + "\n")
		} else {
			b.WriteString("  " + l + "\n")
		}
	}
}

func (g *Generator) configMatch(c *Case, capp string, pi int) string {
	var parts []string
	if g.chance(0.4) {
		parts = append(parts, "address: {"+pick(g,
			"cird: "+pick(g, "10.20.3.0/24", "192.168.0.0/16", consumerHost(c), "10.20.*.*"),
			"wildcard: "+g.yamlStr(pick(g, "10.20.*", "*", consumerHost(c), "192.168.1.1*")),
			"exact: "+consumerHost(c))+"}")
	}
	if g.chance(0.4) {
		parts = append(parts, "providerAddress: {"+pick(g,
			"exact: "+g.yamlStr(providerAddr(c, pi)),
			"wildcard: "+g.yamlStr(pick(g, "10.0.0.*", "*:20880", providerAddr(c, pi))),
			"cird: "+g.yamlStr(pick(g, "10.0.0.0/24", providerAddr(c, pi))))+"}")
	}
	if g.chance(0.25) {
		parts = append(parts, "app: {oneof: [{exact: "+pick(g, capp, "other-app")+"}]}")
	}
	if g.chance(0.2) {
		parts = append(parts, "service: {oneof: [{"+pick(g, "exact: "+Iface, "prefix: com.foo", "exact: g1/"+Iface)+"}]}")
	}
	if g.chance(0.4) {
		parts = append(parts, fmt.Sprintf("param: [{key: %s, value: {%s}}]",
			pick(g, "application", "side", "weight", "dubbo.tag", "disabled"),
			pick(g, "exact: "+capp, "exact: consumer", "prefix: c", "noempty: x", "empty: x", "regex: "+g.yamlStr("cons.*"), "wildcard: '*'")))
	}
	if g.chance(0.05) {
		parts = append(parts, "address: 10.20.3.3") // cannot bind: Java drops the whole match
	}
	if len(parts) == 0 {
		return ""
	}
	return "match: {" + strings.Join(parts, ", ") + "}"
}

// configuratorURLs is the JSON-array-of-URLs form.
func (g *Generator) configuratorURLs(c *Case) string {
	pi := g.intn(len(c.Providers))
	host := pick(g, "0.0.0.0", consumerHost(c), providerAddr(c, pi))
	q := []string{"category=configurators", pick(g, "disabled=true", "weight=33", "timeout=5")}
	if g.chance(0.5) {
		q = append(q, "side=consumer")
	}
	if g.chance(0.3) {
		q = append(q, "application="+pick(g, urlApp(c.ConsumerURL), "other-app"))
	}
	return `["override://` + host + "/" + Iface + "?" + strings.Join(q, "&") + `"]`
}

// registryURLs are the children of the registry's <interface>/configurators
// node: Dubbo 2.6 override:// (and absent://) URLs with an address (any
// host, a provider's host or ip:port, the consumer's host), the
// interface (or another, or *), parameters to write, and the keys the
// registry and the directory filter on (category, enabled, group,
// version, compatible_config) or the configurators match on (side,
// application, ~ keys, configVersion, priority).
func (g *Generator) registryURLs(c *Case, capp string) []string {
	var out []string
	n := 1 + g.intn(3)
	for i := 0; i < n; i++ {
		pi := g.intn(len(c.Providers))
		host := pick(g, "0.0.0.0", "0.0.0.0", providerAddr(c, pi), providerAddr(c, pi), strings.Split(providerAddr(c, pi), ":")[0], consumerHost(c))
		proto := "override"
		if g.chance(0.12) {
			proto = "absent"
		}
		path := Iface
		if g.chance(0.08) {
			path = pick(g, "*", "com.other.Svc")
		}
		var q []string
		switch {
		case proto == "absent" || g.chance(0.85):
			q = append(q, "category=configurators")
		case g.chance(0.5):
			q = append(q, "category="+pick(g, "routers", "providers", "dynamicconfigurators"))
		}
		np := 1 + g.intn(2)
		for j := 0; j < np; j++ {
			q = append(q, pick(g, "disabled=true", "disabled=true", "disabled=false", "weight="+pick(g, "0", "33", "200"),
				"timeout=5", "dubbo.tag="+pick(g, "gray", "blue"), "ver="+pick(g, meshVersions...), "region="+pick(g, "hz", "sh", "hangzhou"),
				"loadbalance=roundrobin", methods[g.intn(len(methods))]+".weight=10"))
		}
		for _, extra := range []struct {
			p float64
			v string
		}{
			{0.3, "side=" + pick(g, "consumer", "consumer", "provider")},
			{0.15, "application=" + pick(g, capp, "other-app")},
			{0.06, "enabled=" + pick(g, "false", "true")},
			{0.06, "version=1.0.0"},
			{0.05, "group=" + pick(g, "g1", "*")},
			{0.04, "compatible_config=true"},
			{0.2, "dynamic=false"},
			{0.1, "priority=" + pick(g, "1", "5")},
			{0.05, "configVersion=v2.7"},
			{0.05, "~application=" + pick(g, capp, "other-app")},
			{0.05, "anyhost=true"},
		} {
			if g.chance(extra.p) {
				q = append(q, extra.v)
			}
		}
		if g.chance(0.03) {
			q = []string{"anyhost=true"} // no parameter but anyhost: skipped
		}
		out = append(out, proto+"://"+host+"/"+path+"?"+strings.Join(q, "&"))
	}
	return out
}
