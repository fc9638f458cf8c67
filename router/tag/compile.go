package tag

import (
	"fmt"
	"net/netip"
	"strconv"
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
	dyn map[string]dynPool
	// claimedAny is Java's "getAddresses() non-empty": dyn has an entry.
	claimedAny bool
	// claimed is every provider matching an address of any tag in dyn.
	claimed *Set
	// failover is untagged \ claimed: the fallback of a tagged request and
	// the answer to a tagless request.
	failover *Set

	// Counted counts the branch of every call routed without a step (the call
	// path); ids are its cells (see countLayout).
	router.Counted
	ids branchIDs
}

// dynPool is a dynamic tag's providers and its dynamic-hit counter cell.
type dynPool struct {
	set *Set
	hit int32
}

// branchIDs are the counter cells of the tag router's branches.
type branchIDs struct {
	emptyInput, tagless                             int32
	static, staticForcedEmpty, staticFallback       int32
	dynamicForceEmpty, staticInDynamic, forcedEmpty int32
	fallbackUntagged                                int32
}

// Set is router.Set, named here for brevity.
type Set = router.Set

// Compile precomputes the pools of one (rule, providers, consumer) triple.
// providers[i] is member i of u; nil entries count as untagged providers
// without an address. rule == nil (no rule, or it was deleted) and a rule
// that is not Usable give static routing. Compile reads the providers once
// (plus once per wildcard, range or CIDR address pattern, see addrIndex) and
// never fails.
func Compile(rule *Rule, u *router.Universe, consumer *router.URL, providers []*router.URL) *Compiled {
	return CompileWith(rule, u, consumer, providers, nil)
}

// CompileWith is Compile reading the providers through x, an Index made by
// NewIndex for the same universe and provider slice (x nil, or made for
// another snapshot, is replaced by a private one). The result is the same.
func CompileWith(rule *Rule, u *router.Universe, consumer *router.URL, providers []*router.URL, x *Index) *Compiled {
	c := &Compiled{u: u, rule: rule, static: map[string]*Set{}}
	if consumer != nil {
		c.consumerTag = consumer.Params.Value(TagKey)
		c.consumerForce = strings.EqualFold(consumer.Params.Value(ForceTagKey), "true")
	}
	n := u.Size()
	provider := func(i int) *router.URL {
		if i < len(providers) {
			return providers[i]
		}
		return nil
	}
	if x == nil || !x.indexes(u, providers) {
		x = NewIndex(u, providers, nil, nil)
	}
	usable := rule.Usable()
	var idx *addrIndex
	if usable {
		x.hosts()
		idx = &addrIndex{n: n, hosts: x.addrs}
	}
	// Counting sort of the members by static tag (the untagged last).
	counts := make([]int32, len(x.tagVals)+1)
	for _, t := range x.tags {
		counts[t+1]++
	}
	start := make([]int32, len(counts)+1)
	for v, k := range counts {
		start[v+1] = start[v] + k
	}
	members := make([]int, n)
	next := counts
	copy(next, start[:len(counts)])
	for i, t := range x.tags {
		members[next[t+1]] = i
		next[t+1]++
	}
	untagged := members[start[0]:start[1]]
	for t, v := range x.tagVals {
		c.static[v] = u.Of(members[start[t+1]:start[t+2]]...)
	}
	c.untagged = u.Of(untagged...)
	c.claimed, c.failover = u.None(), c.untagged
	hits := c.countLayout(usable)
	if !usable {
		return c
	}
	c.dynamic, c.ruleForce = true, rule.Force

	matching := func(pats []router.AddressPattern) *Set { return idx.matching(u, pats) }
	c.dyn = map[string]dynPool{}
	// Java (TagRouterRule.init): tags with addresses first, in order, the
	// last duplicate name winning; then, for v3.0 rules with providers,
	// tags without addresses by their match, a non-empty result replacing
	// whatever the name had.
	for _, t := range rule.Tags {
		if len(t.Addresses) > 0 {
			c.dyn[t.Name] = dynPool{matching(t.patterns), hits[t.Name]}
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
				c.dyn[t.Name] = dynPool{matching(pats), hits[t.Name]}
			}
		}
	}
	c.claimedAny = len(c.dyn) > 0
	for _, p := range c.dyn {
		c.claimed = u.Or(c.claimed, p.set)
	}
	c.failover = u.AndNot(c.untagged, c.claimed)
	return c
}

