package condition

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// The naive reference: no compilation, no sets. Per call it evaluates the
// when-part against the consumer URL and the call and filters every provider
// with straightforward code, the way Java's doRoute reads.

var (
	naiveAttRe = regexp.MustCompile(`attachments\[(.+)\]`)
	naiveArgRe = regexp.MustCompile(`arguments\[([0-9]+)\]`)
	naiveNumRe = regexp.MustCompile(`^[0-9]+$`)
)

func naiveValue(key string, u *router.URL, call *router.Call, when bool) (string, bool) {
	head := strings.Split(key, ".")[0]
	if strings.HasPrefix(key, "attachments") {
		m := naiveAttRe.FindStringSubmatch(head)
		if m == nil || !when {
			return NotFoundValue, true
		}
		return call.Attachment(m[1])
	}
	if strings.HasPrefix(key, "arguments") {
		m := naiveArgRe.FindStringSubmatch(head)
		if m == nil || !when {
			return NotFoundValue, true
		}
		idx, err := strconv.ParseInt(m[1], 10, 32)
		if err != nil || int(idx) >= len(call.Args) {
			return NotFoundValue, true
		}
		switch a := call.Args[idx].(type) {
		case nil:
			return "null", true
		case string:
			return a, true
		case int:
			return fmt.Sprint(a), true
		case bool:
			return fmt.Sprint(a), true
		}
		return ArgumentString(call.Args[idx]), true
	}
	if when && (key == "method" || key == "methods") {
		return call.Method, true
	}
	return u.Get(key)
}

