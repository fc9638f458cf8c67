package mesh

import (
	"fmt"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// Route routes one call as Java's MeshRuleRouter.doRoute: for every
// provider application with a rule, the first route detail of the chosen
// VirtualService route whose match requests all hold gives weighted
// destinations; one is drawn (falling back along later destinations, then
// from the first, then along each destination's fallback chain) to a subset
// with providers in the input; the union of the applications' subsets,
// intersected with the input, is the result. Nothing chosen: the input
// (Java's empty protection). Where Java throws (see the package doc), the
// result is empty: Java's directory fails the call with no provider.
//
// It reads only the call; it does not allocate (step nil), and its cost does
// not depend on the number of providers.
func (c *Compiled) Route(in *router.Set, call *router.Call, step *router.Step) *router.Set {
	if c == nil || !c.active {
		if step != nil {
			step.Branch = BranchNoRule
		}
		return in
	}
	u := c.u
	result := u.None()
	var detail *strings.Builder
	if step != nil {
		detail = &strings.Builder{}
	}
	// Only the call path (no step) counts: explain and what-if do not.
	count := step == nil
	for ai, st := range c.apps {
		if st.throws != "" {
			return c.fail(step, detail, st, st.throws)
		}
		if st.route < 0 {
			if count {
				st.cnt.Inc(st.idNoRoute)
			}
			if detail != nil {
				note(detail, "%s: no VirtualService route for the service", st.app)
			}
			continue
		}
		di := -1
		for i := range st.details {
			ds := &st.details[i]
			if ds.d == nil {
				return c.fail(step, detail, st, fmt.Sprintf("routedetail[%d] is not a mapping (Java: NullPointerException)", i))
			}
			if len(ds.d.Match) == 0 {
				di = i
				break
			}
			all := true
			for j, m := range ds.d.Match {
				ok, th := m.match(call, ds.src[j])
				if th {
					return c.fail(step, detail, st, fmt.Sprintf("routedetail[%d] match[%d] throws in Java (null field, argument index out of range, non-numeric argument or bad regex)", i, j))
				}
				if !ok {
					all = false
					break
				}
			}
			if all {
				di = i
				break
			}
		}
		if di < 0 {
			if count {
				st.cnt.Inc(st.idNoMatch)
			}
			if detail != nil {
				note(detail, "%s: no routedetail matched", st.app)
			}
			continue
		}
		ds := &st.details[di]
		vsName := st.rule.VirtualServices[st.vsIndex].Name
		if ds.d.Route == nil {
			if count {
				st.cnt.Inc(ds.idNoRoute)
			}
			if detail != nil {
				note(detail, "%s: VirtualService %s dubbo[%d] routedetail[%d]%s matched, it has no route", st.app, vsName, st.route, di, nameOf(ds.d.Name))
			}
			continue
		}
		if ds.nullDst {
			return c.fail(step, detail, st, fmt.Sprintf("routedetail[%d] has a route element that is not a mapping (Java: NullPointerException)", di))
		}
		if ds.total <= 0 {
			return c.fail(step, detail, st, fmt.Sprintf("routedetail[%d]: the weights sum to %d (Java: nextInt throws)", di, ds.total))
		}
		start, drawStep := 0, -1
		if len(ds.dests) > 1 {
			r := int64(c.rnd(uint64(ds.total)))
			var cum int64
			for i, d := range ds.dests {
				w := int64(d.weight)
				if w < 1 {
					w = 1
				}
				cum += w
				if r <= cum { // Java: target -= w; if target <= 0
					start = i
					break
				}
			}
			if step != nil {
				ws := make([]int64, len(ds.dests))
				for i, d := range ds.dests {
					ws[i] = int64(max(d.weight, 1))
				}
				drawStep = len(step.Conditions)
				step.Conditions = append(step.Conditions, router.ConditionStep{Index: ai, Text: st.app + " routedetail[" + itoa(di) + "]",
					WhenMatched: true, In: in.Len(), Branch: router.BranchWeighted, Destination: start, Weights: ws, Candidate: start})
			}
		}
		chosen, name, id, th := ds.pick(u, in, start)
		if drawStep >= 0 && chosen != nil {
			cs := &step.Conditions[drawStep]
			cs.ThenKept, cs.Out = chosen.Len(), u.And(in, chosen).Len()
		}
		if th {
			return c.fail(step, detail, st, fmt.Sprintf("routedetail[%d]: a destination that is not a mapping was reached (Java: NullPointerException)", di))
		}
		if count {
			if chosen == nil {
				st.cnt.Inc(ds.idNoSubset)
			} else {
				st.cnt.Inc(id)
			}
		}
		if chosen == nil {
			if detail != nil {
				note(detail, "%s: VirtualService %s dubbo[%d] routedetail[%d]%s: no destination subset has providers", st.app, vsName, st.route, di, nameOf(ds.d.Name))
			}
			continue
		}
		if detail != nil {
			note(detail, "%s: VirtualService %s dubbo[%d] routedetail[%d]%s → subset %s (%d)", st.app, vsName, st.route, di, nameOf(ds.d.Name), name, chosen.Len())
		}
		result = u.Or(result, chosen)
	}
	if result.Empty() {
		if step != nil {
			step.Branch = BranchNoMatch
			step.Detail = detail.String()
		}
		return in
	}
	out := u.And(in, result)
	if step != nil {
		step.Branch = BranchRouted
		step.Detail = detail.String()
	}
	return out
}

// pick is randomSelectDestination after the draw: the drawn destination and
// the ones after it, then all from the first, each along its fallbacks.
func (ds *detailState) pick(u *router.Universe, in *router.Set, start int) (*router.Set, string, int32, bool) {
	for pass := 0; pass < 2; pass++ {
		from := start
		if pass == 1 {
			from = 0
		}
		for i := from; i < len(ds.dests); i++ {
			d := &ds.dests[i]
			if d.null {
				return nil, "", -1, true
			}
			for k, s := range d.chain {
				if !s.Empty() && !u.And(in, s).Empty() {
					return s, d.names[k], d.ids[k], false
				}
			}
		}
	}
	return nil, "", -1, false
}

func (c *Compiled) fail(step *router.Step, detail *strings.Builder, st *appState, why string) *router.Set {
	if step == nil {
		st.cnt.Inc(st.idThrows)
	}
	if step != nil {
		if detail != nil {
			note(detail, "%s: %s", st.app, why)
		}
		step.Branch = BranchThrows
		step.Detail = detail.String()
	}
	return c.u.None()
}

func note(b *strings.Builder, format string, a ...any) {
	if b == nil {
		return
	}
	if b.Len() > 0 {
		b.WriteString("; ")
	}
	fmt.Fprintf(b, format, a...)
}

func nameOf(n *string) string {
	if n == nil {
		return ""
	}
	return " (" + *n + ")"
}

func itoa(i int) string { return fmt.Sprint(i) }