// Index holds what Compile reads from each provider URL of one snapshot:
// the static tag and, once a usable rule needs them, the parsed host and
// port. Those URLs are scattered in memory, so at scale every first read of
// one is a cache miss; NewIndex carries the values of unchanged providers
// over from the previous snapshot's Index instead (router.URL values are
// immutable after parse, so the same pointer has the same values). An Index
// is filled by the Compile calls that use it and is not safe for concurrent
// use.
type Index struct {
	u         *router.Universe
	providers []*router.URL // as given, for the same-snapshot check
	n         int           // u.Size()

	tags    []int32  // member -> static tag (index into tagVals), -1: untagged
	tagVals []string // distinct static tags, in order of first appearance

	addrs *hostPorts // parsed hosts and ports; nil until hosts
}

// NewIndex reads the static tags of providers (providers[i] is member i of
// u, as in Compile). prevPos[i], when prev is not nil, is the member of
// prev's snapshot holding the same *router.URL as providers[i], or -1: those
// providers' tags (and hosts, if prev has them) are taken from prev without
// reading their URLs. prev is not kept.
func NewIndex(u *router.Universe, providers []*router.URL, prev *Index, prevPos []int32) *Index {
	n := u.Size()
	x := &Index{u: u, providers: providers, n: n, tags: make([]int32, n)}
	if prev != nil && len(prevPos) < min(n, len(providers)) {
		prev = nil
	}
	from := func(i int) int32 { // member of prev, or -1
		if prev == nil || i >= len(prevPos) {
			return -1
		}
		if j := prevPos[i]; j >= 0 && int(j) < prev.n {
			return j
		}
		return -1
	}
	var byValue map[string]int32
	var remap []int32 // tag of prev -> tag of x
	if prev != nil {
		remap = make([]int32, len(prev.tagVals))
		for i := range remap {
			remap[i] = -1
		}
	}
	intern := func(v string) int32 {
		id, ok := byValue[v]
		if !ok {
			if byValue == nil {
				byValue = map[string]int32{}
			}
			id = int32(len(x.tagVals))
			byValue[v] = id
			x.tagVals = append(x.tagVals, v)
		}
		return id
	}
	for i := 0; i < n; i++ {
		x.tags[i] = -1
		if j := from(i); j >= 0 {
			if t := prev.tags[j]; t >= 0 {
				if remap[t] < 0 {
					remap[t] = intern(prev.tagVals[t])
				}
				x.tags[i] = remap[t]
			}
			continue
		}
		if i >= len(providers) || providers[i] == nil {
			continue
		}
		if t := providers[i].Params.Value(TagKey); t != "" {
			x.tags[i] = intern(t)
		}
	}
	if prev != nil && prev.addrs != nil {
		x.addrs = newHostPorts(n)
		for i := 0; i < n; i++ {
			if j := from(i); j >= 0 {
				x.addrs.copyFrom(i, prev.addrs, int(j))
			} else if i < len(providers) && providers[i] != nil {
				x.addrs.set(i, parseHost(providers[i]))
			}
		}
	}
	return x
}

// indexes reports whether x was made for this snapshot.
func (x *Index) indexes(u *router.Universe, providers []*router.URL) bool {
	return x.u == u && len(x.providers) == len(providers) && (len(providers) == 0 || &x.providers[0] == &providers[0])
}

// hosts fills addrs.
func (x *Index) hosts() {
	if x.addrs != nil {
		return
	}
	x.addrs = newHostPorts(x.n)
	for i := 0; i < x.n && i < len(x.providers); i++ {
		if p := x.providers[i]; p != nil {
			x.addrs.set(i, parseHost(p))
		}
	}
}

func parseHost(p *router.URL) hostPort {
	h := strings.TrimSuffix(strings.TrimPrefix(p.Host, "["), "]")
	a, _ := netip.ParseAddr(h) // invalid: matches only "*"
	return hostPort{a, p.Port}
}

// hostPort is a provider's parsed host (invalid: matches only "*") and port.
type hostPort struct {
	addr netip.Addr
	port int
}

// hostPorts holds the parsed host and port of every member in 8 bytes
// (a netip.Addr and an int take 32, and a chain keeps them for every
// provider between rebuilds): an IPv4 host with a port in 0..65535 is
// packed in the word itself, anything else (IPv6, zones, odd ports) is
// kept aside and the word refers to it.
type hostPorts struct {
	w     []uint64 // hpInvalid, hpV4|ip<<16|port, or hpOther|index into other
	other []hostPort
}

const (
	hpInvalid = 0
	hpV4      = 1 << 63
	hpOther   = 1 << 62
)

func newHostPorts(n int) *hostPorts { return &hostPorts{w: make([]uint64, n)} }

