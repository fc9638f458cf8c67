package outcome

import (
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
)

// Leaf is one path through the weighted picks of a call (v3.1 condition
// destinations, mesh route destinations): the result, its exact
// probability (P as "num/den", Prob as a float) under Java 3.3's draw, which
// dubboroute reproduces (the first candidate of a pick gets w+1 of the W
// draw values, the last w-1), the effective weight of the destination
// picked last (nil when no pick was made), and every pick on the path.
type Leaf struct {
	Result []string `json:"result"`
	P      string   `json:"p"`
	Prob   float64  `json:"prob"`
	Weight *int64   `json:"weight"`
	Picks  []Pick   `json:"picks"`
}

// Pick is one weighted draw: the candidates' effective weights (from the
// trace), how many of the W draw values pick each ("counts", as the Java
// oracle names them; found by routing every range of draw values), and the
// candidate taken (an index into both).
type Pick struct {
	Weights []int64 `json:"weights"`
	Counts  []int64 `json:"counts"`
	Pick    int     `json:"pick"`
}

// MaxLeaves bounds the destination enumeration, as the Java oracle does.
const MaxLeaves = 4096

// script is a Rand that replays planned draws and records every draw's n.
type script struct {
	plan  []uint64
	calls []uint64
}

func (s *script) rand(n uint64) uint64 {
	k := len(s.calls)
	s.calls = append(s.calls, n)
	if k < len(s.plan) && s.plan[k] < n {
		return s.plan[k]
	}
	return 0
}

// drawn is what the trace says about one weighted pick.
type drawn struct {
	weights   []int64
	candidate int
}

