package tag

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// Compiled is a tag rule (or its absence) compiled against one provider
// snapshot and one consumer URL: every pool Route can return is an interned
// Set of the snapshot's Universe. It is immutable and safe for concurrent use.
type Compiled struct {
	u    *router.Universe
	rule *Rule

	// dynamic is true when the rule is usable (valid, enabled, has tags).
	dynamic bool
	// ruleForce is the rule's force flag.
	ruleForce bool

	// Request defaults from the consumer URL (Java's url.getParameter).
	consumerTag   string
	consumerForce bool

	untagged *Set            // providers whose dubbo.tag is missing or empty
	static   map[string]*Set // static tag value -> providers carrying it

	// dyn maps every tag name in Java's tag -> addresses map to the providers
	// matching any of its address patterns. A name is present exactly when
	// Java's map holds a non-empty address set for it, even if no provider
	// matches (that is the "A != null, S empty" case).
	dyn map[string]*Set
	// claimedAny is Java's "getAddresses() non-empty": dyn has an entry.
	claimedAny bool
	// claimed is every provider matching an address of any tag in dyn.
	claimed *Set
	// failover is untagged \ claimed: the fallback of a tagged request and
	// the answer to a tagless request.
	failover *Set
}

// Set is router.Set, named here for brevity.
type Set = router.Set

// Compile precomputes the pools of one (rule, providers, consumer) triple.
// providers[i] is member i of u; nil entries count as untagged providers
// without an address. rule == nil (no rule, or it was deleted) and a rule
// that is not Usable give static routing. Compile scans the providers once
// per address pattern and never fails.
func Compile(rule *Rule, u *router.Universe, consumer *router.URL, providers []*router.URL) *Compiled {
	c := &Compiled{u: u, rule: rule, static: map[string]*Set{}}
	if consumer != nil {
		c.consumerTag = consumer.Params[TagKey]
		c.consumerForce = strings.EqualFold(consumer.Params[ForceTagKey], "true")
	}
	n := u.Size()
	provider := func(i int) *router.URL {
		if i < len(providers) {
			return providers[i]
		}
		return nil
	}
	staticTag := func(i int) string {
		if p := provider(i); p != nil {
			return p.Params[TagKey]
		}
		return ""
	}
	c.untagged = u.Build(func(i int) bool { return staticTag(i) == "" })
	members := map[string][]int{}
	for i := 0; i < n; i++ {
		if t := staticTag(i); t != "" {
			members[t] = append(members[t], i)
		}
	}
	for t, idx := range members {
		c.static[t] = u.Of(idx...)
	}
	c.claimed, c.failover = u.None(), c.untagged
	if !rule.Usable() {
		return c
	}
	c.dynamic, c.ruleForce = true, rule.Force

	// Parse every provider host once.
	addrs := make([]netip.Addr, n)
	ports := make([]int, n)
	for i := 0; i < n; i++ {
		if p := provider(i); p != nil {
			h := strings.TrimSuffix(strings.TrimPrefix(p.Host, "["), "]")
			addrs[i], _ = netip.ParseAddr(h) // invalid: matches only "*"
			ports[i] = p.Port
		}
	}
	matching := func(pats []router.AddressPattern) *Set {
		return u.Build(func(i int) bool {
			for _, p := range pats {
				if p.IsAny() || p.MatchAddr(addrs[i], ports[i]) {
					return true
				}
			}
			return false
		})
	}
	c.dyn = map[string]*Set{}
	// Java (TagRouterRule.init): tags with addresses first, in order, the
	// last duplicate name winning; then, for v3.0 rules with providers,
	// tags without addresses by their match, a non-empty result replacing
	// whatever the name had.
	for _, t := range rule.Tags {
		if len(t.Addresses) > 0 {
			c.dyn[t.Name] = matching(t.patterns)
		}
	}
	if rule.matchEnabled() && n > 0 {
		for _, t := range rule.Tags {
			if len(t.Addresses) > 0 || !t.MatchSet {
				continue
			}
			// Java records members by getAddress() and later matches those
			// host:port strings as address patterns, so a provider sharing a
			// member's address is claimed too.
			var pats []router.AddressPattern
			seenAddr := map[string]bool{}
			for i := 0; i < n; i++ {
				p := provider(i)
				if p == nil || !matchAll(t.Match, p.Params) {
					continue
				}
				a := p.Address()
				if seenAddr[a] {
					continue
				}
				seenAddr[a] = true
				// A host Java would not parse as a pattern matches nothing
				// (Java logs and skips it); the zero pattern does that.
				pat, _ := router.ParseAddressPatternWith(a, nil)
				pats = append(pats, pat)
			}
			if len(pats) > 0 {
				c.dyn[t.Name] = matching(pats)
			}
		}
	}
	c.claimedAny = len(c.dyn) > 0
	for _, s := range c.dyn {
		c.claimed = u.Or(c.claimed, s)
	}
	c.failover = u.AndNot(c.untagged, c.claimed)
	return c
}

func matchAll(ms []ParamMatch, params map[string]string) bool {
	for i := range ms {
		if !ms[i].Match(params) {
			return false
		}
	}
	return true
}

// Rule is the rule the pools were compiled from (nil for none).
func (c *Compiled) Rule() *Rule { return c.rule }

// Dynamic reports whether a usable dynamic rule is in force; otherwise the
// router routes by static tags.
func (c *Compiled) Dynamic() bool { return c.dynamic }

