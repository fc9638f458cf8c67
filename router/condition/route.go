package condition

import (
	"github.com/dubboroute/dubboroute/router"
)

// whenMatches evaluates the per-call keys of a when-part. It does not
// allocate for string arguments and attachments.
func (cc *compiledCond) whenMatches(call *router.Call) bool {
	if !cc.whenStatic {
		return false
	}
	for i := range cc.whenCall {
		t := &cc.whenCall[i]
		var v string
		ok := true
		switch t.kind {
		case keyMethod:
			if call != nil {
				v = call.Method
			}
		case keyArgument:
			v = NotFoundValue
			if call != nil && t.arg < len(call.Args) {
				v = ArgumentString(call.Args[t.arg])
			}
		case keyAttachment:
			v, ok = call.Attachment(t.att)
		}
		if !matchValues(v, ok, t.match, t.mismatch, true) {
			return false
		}
	}
	return true
}

// Route filters in for one call, following Java's ConditionStateRouter
// (v3.0) or MultiDestConditionRouter (v3.1) for every condition in list
// order, each seeing the previous one's output. The result is a subset of
// in (registry order is the index order of the set). It neither allocates
// nor scans providers; with a non-nil step it records one ConditionStep per
// condition and sets step.Branch and step.Detail (that recording allocates).
func (c *Compiled) Route(in *router.Set, call *router.Call, step *router.Step) *router.Set {
	if c == nil || len(c.conds) == 0 {
		if step != nil {
			step.Branch = router.BranchNoRule
		}
		return in
	}
	// Only the call path (no step) counts: explain and what-if do not.
	count := step == nil
	if !c.enabled {
		if c.Took(step, c.disabled, router.BranchDisabled) {
			step.Detail = "rule enabled=false"
		}
		return in
	}
	// later is 0 until a condition decided (its branch is counted as the
	// call's first), then 1 (see countLayout): one add per deciding
	// condition, or one for the call when none applies.
	var later int32
	out := in
	summary := router.BranchNotApplicable
	for i := range c.conds {
		cc := &c.conds[i]
		before := out
		var br router.Branch
		var id int32
		kept, dest, matched := 0, -1, false
		switch {
		case before.Empty():
			br = router.BranchEmptyInput
			if count {
				c.Counters().Inc(cc.ids.emptyInput + later)
				later = 1
			}
		case !cc.whenMatches(call):
			br = router.BranchNotApplicable
		default:
			matched = true
			if c.v31 {
				out, br, dest, id = c.routeV31(cc, before)
				kept = out.Len()
			} else {
				out, br, kept, id = c.routeV30(cc, before)
			}
			summary = br
			if count && id >= 0 {
				c.Counters().Inc(id + later)
				later = 1
			}
		}
		if step != nil {
			cs := router.ConditionStep{
				Index: cc.index, Text: cc.text, WhenMatched: matched,
				In: before.Len(), ThenKept: kept, Out: out.Len(), Branch: br, Destination: dest,
			}
			if br == router.BranchWeighted {
				cs.Weights, cs.Candidate = c.candidateWeights(cc, before, dest)
			}
			step.Conditions = append(step.Conditions, cs)
		}
	}
	if count && later == 0 {
		c.Counters().Inc(c.calls)
	}
	if step != nil {
		if in.Empty() {
			summary = router.BranchEmptyInput
		}
		step.Branch = summary
	}
	return out
}

// routeV30 routes one v3.0 condition whose when-part matched; it returns
// the branch and its counter cell.
func (c *Compiled) routeV30(cc *compiledCond, in *router.Set) (*router.Set, router.Branch, int, int32) {
	if cc.blacklist {
		return c.u.None(), router.BranchBlacklist, 0, cc.ids.blacklist
	}
	res := c.u.And(in, cc.then)
	switch {
	case !res.Empty():
		return res, router.BranchMatched, res.Len(), cc.ids.matched
	case c.force:
		return c.u.None(), router.BranchForceEmpty, 0, cc.ids.forceEmpty
	}
	return in, router.BranchFallback, 0, cc.ids.fallback
}

