package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// Reports are printed as the fields rejected, ignored and unread.
	Reports
	Trace []router.Step `json:"trace,omitempty"`
	// Weights and Disabled are reported for cases with configurators
	// rules: every provider left after the directory's enabled check with
	// the weight Java's balancers read for the call's method, and the
	// providers kept out (with the key of the configurator that wrote
	// disabled, if one did).
	Weights  map[string]string `json:"weights,omitempty"`
	Disabled []DisabledInfo    `json:"disabled,omitempty"`
	// Followed is reported when configurators changed the first provider's
	// application: the tag and provider-app routers follow the new one
	// (Java's keep the earlier one's rule when the new one has none).
	Followed *Followed `json:"followed,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Followed is the provider application the tag and provider-app routers
// follow, and the one they followed before configurators changed the
// first provider.
type Followed struct {
	Application string `json:"application"`
	Before      string `json:"before"`
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

type routeOptions struct {
	samples      int
	destinations bool
	trace        bool
	rand         router.Rand
}

// routeCase evaluates one case.
func routeCase(c *Case, opt routeOptions) (res Result) {
	res = Result{ID: c.ID, Reports: Reports{Rejected: []Rejection{}}}
	if res.ID == nil {
		res.ID = json.RawMessage("null")
	}
	p, err := prepare(c, false)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Reports.Add(p.reports)
	if p.earlierApp != "" {
		res.Followed = &Followed{Application: p.providerApp, Before: p.earlierApp}
	}
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
				emit(Result{ID: idOf(text), Reports: Reports{Rejected: []Rejection{}}, Error: fmt.Sprintf("%s line %d: %v", name, line, err)})
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