func naiveInt(s string) (int64, error) {
	if !naiveNumRe.MatchString(s) {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > 1<<31-1 {
		return 0, fmt.Errorf("overflow")
	}
	return n, nil
}

func naivePattern(p, v string, when bool, ref *router.URL) bool {
	if strings.Contains(p, "~") {
		parts := strings.Split(p, "~")
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		val, err := naiveInt(v)
		if err != nil || len(parts) < 2 || (parts[0] == "" && parts[1] == "") {
			return !when
		}
		if parts[0] != "" {
			lo, err := naiveInt(parts[0])
			if err != nil {
				return !when
			}
			if val < lo {
				return false
			}
		}
		if parts[1] != "" {
			hi, err := naiveInt(parts[1])
			if err != nil {
				return !when
			}
			if val > hi {
				return false
			}
		}
		return true
	}
	null := false
	if ref != nil && strings.HasPrefix(p, "$") {
		var ok bool
		p, ok = ref.RawParameter(p[1:])
		null = !ok
	}
	if p == "*" {
		return true
	}
	if null || p == "" {
		return v == ""
	}
	if v == "" {
		return false
	}
	i := strings.LastIndex(p, "*")
	switch {
	case i == -1:
		return v == p
	case i == len(p)-1:
		return strings.HasPrefix(v, p[:i])
	case i == 0:
		return strings.HasSuffix(v, p[1:])
	}
	return strings.HasPrefix(v, p[:i]) && strings.HasSuffix(v, p[i+1:])
}

func naiveTerm(t Term, u *router.URL, ref *router.URL, call *router.Call, when bool) bool {
	v, ok := naiveValue(t.Key, u, call, when)
	if !ok {
		return false
	}
	anyOf := func(ps []string) bool {
		for _, p := range ps {
			if naivePattern(p, v, when, ref) {
				return true
			}
		}
		return false
	}
	switch {
	case len(t.Match) > 0 && len(t.Mismatch) == 0:
		return anyOf(t.Match)
	case len(t.Mismatch) > 0 && len(t.Match) == 0:
		return !anyOf(t.Mismatch)
	case len(t.Match) > 0:
		return !anyOf(t.Mismatch) && anyOf(t.Match)
	}
	return false
}

func naivePart(p *Part, u, ref *router.URL, call *router.Call, when bool) bool {
	for _, t := range p.Terms {
		if !naiveTerm(t, u, ref, call, when) {
			return false
		}
	}
	return true
}

// naiveRoute returns provider indexes; draw is the value the Rand returns.
func naiveRoute(r *Rule, cons *router.URL, provs []*router.URL, in []int, call *router.Call, draw uint64) []int {
	if !r.Enabled {
		return in
	}
	for _, c := range r.Conditions {
		if len(in) == 0 {
			return in
		}
		if c.When != nil && len(c.When.Terms) > 0 && !naivePart(c.When, cons, nil, call, true) {
			continue
		}
		if r.Version == V31 {
			if len(c.Targets) == 0 {
				return nil
			}
			var dests [][]int
			var ws []int64
			var total int64
			for _, tg := range c.Targets {
				var sub []int
				for _, i := range in {
					if tg.Then == nil || len(tg.Then.Terms) == 0 || naivePart(tg.Then, provs[i], cons, nil, false) {
						sub = append(sub, i)
					}
				}
				if len(sub) > 0 {
					dests, ws = append(dests, sub), append(ws, tg.Weight)
					total += tg.Weight
				}
			}
			switch {
			case len(dests) == 1:
				in = dests[0]
			case len(dests) > 1:
				rv := int64(draw % uint64(total))
				for i := range dests { // Java's DestinationSet.randDestination
					rv -= ws[i]
					if rv <= 0 {
						in = dests[i]
						break
					}
				}
			case r.Force:
				return nil
			}
			continue
		}
		if c.Then == nil {
			return nil
		}
		var res []int
		for _, i := range in {
			if len(c.Then.Terms) > 0 && naivePart(c.Then, provs[i], cons, nil, false) {
				res = append(res, i)
			}
		}
		if len(res) > 0 {
			in = res
		} else if r.Force {
			return nil
		}
	}
	return in
}

// The random generator.

var (
	genKeys = []string{"host", "port", "address", "protocol", "application", "region", "env", "path", "method", "methods",
		"arguments[0]", "arguments[1]", "arguments[3]", "arguments", "arguments[0].x", "attachments[user]", "attachments[a.b]",
		"attachments[]", "attachments[tag]", "version", "consumer.region", "provider.env"}
	genValues = []string{"hangzhou", "beijing", "127.0.0.1", "10.20.*", "*:20880", "*", "hang*", "*jing", "*a*g", "1~100", "~50",
		"10~", "~", "0~0", "5~~9", "$region", "$host", "$port", "$nosuch", "$env", "0", "20880", "prov-a", "prov-*", "null", "true",
		"gray", "blue", "getFoo", "sayHello", "a", "7", "42", NotFoundValue, "my-provider.zone", "1.0", "-5", "99999999999"}
	genSeps = []string{" & ", "&", " ", "  "}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func genPart(r *rand.Rand, maxTerms int) string {
	var b strings.Builder
	n := 1 + r.IntN(maxTerms)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(pick(r, genSeps))
		}
		b.WriteString(pick(r, genKeys))
		if r.IntN(12) == 0 {
			continue // bare key
		}
		op := " = "
		if r.IntN(3) == 0 {
			op = "!="
		}
		b.WriteString(op)
		nv := 1 + r.IntN(3)
		for j := 0; j < nv; j++ {
			if j > 0 {
				b.WriteString(pick(r, []string{",", " , "}))
			}
			b.WriteString(pick(r, genValues))
		}
		if r.IntN(8) == 0 {
			b.WriteString(pick(r, []string{" = ", "!="}) + pick(r, genValues))
		}
	}
	return b.String()
}

func genCondition(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return "=> " + genPart(r, 2)
	case 1:
		return genPart(r, 2) + " =>"
	case 2:
		return genPart(r, 2)
	case 3:
		return "true => " + genPart(r, 2)
	}
	return genPart(r, 2) + " => " + genPart(r, 3)
}

func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func genRule(r *rand.Rand) (string, bool) {
	var b strings.Builder
	v31 := r.IntN(3) == 0
	if v31 {
		b.WriteString("configVersion: v3.1\n")
	}
	fmt.Fprintf(&b, "force: %t\nenabled: %t\nconditions:\n", r.IntN(2) == 0, r.IntN(8) != 0)
	nc := 1 + r.IntN(3)
	for i := 0; i < nc; i++ {
		if !v31 {
			fmt.Fprintf(&b, "  - %s\n", yamlQuote(genCondition(r)))
			continue
		}
		b.WriteString("  - from:\n")
		if r.IntN(3) != 0 {
			fmt.Fprintf(&b, "      match: %s\n", yamlQuote(genPart(r, 2)))
		}
		nt := r.IntN(4)
		if nt == 0 && r.IntN(2) == 0 {
			continue
		}
		b.WriteString("    to:\n")
		if nt == 0 {
			b.WriteString("      []\n")
		}
		for j := 0; j < nt; j++ {
			m := genPart(r, 2)
			if r.IntN(6) == 0 {
				m = pick(r, []string{"", "false", "&"})
			}
			fmt.Fprintf(&b, "      - match: %s\n", yamlQuote(m))
			if r.IntN(4) != 0 {
				fmt.Fprintf(&b, "        weight: %d\n", r.IntN(12)-2)
			}
		}
	}
	return b.String(), v31
}