// set records member i.
func (h *hostPorts) set(i int, hp hostPort) {
	switch {
	case !hp.addr.IsValid():
		h.w[i] = hpInvalid // MatchAddr ignores the port of an invalid host
	case hp.addr.Is4() && hp.port >= 0 && hp.port <= 0xffff:
		b := hp.addr.As4()
		ip := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
		h.w[i] = hpV4 | ip<<16 | uint64(hp.port)
	default:
		h.w[i] = hpOther | uint64(len(h.other))
		h.other = append(h.other, hp)
	}
}

// copyFrom sets member i to member j of src.
func (h *hostPorts) copyFrom(i int, src *hostPorts, j int) {
	if w := src.w[j]; w&hpOther == 0 {
		h.w[i] = w
		return
	}
	h.set(i, src.other[src.w[j]&^hpOther])
}

// at is member i's host and port.
func (h *hostPorts) at(i int) (netip.Addr, int) {
	w := h.w[i]
	switch {
	case w&hpV4 != 0:
		ip := uint32(w >> 16)
		return netip.AddrFrom4([4]byte{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)}), int(w & 0xffff)
	case w&hpOther != 0:
		hp := h.other[w&^hpOther]
		return hp.addr, hp.port
	}
	return netip.Addr{}, 0
}

// addrIndex finds the providers an address pattern matches. Testing every
// provider against every pattern is O(providers × patterns), and rules list
// addresses by the hundred (a gray pool of 20 % of a fleet, or a match tag's
// members, which Java turns into one host:port pattern each). A literal
// pattern can only match providers whose host is that address, so those
// are looked up; "0.0.0.0:port" can only match providers on that port.
// Candidates found that way are still confirmed with MatchAddr, so the index
// only has to be complete, never exact. Other patterns (wildcards, ranges,
// CIDR, hostnames) scan every provider.
type addrIndex struct {
	n     int
	hosts *hostPorts

	// Built at the first literal pattern that needs them (building costs
	// about as much as scanning for one or two patterns). Providers sharing
	// a host (or a port) are chained through next, head first, rather than
	// kept in a slice per host: one allocation instead of one per provider.
	byV4   map[uint32]int32     // IPv4 host -> first provider (hashes faster than netip.Addr)
	byV6   map[netip.Addr]int32 // other hosts as MatchAddr compares them (unmapped, no zone)
	nextA  []int32              // next provider with the same host, -1 at the end
	byPort map[int]int32
	nextP  []int32 // next provider with the same port, -1 at the end

	match []int // scratch: the members of one pattern list
}

// newAddrIndex makes the index of n providers; add fills it.
func newAddrIndex(n int) *addrIndex {
	return &addrIndex{n: n, hosts: newHostPorts(n)}
}

// add records provider i's host and port.
func (x *addrIndex) add(i int, p *router.URL) {
	x.hosts.set(i, parseHost(p))
}

