package condition

import (
	"strconv"

	"github.com/dubboroute/dubboroute/router"
)

// CompileOptions tunes Compile.
type CompileOptions struct {
	// Rand draws v3.1 destinations; nil means router.DefaultRand.
	Rand router.Rand
	// Index, when made by NewProviderIndex for the same universe and
	// provider slice, is used (and filled) instead of a private one, so
	// that rules compiled against one snapshot read each key once. Compile
	// ignores an index made for another snapshot.
	Index *ProviderIndex
}

// Compiled is a rule compiled against one consumer URL and one provider
// snapshot. Everything that does not vary per call is precomputed: each
// when-part's consumer-URL keys are evaluated once, and every then-part (and
// v3.1 destination) is an interned *router.Set. Route then only tests the
// call's method, arguments and attachments and combines Sets. A Compiled is
// immutable and safe for concurrent use.
type Compiled struct {
	rule    *Rule
	u       *router.Universe
	rand    router.Rand
	enabled bool
	force   bool
	v31     bool
	conds   []compiledCond

	// Counted counts the branches of every call routed without a step (the
	// call path); see countLayout for its cells.
	router.Counted
	calls    int32 // the calls no condition applied to (see countLayout)
	disabled int32 // every call a disabled rule passed through
}

// condIDs are the counter cells of one condition (-1: none).
type condIDs struct {
	matched, fallback, forceEmpty, blacklist, emptyInput int32
	// dests[j] counts the calls v3.1 destination j was picked for (alone
	// or by weight).
	dests []int32
}

type compiledCond struct {
	index int
	text  string
	// whenStatic is the verdict of the when-part's keys that depend only on
	// the consumer URL (false: the condition never applies).
	whenStatic bool
	// whenCall are the when-part's keys that depend on the call.
	whenCall []callTerm
	// v3.0
	blacklist bool
	then      *router.Set
	// v3.1
	targets []compiledTarget
	ids     condIDs
}

type compiledTarget struct {
	weight int64
	set    *router.Set
}

type callTerm struct {
	kind     keyKind
	arg      int
	att      string
	match    []pattern
	mismatch []pattern
}

// Compile compiles r for one consumer and one provider snapshot:
// providers[i] is member i of u. A nil consumer or provider is treated as a
// URL without any field; providers beyond u.Size() are ignored and members
// without a provider match nothing. It reads every provider once per
// distinct then-part key (see thenIndex); it is meant to run off the hot
// path, on every rule or address change.
func (r *Rule) Compile(u *router.Universe, consumer *router.URL, providers []*router.URL, opt CompileOptions) *Compiled {
	c := &Compiled{rule: r, u: u, rand: opt.Rand, enabled: r.Enabled, force: r.Force, v31: r.Version == V31}
	if c.rand == nil {
		c.rand = router.DefaultRand
	}
	if consumer == nil {
		consumer = &router.URL{}
	}
	pi := opt.Index
	if pi == nil || !pi.indexes(u, providers) {
		pi = NewProviderIndex(u, providers)
	}
	x := &thenIndex{ProviderIndex: pi}
	for _, cond := range r.Conditions {
		cc := compiledCond{index: cond.Index, text: cond.Text, whenStatic: true}
		if cond.When != nil {
			for _, t := range cond.When.Terms {
				kind, arg, att := classifyKey(t.Key)
				ct := callTerm{kind: kind, arg: arg, att: att,
					match: compilePatterns(t.Match, nil), mismatch: compilePatterns(t.Mismatch, nil)}
				switch kind {
				case keyMethod, keyArgument, keyAttachment:
					cc.whenCall = append(cc.whenCall, ct)
				case keySentinel:
					cc.whenStatic = cc.whenStatic && matchValues(NotFoundValue, true, ct.match, ct.mismatch, true)
				default:
					v, ok := consumer.Get(t.Key)
					cc.whenStatic = cc.whenStatic && matchValues(v, ok, ct.match, ct.mismatch, true)
				}
			}
		}
		if c.v31 {
			for _, tg := range cond.Targets {
				cc.targets = append(cc.targets, compiledTarget{weight: tg.Weight, set: thenSet(x, tg.Then, true, consumer)})
			}
		} else if cond.Then == nil {
			cc.blacklist = true
		} else {
			cc.then = thenSet(x, cond.Then, false, consumer)
		}
		c.conds = append(c.conds, cc)
	}
	c.countLayout()
	return c
}

// countTemplate is a rule's counter layout and the cell ids of its
// conditions (see countLayout).
type countTemplate struct {
	layout          *router.CounterLayout
	calls, disabled int32
	ids             []condIDs
}

