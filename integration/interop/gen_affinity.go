package interop

import (
	"strconv"
	"strings"
)

// NextAffinity returns an affinity case (issue 12): Java's service affinity
// router (registered explicitly, as Java 3.3.6 does not) with rules over
// region/env/zone/host keys, ratios around the share of affine providers,
// invalid and rejected rules, updates and deletes, and condition or tag
// rules in the same chain.
func (g *Generator) NextAffinity(id string) Case {
	c := Case{ID: id, Destinations: true, Affinity: !g.chance(0.08)}
	capp := pick(g, consumerApps...)
	q := []string{"application=" + capp, "interface=" + Iface}
	if g.chance(0.85) {
		q = append(q, "region="+pick(g, "hz", "sh", "bj", "h*", "x", "hz,sh", "$zone"))
	}
	if g.chance(0.5) {
		q = append(q, "env="+pick(g, envs...))
	}
	if g.chance(0.3) {
		q = append(q, "zone="+pick(g, "hz", "z1"))
	}
	if g.chance(0.1) {
		q = append(q, "version=1.0.0")
	}
	c.ConsumerURL = "consumer://10.20.3.3/" + Iface + "?" + strings.Join(q, "&")
	n := 1 + g.intn(8)
	for i := 0; i < n; i++ {
		pq := []string{"application=" + pick(g, providerApps...), "interface=" + Iface}
		if g.chance(0.8) {
			pq = append(pq, "region="+pick(g, "hz", "hz", "sh", "bj", "x"))
		}
		if g.chance(0.5) {
			pq = append(pq, "env="+pick(g, envs...))
		}
		if g.chance(0.2) {
			pq = append(pq, "dubbo.tag="+pick(g, "gray", "blue"))
		}
		c.Providers = append(c.Providers, Provider{ID: "p" + strconv.Itoa(i+1),
			URL: "dubbo://" + pick(g, hosts4...) + ":" + strconv.Itoa(pick(g, ports...)) + "/" + Iface + "?" + strings.Join(pq, "&")})
	}
	c.Invocation = g.invocation()
	key := Iface + "::.affinity-router"
	if g.chance(0.05) {
		key = Iface + ":1.0.0:.affinity-router"
	}
	c.Rules = append(c.Rules, Rule{Key: ptr(key), Content: ptr(g.affinityRule())})
	for g.chance(0.3) {
		if g.chance(0.25) {
			c.Rules = append(c.Rules, Rule{Key: ptr(key)})
		} else {
			c.Rules = append(c.Rules, Rule{Key: ptr(key), Content: ptr(g.affinityRule())})
		}
	}
	if papp := urlApp(c.Providers[0].URL); papp != "" && g.chance(0.25) {
		c.Rules = append(c.Rules, g.rule(capp, papp))
	}
	return c
}

func (g *Generator) affinityRule() string {
	var b strings.Builder
	switch g.intn(20) {
	case 0: // no configVersion: Java throws
	case 1:
		b.WriteString("configVersion: v3.0\n")
	case 2:
		b.WriteString("configVersion: 3.1\n") // not a string: Java's cast throws
	default:
		b.WriteString("configVersion: v3.1\n")
	}
	b.WriteString("scope: service\nkey: " + Iface + "\n")
	if g.chance(0.15) {
		b.WriteString("enabled: " + pick(g, "true", "false") + "\n")
	}
	if g.chance(0.05) {
		b.WriteString("valid: false\n")
	}
	if g.chance(0.05) {
		b.WriteString("priority: " + pick(g, "1", "x") + "\n")
	}
	if g.chance(0.04) {
		return b.String() // no affinityAware: Java throws
	}
	b.WriteString("affinityAware:\n")
	switch g.intn(20) {
	case 0: // no key: invalid
	case 1:
		b.WriteString("  key: ''\n")
	case 2:
		b.WriteString("  key: 12\n") // not a string: Java's cast throws
	default:
		b.WriteString("  key: " + pick(g, "region", "region", "region", "env", "zone", "host", "nokey") + "\n")
	}
	if g.chance(0.9) {
		b.WriteString("  ratio: " + pick(g, "0", "10", "20", "25", "26", "33.3", "50", "60", "75", "100", "0.0", "'40'", "120", "-1", "abc") + "\n")
	}
	return b.String()
}