func v4Key(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// byAddr is the chain of the providers whose host is a (unmapped, no zone).
func (x *addrIndex) byAddr(a netip.Addr) (head int32, next []int32) {
	if x.nextA == nil {
		x.byV4, x.byV6 = make(map[uint32]int32, x.n), map[netip.Addr]int32{}
		x.nextA = x.link(func(next []int32, i int, h netip.Addr, _ int) {
			if h = h.Unmap().WithZone(""); h.Is4() {
				pushChain(x.byV4, next, v4Key(h), i)
			} else {
				pushChain(x.byV6, next, h, i)
			}
		})
	}
	var ok bool
	if a.Is4() {
		head, ok = x.byV4[v4Key(a)]
	} else {
		head, ok = x.byV6[a]
	}
	if !ok {
		return -1, nil
	}
	return head, x.nextA
}

// link chains the providers with a valid host: add puts provider i (host
// h, port) at the head of its chain with pushChain. Providers are visited
// backwards, so that each chain lists its providers in ascending order;
// the returned next ends every chain with -1.
func (x *addrIndex) link(add func(next []int32, i int, h netip.Addr, port int)) []int32 {
	next := make([]int32, x.n)
	for i := x.n - 1; i >= 0; i-- {
		next[i] = -1
		if h, port := x.hosts.at(i); h.IsValid() {
			add(next, i, h, port)
		}
	}
	return next
}

// pushChain puts provider i at the head of key k's chain: heads holds each
// key's first provider, next each provider's successor (-1 ends a chain).
func pushChain[K comparable](heads map[K]int32, next []int32, k K, i int) {
	if first, ok := heads[k]; ok {
		next[i] = first
	}
	heads[k] = int32(i)
}

// byPortChain is the chain of the providers with a valid host on port.
func (x *addrIndex) byPortChain(port int) (head int32, next []int32) {
	if x.nextP == nil {
		x.byPort = map[int]int32{}
		x.nextP = x.link(func(next []int32, i int, _ netip.Addr, port int) {
			pushChain(x.byPort, next, port, i)
		})
	}
	head, ok := x.byPort[port]
	if !ok {
		return -1, nil
	}
	return head, x.nextP
}

// matching is the set of providers matching any of pats.
func (x *addrIndex) matching(u *router.Universe, pats []router.AddressPattern) *Set {
	x.match = x.match[:0]
	for _, p := range pats {
		if p.IsAny() {
			return u.Build(func(int) bool { return true }) // every member, with or without a provider
		}
		head, next, indexed := x.candidates(p.String())
		if !indexed {
			for i := 0; i < x.n; i++ {
				if p.MatchAddr(x.hosts.at(i)) {
					x.match = append(x.match, i)
				}
			}
			continue
		}
		for i := head; i >= 0; i = next[i] {
			if p.MatchAddr(x.hosts.at(int(i))) {
				x.match = append(x.match, int(i))
			}
		}
	}
	return u.Of(x.match...)
}

// candidates returns the chain of every provider a pattern can match
// (head, then next[head], ... up to -1) when its text is an IP literal
// ("10.0.0.3", "10.0.0.3:20880", "fe80::1", "[fe80::1]", "[fe80::1]:20880")
// or "0.0.0.0:port"; indexed is false for any other pattern. For those texts
// router.ParseAddressPatternWith reads the host as that literal and nothing
// else (the other family's reading fails, and no resolver is asked), so a
// match needs a provider host equal to it. IPv6 literals with an embedded
// dotted quad are left to the scan: their IPv4 reading goes through the
// resolver.
func (x *addrIndex) candidates(s string) (head int32, next []int32, indexed bool) {
	if host, port, ok := strings.Cut(s, ":"); ok && strings.Count(s, ":") == 1 {
		// IPv4 with a port: the IPv4 reading cuts at the first colon.
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is4() {
			return -1, nil, false
		}
		if host == "0.0.0.0" {
			pt, err := strconv.Atoi(port)
			if err != nil {
				return -1, nil, false
			}
			head, next = x.byPortChain(pt)
			return head, next, true
		}
		head, next = x.byAddr(a)
		return head, next, true
	}
	if strings.Contains(s, ".") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is4() {
			return -1, nil, false
		}
		head, next = x.byAddr(a)
		return head, next, true
	}
	h := s
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return -1, nil, false
		}
		h = h[1:end]
	}
	a, err := netip.ParseAddr(h)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return -1, nil, false
	}
	head, next = x.byAddr(a.Unmap())
	return head, next, true
}