func genURL(r *rand.Rand, consumer bool) string {
	var b strings.Builder
	if consumer {
		b.WriteString("consumer://" + pick(r, []string{"127.0.0.1", "10.20.3.3", "192.168.0.9"}) + "/com.foo.BarService?")
	} else {
		fmt.Fprintf(&b, "%s://%s:%s/com.foo.BarService?", pick(r, []string{"dubbo", "tri"}),
			pick(r, []string{"127.0.0.1", "10.20.3.3", "10.20.3.4", "10.0.0.1"}), pick(r, []string{"20880", "20881", "20882"}))
	}
	params := map[string][]string{"application": {"prov-a", "prov-b", "cons-app"}, "region": {"hangzhou", "beijing", "", "my-zone", "1~100"},
		"env": {"gray", "blue", "*"}, "version": {"1.0", "2.0"}, "methods": {"findFoo,getFoo", "sayHello"}, "port": {"7"}}
	first := true
	for _, k := range []string{"application", "region", "env", "version", "methods", "port"} {
		if r.IntN(3) == 0 {
			continue
		}
		if !first {
			b.WriteString("&")
		}
		first = false
		b.WriteString(k + "=" + pick(r, params[k]))
	}
	return b.String()
}

func genCall(r *rand.Rand) *router.Call {
	c := &router.Call{Method: pick(r, []string{"getFoo", "sayHello", "findFoo", ""})}
	na := r.IntN(4)
	for i := 0; i < na; i++ {
		c.Args = append(c.Args, pick(r, []any{"a", "hangzhou", 7, 42, nil, true, "0", 1.0, "99999999999", NotFoundValue}))
	}
	if r.IntN(4) != 0 {
		att := router.AttachmentMap{}
		for _, k := range []string{"user", "a.b", "a", "tag"} {
			if r.IntN(2) == 0 {
				att[k] = pick(r, []string{"hangzhou", "7", "50", "a", "gray", "", "-5"})
			}
		}
		c.Attachments = att
	}
	return c
}

// TestCompiledAgreesWithNaiveReference routes at least 100,000 random
// (rule, consumer, providers, call) cases both ways and demands equal
// results. Outside -short it runs more.
func TestCompiledAgreesWithNaiveReference(t *testing.T) {
	rules, calls := 10000, 10
	if !testing.Short() {
		rules = 12000
	}
	rng := rand.New(rand.NewPCG(20240611, uint64(rules)))
	universes := map[int]*router.Universe{}
	cases, accepted := 0, 0
	for k := 0; k < rules; k++ {
		yml, _ := genRule(rng)
		rule, err := ParseRule(yml)
		if err != nil {
			continue
		}
		accepted++
		n := 1 + rng.IntN(10)
		provs := make([]*router.URL, n)
		for i := range provs {
			provs[i] = router.MustParseURL(genURL(rng, false))
		}
		cons := router.MustParseURL(genURL(rng, true))
		u := universes[n]
		if u == nil {
			u = router.NewUniverse(n)
			universes[n] = u
		}
		var draw uint64
		c := rule.Compile(u, cons, provs, CompileOptions{Rand: func(m uint64) uint64 { return draw % m }})
		for j := 0; j < calls; j++ {
			call := genCall(rng)
			draw = rng.Uint64()
			var inIdx []int
			for i := 0; i < n; i++ {
				if rng.IntN(5) != 0 {
					inIdx = append(inIdx, i)
				}
			}
			got := c.Route(u.Of(inIdx...), call, nil).AppendMembers(nil)
			want := naiveRoute(rule, cons, provs, inIdx, call, draw)
			if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("case %d disagrees: compiled %v, naive %v\nrule:\n%s\nconsumer %s\nproviders %v\ncall %+v in %v draw %d",
					cases, got, want, yml, cons, provs, call, inIdx, draw)
			}
			cases++
		}
	}
	if cases < 100000 {
		t.Fatalf("only %d cases (%d rules accepted of %d)", cases, accepted, rules)
	}
	t.Logf("%d cases over %d accepted rules", cases, accepted)
}