// countLayout gives c its branch counters: the rule's layout (made once
// per rule) and a block of cells. The layout costs one add per rule per
// call when at most one condition applies: per condition a pair of cells
// for each branch it can take (a v3.0 condition: matched, fallback,
// force-empty, blacklist; v3.1: each destination, fallback, force-empty,
// blacklist; both: empty-input), the first of the pair counting a branch
// taken first in the call, the second one taken after an earlier condition
// decided; and one cell for the calls no condition applied to. The calls
// (none applied plus every first decision) and each condition's
// not-applicable (the calls minus its decisions) are derived. A disabled
// rule has one cell.
func (c *Compiled) countLayout() {
	t := c.rule.counters.Load()
	if t == nil {
		t = newCountTemplate(c.rule)
		if !c.rule.counters.CompareAndSwap(nil, t) {
			t = c.rule.counters.Load()
		}
	}
	c.calls, c.disabled = t.calls, t.disabled
	for i := range c.conds {
		if i < len(t.ids) {
			c.conds[i].ids = t.ids[i]
		}
	}
	c.SetCounters(t.layout.Build(c.rule))
}

func newCountTemplate(r *Rule) *countTemplate {
	l := &router.CounterLayout{}
	t := &countTemplate{layout: l, calls: -1, disabled: -1}
	if !r.Enabled {
		t.disabled = l.Add("rule", router.BranchDisabled)
		return t
	}
	if len(r.Conditions) == 0 {
		return t
	}
	v31 := r.Version == V31
	calls := l.Derive("rule", router.BranchCalls)
	t.calls = l.AddDetail("rule", router.BranchNotApplicable, "no condition applied")
	callTerms := []int32{t.calls}
	for _, cond := range r.Conditions {
		scope := "#" + itoa(cond.Index) + " " + cond.Text
		var decided []int32
		pair := func(br router.Branch, detail string) int32 {
			id := l.AddPair(scope, br, detail)
			decided = append(decided, id, id+1)
			callTerms = append(callTerms, id)
			return id
		}
		na := l.Derive(scope, router.BranchNotApplicable)
		ids := condIDs{matched: -1, fallback: -1, forceEmpty: -1, blacklist: -1}
		blacklist := !v31 && cond.Then == nil
		if v31 {
			for j, tg := range cond.Targets {
				ids.dests = append(ids.dests, pair(router.BranchDestination,
					"to["+itoa(j)+"] "+tg.Match+" (weight "+strconv.FormatInt(tg.Weight, 10)+")"))
			}
		} else if !blacklist {
			ids.matched = pair(router.BranchMatched, "")
		}
		if !blacklist && (!v31 || len(cond.Targets) > 0) {
			if r.Force {
				ids.forceEmpty = pair(router.BranchForceEmpty, "")
			} else {
				ids.fallback = pair(router.BranchFallback, "")
			}
		} else {
			ids.blacklist = pair(router.BranchBlacklist, "")
		}
		ids.emptyInput = pair(router.BranchEmptyInput, "")
		l.SetTerms(na, []int32{calls}, decided)
		t.ids = append(t.ids, ids)
	}
	l.SetTerms(calls, callTerms, nil)
	return t
}

// Cells are c's branch counters (router.Counted); nil for no rule.
func (c *Compiled) Cells() *router.Counted {
	if c == nil {
		return nil
	}
	return &c.Counted
}

func itoa(i int) string { return strconv.Itoa(i) }

func compilePatterns(vs []string, ref *router.URL) []pattern {
	if len(vs) == 0 {
		return nil
	}
	out := make([]pattern, len(vs))
	for i, v := range vs {
		out[i] = compilePattern(v, ref)
	}
	return out
}

// thenSet is the set of providers whose own URL matches the part, with $x
// resolved against the consumer. In v3.0 a part without keys matches no
// provider; in v3.1 (and for a nil part there) it matches every provider.
func thenSet(x *thenIndex, p *Part, v31 bool, consumer *router.URL) *router.Set {
	if p == nil || len(p.Terms) == 0 {
		if v31 {
			return x.u.All()
		}
		return x.u.None()
	}
	terms := make([]thenTerm, len(p.Terms))
	for i, t := range p.Terms {
		kind, _, _ := classifyKey(t.Key)
		terms[i] = thenTerm{kind: kind, key: t.Key, match: compilePatterns(t.Match, consumer), mismatch: compilePatterns(t.Mismatch, consumer)}
	}
	return x.part(terms)
}

// Rule returns the rule c was compiled from.
func (c *Compiled) Rule() *Rule { return c.rule }
