package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// Result is the route command's answer for one case.
type Result struct {
	ID           json.RawMessage `json:"id"`
	Result       *[]string       `json:"result,omitempty"`
	Outcomes     []Outcome       `json:"outcomes,omitempty"`
	Destinations []Leaf          `json:"destinations,omitempty"`
	Rejected     []Rejection     `json:"rejected"`
	Ignored      []Ignored       `json:"ignored,omitempty"`
	Unread       []Unread        `json:"unread,omitempty"`
	Trace        []router.Step   `json:"trace,omitempty"`
	// Weights and Disabled are reported for cases with configurators
	// rules: every provider left after the directory's enabled check with
	// the weight Java's balancers read for the call's method, and the
	// providers kept out (with the key of the configurator that wrote
	// disabled, if one did).
	Weights  map[string]string `json:"weights,omitempty"`
	Disabled []DisabledInfo    `json:"disabled,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// DisabledInfo is a provider the configurators (or its own enabled=false)
// kept out of the chain.
type DisabledInfo struct {
	ID  string `json:"id"`
	Key string `json:"key,omitempty"`
}

// Outcome is one distinct result of --samples, with how often it came out.
type Outcome struct {
	Result []string `json:"result"`
	Count  int      `json:"count"`
}

// Leaf is one path through the v3.1 weighted picks of a call: the result,
// its exact probability under dubboroute (P, Prob: each destination w/W) and
// under Java 3.3 (JavaP, JavaProb: the first candidate w+1, the last w-1),
// the weight of the destination picked last (nil when no pick was made),
// and every pick on the path.
type Leaf struct {
	Result   []string `json:"result"`
	P        string   `json:"p"`
	Prob     float64  `json:"prob"`
	JavaP    string   `json:"java_p"`
	JavaProb float64  `json:"java_prob"`
	Weight   *int64   `json:"weight"`
	Picks    []Pick   `json:"picks"`
}

// Pick is one weighted draw: the candidates' effective weights, Java's
// number of draw values out of W that pick each ("counts", as the Java
// oracle names them), and the candidate taken.
type Pick struct {
	Weights    []int64 `json:"weights"`
	JavaCounts []int64 `json:"counts"`
	Pick       int     `json:"pick"`
}

type routeOptions struct {
	samples      int
	destinations bool
	trace        bool
	rand         router.Rand
}

// maxLeaves bounds the destination enumeration, as the Java oracle does.
const maxLeaves = 4096

// routeCase evaluates one case.
func routeCase(c *Case, opt routeOptions) (res Result) {
	res = Result{ID: c.ID, Rejected: []Rejection{}}
	if res.ID == nil {
		res.ID = json.RawMessage("null")
	}
	p, err := prepare(c, false)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Rejected = append(res.Rejected, p.rejected...)
	res.Ignored, res.Unread = p.ignored, p.unread
	if p.hasConfigurators {
		defer func() { p.reportConfigured(&res) }()
	}
	samples := opt.samples
	if c.Samples != nil {
		samples = *c.Samples
	}
	dest := opt.destinations
	if c.Destinations != nil {
		dest = *c.Destinations
	}
	switch {
	case dest:
		leaves, err := enumerate(p)
		if err != nil {
			res.Error = err.Error()
			return res
		}
		res.Destinations = leaves
	case samples > 0:
		ev := p.evaluator(opt.rand)
		index := map[string]int{}
		for i := 0; i < samples; i++ {
			ids := p.ids(ev.RouteSet(&p.call, nil))
			k := strings.Join(ids, "\x00")
			j, ok := index[k]
			if !ok {
				j = len(res.Outcomes)
				index[k] = j
				res.Outcomes = append(res.Outcomes, Outcome{Result: ids})
			}
			res.Outcomes[j].Count++
		}
	default:
		ev := p.evaluator(opt.rand)
		var tr *router.Trace
		if opt.trace {
			tr = &router.Trace{}
		}
		ids := p.ids(ev.RouteSet(&p.call, tr))
		res.Result = &ids
		if tr != nil {
			res.Trace = tr.Steps
		}
	}
	return res
}

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

// enumerate lists every outcome of the call's weighted picks with its exact
// probability, by depth-first search over the draws. The chain runs with a
// scripted Rand; at each draw the candidates' ranges of draw values are found
// by binary search on the destination the trace reports (destinations are
// tried in "to" order, so the picked index grows with the draw).
func enumerate(p *prepared) ([]Leaf, error) {
	return Enumerate(func(rnd router.Rand) func(*router.Trace) *router.Set {
		ev := p.evaluator(rnd)
		return func(tr *router.Trace) *router.Set { return ev.RouteSet(&p.call, tr) }
	}, p.ids)
}

// Enumerate lists every outcome of one call's weighted picks with its exact
// probability. compile builds the router chain with the given Rand (the
// chain draws every weighted pick from it) and returns a function routing
// the call with a trace; ids names the providers of a routed set. The route
// command and the console (the live snapshot's rules recompiled with a
// scripted Rand) share it, so both enumerate through the routing code
// itself.
func Enumerate(compile func(router.Rand) func(*router.Trace) *router.Set, ids func(*router.Set) []string) ([]Leaf, error) {
	sc := &script{}
	route := compile(sc.rand)
	run := func(plan []uint64) (*router.Set, []uint64, []int) {
		sc.plan, sc.calls = plan, sc.calls[:0]
		tr := &router.Trace{}
		set := route(tr)
		var picks []int
		for _, st := range tr.Steps {
			for _, c := range st.Conditions {
				if c.Branch == router.BranchWeighted {
					picks = append(picks, c.Destination)
				}
			}
		}
		return set, append([]uint64(nil), sc.calls...), picks
	}
	var leaves []Leaf
	var walk func(plan []uint64, path []drawLevel) error
	walk = func(plan []uint64, path []drawLevel) error {
		set, calls, _ := run(plan)
		d := len(plan)
		if len(calls) <= d {
			if len(leaves) >= maxLeaves {
				return fmt.Errorf("more than %d weighted outcomes", maxLeaves)
			}
			leaves = append(leaves, makeLeaf(ids(set), path))
			return nil
		}
		n := calls[d]
		pickAt := func(x uint64) int {
			_, _, picks := run(append(append([]uint64(nil), plan...), x))
			if d < len(picks) {
				return picks[d]
			}
			return -1
		}
		// Candidate ranges [lo, hi) of the draw value.
		var los []uint64
		var weights []int64
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
			los = append(los, lo)
			weights = append(weights, int64(a-lo))
			lo = a
		}
		for k, lo := range los {
			next := append(append([]uint64(nil), plan...), lo)
			if err := walk(next, append(append([]drawLevel(nil), path...), drawLevel{weights, k})); err != nil {
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

// drawLevel is one draw on a path: the candidates' weights and the pick.
type drawLevel struct {
	weights []int64
	pick    int
}

func makeLeaf(result []string, path []drawLevel) Leaf {
	p, jp := big.NewRat(1, 1), big.NewRat(1, 1)
	l := Leaf{Result: result, Picks: []Pick{}}
	for _, lv := range path {
		var total int64
		for _, w := range lv.weights {
			total += w
		}
		jc := javaCounts(lv.weights)
		p.Mul(p, big.NewRat(lv.weights[lv.pick], total))
		jp.Mul(jp, big.NewRat(jc[lv.pick], total))
		w := lv.weights[lv.pick]
		l.Weight = &w
		l.Picks = append(l.Picks, Pick{Weights: lv.weights, JavaCounts: jc, Pick: lv.pick})
	}
	l.P, l.JavaP = p.RatString(), jp.RatString()
	if !strings.Contains(l.P, "/") {
		l.P += "/1"
	}
	if !strings.Contains(l.JavaP, "/") {
		l.JavaP += "/1"
	}
	l.Prob, _ = p.Float64()
	l.JavaProb, _ = jp.Float64()
	return l
}

// javaCounts is how many of Java's W draw values pick each candidate:
// DestinationSet.randDestination returns the first i with r - prefix_i <= 0
// for r in [0, W), so the first gets w+1, the last w-1, the others w.
func javaCounts(w []int64) []int64 {
	out := append([]int64(nil), w...)
	if len(out) > 1 {
		out[0]++
		out[len(out)-1]--
	}
	return out
}

// ---------------------------------------------------------------------------

func runRoute(_ context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "route", "[flags] [FILE|-]",
		`Evaluate routing cases with the runtime chain (mock, tag, single conditions
and router URLs, service, provider-app, consumer-app; fail-fast) and print one
JSON object per case on stdout. Input (a file, or stdin): one JSON case, or JSON
Lines with --batch:

  {"id": "...", "rules": [R...], "consumer_url": "consumer://...",
   "invocation": {"method": "...", "arguments": [...], "attachments": {"k": "v"}},
   "providers": [{"id": "p1", "url": "dubbo://..."}]}

R is {"key": "<config-center key>", "content": "<rule text>"} (the same key
again is a change event; "content": null deletes), {"condition": "...",
"force": false, "enabled": true}, or {"url": "condition://...?rule=..."}.
Output: {"id", "result": [ids in input order], "rejected": [{"rule", "error"}],
"trace": [...]}, plus "unread" (keys this consumer does not read) and
"ignored" (rules without conditions). --samples N gives "outcomes": [{"result",
"count"}]; --destinations gives every weighted-pick outcome with its exact
probability ("destinations"). A case may set "samples" or "destinations"
itself. Exit status 1 if any case could not be evaluated.`)
	batch := fs.Bool("batch", false, "read JSON Lines: one case per line")
	samples := fs.Int("samples", 0, "route each case `n` times and count the distinct results")
	dest := fs.Bool("destinations", false, "enumerate v3.1 weighted picks: every outcome with its exact probability")
	noTrace := fs.Bool("no-trace", false, "leave the trace out of the output")
	seed := fs.Uint64("seed", 0, "seed for the random draws of --samples (0: random)")
	files, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(files) > 1 {
		return fs.usageErr("at most one input file")
	}
	if *samples < 0 {
		return fs.usageErr("--samples must be >= 0")
	}
	in := sio.In
	name := "<stdin>"
	if len(files) == 1 && files[0] != "-" {
		content, n, err := readInput(sio, files[0])
		if err != nil {
			return fail(sio, "route", err)
		}
		in, name = strings.NewReader(content), n
	}
	opt := routeOptions{samples: *samples, destinations: *dest, trace: !*noTrace, rand: randFor(*seed)}
	enc := json.NewEncoder(sio.Out)
	enc.SetEscapeHTML(false)
	failed := false
	emit := func(r Result) {
		if r.Error != "" {
			failed = true
		}
		_ = enc.Encode(r)
	}
	if !*batch {
		data, err := io.ReadAll(in)
		if err != nil {
			return fail(sio, "route", fmt.Errorf("read %s: %w", name, err))
		}
		c, err := decodeCase(data)
		if err != nil {
			return fail(sio, "route", fmt.Errorf("%s: %w", name, err))
		}
		emit(routeCase(c, opt))
	} else {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		line := 0
		for sc.Scan() {
			line++
			text := bytes.TrimSpace(sc.Bytes())
			if len(text) == 0 {
				continue
			}
			c, err := decodeCase(text)
			if err != nil {
				emit(Result{ID: idOf(text), Rejected: []Rejection{}, Error: fmt.Sprintf("%s line %d: %v", name, line, err)})
				continue
			}
			emit(routeCase(c, opt))
		}
		if err := sc.Err(); err != nil {
			return fail(sio, "route", fmt.Errorf("read %s: %w", name, err))
		}
	}
	if failed {
		return ExitFail
	}
	return ExitOK
}

// decodeCase decodes one case strictly: unknown fields are errors.
func decodeCase(data []byte) (*Case, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("invalid case: %w", err)
	}
	if dec.More() {
		return nil, errors.New("invalid case: more than one JSON value (use --batch for JSON Lines)")
	}
	return &c, nil
}

// idOf extracts the id of an undecodable case, if any.
func idOf(line []byte) json.RawMessage {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &v) == nil && v.ID != nil {
		return v.ID
	}
	return json.RawMessage("null")
}

// randFor is the Rand of a seed: 0 is router.DefaultRand.
func randFor(seed uint64) router.Rand {
	if seed == 0 {
		return router.DefaultRand
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func(n uint64) uint64 { return r.Uint64N(n) }
}