// routeV31 draws one destination among those with a non-empty intersection
// with in, as Java's DestinationSet.randDestination: r uniform in [0, W) and
// the first destination with r <= its cumulative weight wins (Java:
// r -= w; if r <= 0), so the first candidate gets (w1+1)/W, the last
// (wn-1)/W and the others w_i/W.
func (c *Compiled) routeV31(cc *compiledCond, in *router.Set) (*router.Set, router.Branch, int, int32) {
	if len(cc.targets) == 0 {
		return c.u.None(), router.BranchBlacklist, -1, cc.ids.blacklist
	}
	var total int64
	n, only := 0, -1
	for i := range cc.targets {
		if !c.u.And(in, cc.targets[i].set).Empty() {
			total += cc.targets[i].weight
			n++
			only = i
		}
	}
	switch {
	case n == 0 && c.force:
		return c.u.None(), router.BranchForceEmpty, -1, cc.ids.forceEmpty
	case n == 0:
		return in, router.BranchFallback, -1, cc.ids.fallback
	case n == 1:
		return c.u.And(in, cc.targets[only].set), router.BranchMatched, only, cc.ids.dest(only)
	}
	r := int64(c.rand(uint64(total)))
	var cum int64
	last := -1
	for i := range cc.targets {
		s := c.u.And(in, cc.targets[i].set)
		if s.Empty() {
			continue
		}
		last = i
		cum += cc.targets[i].weight
		if r <= cum {
			return s, router.BranchWeighted, i, cc.ids.dest(i)
		}
	}
	// Unreachable with a conforming Rand (r < total); a misbehaving one gets
	// the last candidate rather than a panic.
	return c.u.And(in, cc.targets[last].set), router.BranchWeighted, last, cc.ids.dest(last)
}

// candidateWeights returns the effective weights of the candidates of a
// weighted pick of cc for input in (the destinations whose subset keeps a
// provider) and the position among them of destination dest. It allocates:
// only traces call it.
func (c *Compiled) candidateWeights(cc *compiledCond, in *router.Set, dest int) ([]int64, int) {
	var ws []int64
	pos := -1
	for i := range cc.targets {
		if c.u.And(in, cc.targets[i].set).Empty() {
			continue
		}
		if i == dest {
			pos = len(ws)
		}
		ws = append(ws, cc.targets[i].weight)
	}
	return ws, pos
}

// Destination is one candidate of a v3.1 weighted pick.
type Destination struct {
	// Condition is the index of the condition making the pick.
	Condition int
	// Target is the index of the destination in the condition's "to" list.
	Target int
	// Weight is the effective weight.
	Weight int64
	// Set is the providers the destination would route to.
	Set *router.Set
	// Probability is Java 3.3's (and this package's) chance of picking it:
	// (w+1)/W for the first candidate, (w-1)/W for the last, w/W
	// otherwise; 1 for a single candidate.
	Probability float64
}

// ConditionDestinations returns the candidate destinations of condition
// cond (an index into the rule's conditions) for input in and call: nil when
// the rule is not v3.1, disabled, the input is empty, the when-part does not
// match, or no destination keeps a provider. It allocates; it is meant for
// explain, the CLI and the differential test against Java.
func (c *Compiled) ConditionDestinations(cond int, in *router.Set, call *router.Call) []Destination {
	if c == nil || !c.v31 || !c.enabled || cond < 0 || cond >= len(c.conds) || in.Empty() {
		return nil
	}
	cc := &c.conds[cond]
	if !cc.whenMatches(call) {
		return nil
	}
	var ds []Destination
	var total int64
	for i := range cc.targets {
		s := c.u.And(in, cc.targets[i].set)
		if s.Empty() {
			continue
		}
		total += cc.targets[i].weight
		ds = append(ds, Destination{Condition: cc.index, Target: i, Weight: cc.targets[i].weight, Set: s})
	}
	if len(ds) == 1 {
		ds[0].Probability = 1
		return ds
	}
	for i := range ds {
		n := ds[i].Weight
		switch i {
		case 0:
			n++
		case len(ds) - 1:
			n--
		}
		ds[i].Probability = float64(n) / float64(total)
	}
	return ds
}

// Destinations returns the candidates of the first weighted pick a call
// would meet: conditions before it are routed deterministically (they make
// no pick), and the first condition with two or more candidates is
// reported. It returns nil when no condition makes a pick.
func (c *Compiled) Destinations(in *router.Set, call *router.Call) []Destination {
	if c == nil || !c.v31 || !c.enabled {
		return nil
	}
	cur := in
	for i := range c.conds {
		if ds := c.ConditionDestinations(i, cur, call); len(ds) > 1 {
			return ds
		}
		cc := &c.conds[i]
		if cur.Empty() || !cc.whenMatches(call) {
			continue
		}
		cur, _, _, _ = c.routeV31(cc, cur)
	}
	return nil
}

// dest is the counter cell of v3.1 destination i (-1: none).
func (ids *condIDs) dest(i int) int32 {
	if i >= 0 && i < len(ids.dests) {
		return ids.dests[i]
	}
	return -1
}