// lookup is Java's selectAddressByTagLevel over the precomputed pools:
// with force, or without '|', the tag itself; otherwise a|b|c, a|b, a (after
// Java's split drops trailing empty levels). Every map entry has a non-empty
// address set in the rule, which is what Java's "first non-empty" tests; it
// is not about which providers those addresses match. It returns the name
// found and its pool; ok is false when the rule does not know the tag.
func (c *Compiled) lookup(tag string, force bool) (name string, pool *Set, ok bool) {
	if force || strings.IndexByte(tag, '|') < 0 {
		pool, ok = c.dyn[tag]
		return tag, pool, ok
	}
	t := strings.TrimRight(tag, "|")
	if t == "" {
		return "", nil, false
	}
	for {
		if pool, ok = c.dyn[t]; ok {
			return t, pool, true
		}
		i := strings.LastIndexByte(t, '|')
		if i < 0 {
			return "", nil, false
		}
		t = t[:i]
	}
}

// Route returns the subset of in that Java's TagStateRouter.doRoute would
// return for the call (spec §6.3), recording the branch in step when it is
// not nil. The request tag is the dubbo.tag attachment, else the consumer
// URL's; the request force is a non-empty dubbo.force.tag attachment, else
// the consumer URL's, and only "true" in any case counts. "Non-empty" tests
// refer to members of in, as Java tests the invoker list it was given.
// Route does not allocate when step is nil.
func (c *Compiled) Route(in *Set, call *router.Call, step *router.Step) *Set {
	if in.Empty() {
		if step != nil {
			step.Branch = router.BranchEmptyInput
		}
		return in
	}
	tag, _ := call.Attachment(TagKey)
	if tag == "" {
		tag = c.consumerTag
	}
	force := c.consumerForce
	if v, _ := call.Attachment(ForceTagKey); v != "" {
		force = strings.EqualFold(v, "true")
	}
	u := c.u
	if !c.dynamic {
		if tag == "" {
			out := u.And(in, c.untagged)
			if step != nil {
				step.Branch = router.BranchTagless
				step.Detail = fmt.Sprintf("static routing (%s); request without tag: %d untagged", c.whyStatic(), out.Len())
			}
			return out
		}
		pool := c.static[tag]
		if pool == nil {
			pool = u.None()
		}
		out := u.And(in, pool)
		switch {
		case !out.Empty():
			if step != nil {
				step.Branch = router.BranchStatic
				step.Detail = fmt.Sprintf("static routing (%s); tag %q: %d providers tagged", c.whyStatic(), tag, out.Len())
			}
			return out
		case force:
			if step != nil {
				step.Branch = router.BranchStaticForcedEmpty
				step.Detail = fmt.Sprintf("static routing (%s); tag %q: no provider tagged, dubbo.force.tag=true", c.whyStatic(), tag)
			}
			return out
		}
		out = u.And(in, c.untagged)
		if step != nil {
			step.Branch = router.BranchStaticFallback
			step.Detail = fmt.Sprintf("static routing (%s); tag %q: no provider tagged, %d untagged", c.whyStatic(), tag, out.Len())
		}
		return out
	}

	if tag == "" {
		out := u.And(in, c.failover)
		if step != nil {
			step.Branch = router.BranchTagless
			unclaimed := u.AndNot(in, c.claimed)
			if c.claimedAny && unclaimed.Empty() {
				step.Detail = fmt.Sprintf("request without tag: every one of %d providers is claimed by a dynamic tag, no failover", in.Len())
			} else {
				step.Detail = fmt.Sprintf("request without tag: %d unclaimed, %d of them untagged", unclaimed.Len(), out.Len())
			}
		}
		return out
	}
	name, pool, found := c.lookup(tag, force)
	var out *Set
	if found {
		out = u.And(in, pool)
		if !out.Empty() {
			if step != nil {
				step.Branch = router.BranchDynamicHit
				step.Detail = fmt.Sprintf("tag %q: dynamic tag %q holds %d providers", tag, name, out.Len())
			}
			return out
		}
		if c.ruleForce {
			if step != nil {
				step.Branch = router.BranchDynamicForceEmpty
				step.Detail = fmt.Sprintf("tag %q: dynamic tag %q matches no provider and the rule has force=true", tag, name)
			}
			return out
		}
	} else {
		p := c.static[tag]
		if p == nil {
			p = u.None()
		}
		out = u.And(in, p)
		if !out.Empty() {
			if step != nil {
				step.Branch = router.BranchStaticInDynamic
				step.Detail = fmt.Sprintf("tag %q: not in the dynamic rule; %d providers carry it as static tag", tag, out.Len())
			}
			return out
		}
	}
	if force {
		if step != nil {
			step.Branch = router.BranchForcedEmpty
			step.Detail = fmt.Sprintf("tag %q: no provider (%s) and dubbo.force.tag=true", tag, c.missWhy(found, name))
		}
		return out
	}
	out = u.And(in, c.failover)
	if step != nil {
		step.Branch = router.BranchFallbackUntagged
		step.Detail = fmt.Sprintf("tag %q: no provider (%s); failover to %d untagged providers outside every dynamic tag", tag, c.missWhy(found, name), out.Len())
	}
	return out
}

func (c *Compiled) whyStatic() string {
	switch {
	case c.rule == nil:
		return "no dynamic rule"
	case !c.rule.Enabled:
		return "rule disabled"
	default:
		return "rule invalid: no tags or valid=false"
	}
}

func (c *Compiled) missWhy(found bool, name string) string {
	if found {
		return fmt.Sprintf("dynamic tag %q matches none of the input", name)
	}
	return "not in the dynamic rule, no static tag match"
}