func matchAll(ms []ParamMatch, params router.Params) bool {
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
func (c *Compiled) lookup(tag string, force bool) (name string, pool dynPool, ok bool) {
	if force || strings.IndexByte(tag, '|') < 0 {
		pool, ok = c.dyn[tag]
		return tag, pool, ok
	}
	t := strings.TrimRight(tag, "|")
	if t == "" {
		return "", dynPool{}, false
	}
	for {
		if pool, ok = c.dyn[t]; ok {
			return t, pool, true
		}
		i := strings.LastIndexByte(t, '|')
		if i < 0 {
			return "", dynPool{}, false
		}
		t = t[:i]
	}
}

// countTemplate is a counter layout and its cell ids (see countLayout).
type countTemplate struct {
	layout *router.CounterLayout
	ids    branchIDs
	hits   map[string]int32 // dynamic-hit cell of each tag name
}

// staticTemplate is the layout of static routing (no usable rule), shared
// by every compilation.
var staticTemplate = newCountTemplate(nil)

// countLayout gives c its branch counters and returns the dynamic-hit cell
// of every tag name. The layout, made once per rule: with static routing
// (no usable rule) tagless, static, static-forced-empty, static-fallback;
// with a usable dynamic rule tagless, one dynamic-hit cell per tag name of
// the rule (the level that was found), dynamic-force-empty, static-tag-hit,
// fallback-untagged, forced-empty; both empty-input.
func (c *Compiled) countLayout(usable bool) map[string]int32 {
	t := staticTemplate
	if usable {
		if t = c.rule.counters.Load(); t == nil {
			t = newCountTemplate(c.rule)
			if !c.rule.counters.CompareAndSwap(nil, t) {
				t = c.rule.counters.Load()
			}
		}
	}
	c.ids = t.ids
	c.SetCounters(t.layout.Build(c.rule))
	return t.hits
}

// newCountTemplate lays out the counters of a usable rule r, or of static
// routing (r nil).
func newCountTemplate(r *Rule) *countTemplate {
	l := &router.CounterLayout{}
	ids := branchIDs{-1, -1, -1, -1, -1, -1, -1, -1, -1}
	var hits map[string]int32
	if r == nil {
		const sc = "static tags"
		ids.tagless = l.Add(sc, router.BranchTagless)
		ids.static = l.Add(sc, router.BranchStatic)
		ids.staticForcedEmpty = l.Add(sc, router.BranchStaticForcedEmpty)
		ids.staticFallback = l.Add(sc, router.BranchStaticFallback)
		ids.emptyInput = l.Add(sc, router.BranchEmptyInput)
	} else {
		const sc = "dynamic rule"
		ids.tagless = l.Add(sc, router.BranchTagless)
		hits = map[string]int32{}
		for _, t := range r.Tags {
			if _, ok := hits[t.Name]; !ok {
				hits[t.Name] = l.AddDetail(sc, router.BranchDynamicHit, "tag "+strconv.Quote(t.Name))
			}
		}
		ids.dynamicForceEmpty = l.Add(sc, router.BranchDynamicForceEmpty)
		ids.staticInDynamic = l.Add(sc, router.BranchStaticInDynamic)
		ids.fallbackUntagged = l.Add(sc, router.BranchFallbackUntagged)
		ids.forcedEmpty = l.Add(sc, router.BranchForcedEmpty)
		ids.emptyInput = l.Add(sc, router.BranchEmptyInput)
	}
	return &countTemplate{layout: l, ids: ids, hits: hits}
}

// Cells are c's branch counters (router.Counted); nil for no rule.
func (c *Compiled) Cells() *router.Counted {
	if c == nil {
		return nil
	}
	return &c.Counted
}

// Route returns the subset of in that Java's TagStateRouter.doRoute would
// return for the call (spec §6.3), recording the branch in step when it is
// not nil. The request tag is the dubbo.tag attachment, else the consumer
// URL's; the request force is a non-empty dubbo.force.tag attachment, else
// the consumer URL's, and only "true" in any case counts. "Non-empty" tests
// refer to members of in, as Java tests the invoker list it was given.
// Route does not allocate when step is nil.
func (c *Compiled) Route(in *Set, call *router.Call, step *router.Step) *Set {
	// Only the call path (no step) counts (Took): explain and what-if do not.
	if in.Empty() {
		c.Took(step, c.ids.emptyInput, router.BranchEmptyInput)
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
			if c.Took(step, c.ids.tagless, router.BranchTagless) {
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
			if c.Took(step, c.ids.static, router.BranchStatic) {
				step.Detail = fmt.Sprintf("static routing (%s); tag %q: %d providers tagged", c.whyStatic(), tag, out.Len())
			}
			return out
		case force:
			if c.Took(step, c.ids.staticForcedEmpty, router.BranchStaticForcedEmpty) {
				step.Detail = fmt.Sprintf("static routing (%s); tag %q: no provider tagged, dubbo.force.tag=true", c.whyStatic(), tag)
			}
			return out
		}
		out = u.And(in, c.untagged)
		if c.Took(step, c.ids.staticFallback, router.BranchStaticFallback) {
			step.Detail = fmt.Sprintf("static routing (%s); tag %q: no provider tagged, %d untagged", c.whyStatic(), tag, out.Len())
		}
		return out
	}

	if tag == "" {
		out := u.And(in, c.failover)
		if c.Took(step, c.ids.tagless, router.BranchTagless) {
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
		out = u.And(in, pool.set)
		if !out.Empty() {
			if c.Took(step, pool.hit, router.BranchDynamicHit) {
				step.Detail = fmt.Sprintf("tag %q: dynamic tag %q holds %d providers", tag, name, out.Len())
			}
			return out
		}
		if c.ruleForce {
			if c.Took(step, c.ids.dynamicForceEmpty, router.BranchDynamicForceEmpty) {
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
			if c.Took(step, c.ids.staticInDynamic, router.BranchStaticInDynamic) {
				step.Detail = fmt.Sprintf("tag %q: not in the dynamic rule; %d providers carry it as static tag", tag, out.Len())
			}
			return out
		}
	}
	if force {
		if c.Took(step, c.ids.forcedEmpty, router.BranchForcedEmpty) {
			step.Detail = fmt.Sprintf("tag %q: no provider (%s) and dubbo.force.tag=true", tag, c.missWhy(found, name))
		}
		return out
	}
	out = u.And(in, c.failover)
	if c.Took(step, c.ids.fallbackUntagged, router.BranchFallbackUntagged) {
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