// Enumerate lists every outcome of one call's weighted picks with its exact
// probability. compile builds the router chain with the given Rand (the
// chain draws every weighted pick from it) and returns a function routing
// the call with a trace; ids names the providers of a routed set. The route
// command and the console (the live snapshot's rules recompiled with a
// scripted Rand) share it, so both enumerate through the routing code
// itself: the draw values of each candidate are counted by routing, which
// makes the probabilities the routers' own (Java's).
//
// The candidate a draw takes must not decrease as the draw value grows
// (true of both routers: the first candidate with r <= its cumulative
// weight), so each candidate's values form one range, found by bisection.
func Enumerate(compile func(router.Rand) func(*router.Trace) *router.Set, ids func(*router.Set) []string) ([]Leaf, error) {
	sc := &script{}
	route := compile(sc.rand)
	run := func(plan []uint64) (*router.Set, []uint64, []drawn) {
		sc.plan, sc.calls = plan, sc.calls[:0]
		tr := &router.Trace{}
		set := route(tr)
		var picks []drawn
		for _, st := range tr.Steps {
			for _, c := range st.Conditions {
				if c.Branch == router.BranchWeighted {
					picks = append(picks, drawn{c.Weights, c.Candidate})
				}
			}
		}
		return set, append([]uint64(nil), sc.calls...), picks
	}
	var leaves []Leaf
	var walk func(plan []uint64, path []Pick) error
	walk = func(plan []uint64, path []Pick) error {
		set, calls, _ := run(plan)
		d := len(plan)
		if len(calls) <= d {
			if len(leaves) >= MaxLeaves {
				return fmt.Errorf("more than %d weighted outcomes", MaxLeaves)
			}
			leaves = append(leaves, makeLeaf(ids(set), path))
			return nil
		}
		n := calls[d]
		var weights []int64
		pickAt := func(x uint64) int {
			_, _, picks := run(append(append([]uint64(nil), plan...), x))
			if d < len(picks) {
				if weights == nil {
					weights = picks[d].weights
				}
				return picks[d].candidate
			}
			return -1
		}
		// Candidate ranges [lo, hi) of the draw value.
		type span struct {
			lo, n uint64
			cand  int
		}
		var spans []span
		for lo := uint64(0); lo < n; {
			t := pickAt(lo)
			a, b := lo+1, n
			for a < b {
				mid := a + (b-a)/2
				if pickAt(mid) != t {
					b = mid
				} else {
					a = mid + 1
				}
			}
			spans = append(spans, span{lo, a - lo, t})
			lo = a
		}
		// counts[i]: draw values taking candidate i of the trace's weights.
		// A draw without a weighted trace step (or a candidate outside the
		// trace's weights, or in two ranges) counts the ranges in order.
		counts := make([]int64, len(weights))
		aligned := len(weights) > 0
		for _, sp := range spans {
			if sp.cand < 0 || sp.cand >= len(weights) || counts[sp.cand] != 0 {
				aligned = false
				break
			}
			counts[sp.cand] = int64(sp.n)
		}
		if !aligned {
			counts = counts[:0]
			for _, sp := range spans {
				counts = append(counts, int64(sp.n))
			}
			weights = counts
		}
		for k, sp := range spans {
			pick := k
			if aligned {
				pick = sp.cand
			}
			next := append(append([]uint64(nil), plan...), sp.lo)
			lv := Pick{Weights: weights, Counts: counts, Pick: pick}
			if err := walk(next, append(append([]Pick(nil), path...), lv)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(nil, nil); err != nil {
		return nil, err
	}
	return leaves, nil
}

func makeLeaf(result []string, path []Pick) Leaf {
	p := big.NewRat(1, 1)
	l := Leaf{Result: result, Picks: []Pick{}}
	for _, lv := range path {
		var total int64
		for _, c := range lv.Counts {
			total += c
		}
		p.Mul(p, big.NewRat(lv.Counts[lv.Pick], total))
		w := lv.Weights[lv.Pick]
		l.Weight = &w
		l.Picks = append(l.Picks, lv)
	}
	l.P = p.RatString()
	if !strings.Contains(l.P, "/") {
		l.P += "/1"
	}
	l.Prob, _ = p.Float64()
	return l
}

// GrayInfo is what the gray balancer would do with the eligible providers.
type GrayInfo struct {
	Key      string         `json:"key"`
	Version  string         `json:"version"`
	Decision gray.Decision  `json:"decision"`
	Picked   string         `json:"picked,omitempty"`
	Error    string         `json:"error,omitempty"`
	Pools    map[string]int `json:"pools"`
}

// WriteTrace draws a routing trace as a tree, one line per router and per
// condition, ending with a "no provider" line when the chain stopped empty.
// explain prints it; the console shows it next to its drawn tree.
func WriteTrace(w io.Writer, color bool, steps []router.Step) {
	for i, s := range steps {
		last := i == len(steps)-1
		branch, indent := "├─", "│  "
		if last {
			branch, indent = "└─", "   "
		}
		ref := ""
		if s.Key != "" {
			ref = " [" + s.Key
			if s.Version != "" {
				ref += " " + s.Version
			}
			ref += "]"
		}
		out := fmt.Sprintf("%d → %d", s.In, s.Out)
		if s.Out == 0 {
			out = Paint(color, Red, out)
		} else if s.Out < s.In {
			out = Paint(color, Yellow, out)
		}
		fmt.Fprintf(w, "%s %-13s %s  %s%s", branch, s.Router, out, s.Branch, Paint(color, Dim, ref))
		if s.Detail != "" {
			fmt.Fprintf(w, " (%s)", s.Detail)
		}
		fmt.Fprintln(w)
		for j, c := range s.Conditions {
			cb := "├─"
			if j == len(s.Conditions)-1 {
				cb = "└─"
			}
			when := "when ✗"
			if c.WhenMatched {
				when = "when ✓"
			}
			dest := ""
			if c.Branch == router.BranchWeighted || (c.Destination > 0 && c.Branch == router.BranchMatched) {
				dest = fmt.Sprintf(" destination #%d", c.Destination)
			}
			fmt.Fprintf(w, "%s%s #%d %q  %s  %d → %d  %s%s\n", indent, cb, c.Index, c.Text, when, c.In, c.Out, c.Branch, dest)
		}
		if !last && s.Out == 0 {
			break
		}
	}
	if n := len(steps); n > 0 && steps[n-1].Out == 0 {
		fmt.Fprintf(w, "%s: the chain stops at %s (fail-fast)\n", Paint(color, Red, "no provider"), steps[n-1].Router)
	}
}

// Terminal colours of WriteTrace and the CLI's other output (Paint).
const (
	Reset  = "\x1b[0m"
	Red    = "\x1b[31m"
	Yellow = "\x1b[33m"
	Blue   = "\x1b[34m"
	Green  = "\x1b[32m"
	Dim    = "\x1b[2m"
	Bold   = "\x1b[1m"
)

// Paint wraps s in a terminal colour when on (and s is not empty).
func Paint(on bool, color, s string) string {
	if !on || s == "" {
		return s
	}
	return color + s + Reset
}
