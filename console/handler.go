package console

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/internal/outcome"
	"github.com/dubboroute/dubboroute/router"
)

// Options configure a console.
type Options struct {
	// Now is the clock the page and the JSON report (nil: time.Now).
	Now func() time.Time
	// AllowRemote lets Serve bind an address beyond loopback. The console
	// shows internal provider addresses, consumer URLs and rule texts and
	// has no authentication: expose it only behind something that has.
	AllowRemote bool
	// Hosts are the names (besides loopback addresses, localhost and the
	// IP address a connection arrives on) a request's Host header may give:
	// a page of another origin re-bound to this address by DNS (DNS
	// rebinding) is refused because its Host is its own name. Set it when
	// the console is reached by a name, e.g. behind a proxy.
	Hosts []string
	// MaxConcurrent bounds the what-if requests answered at once (0:
	// DefaultMaxConcurrent); more are answered 503 with Retry-After.
	MaxConcurrent int
	// Timeout bounds one request (0: DefaultTimeout); Serve's server also
	// sets its read and write timeouts from it.
	Timeout time.Duration
	// MaxOutcomeAddresses bounds the addresses listed per what-if outcome
	// (0: DefaultMaxOutcomeAddresses).
	MaxOutcomeAddresses int
}

// Console is the console's http.Handler. Its paths are relative to where
// it is mounted: "/" (the page), "/api/state" and "/api/whatif". Mount it
// under a prefix with http.StripPrefix, e.g.
//
//	mux.Handle("/console/", http.StripPrefix("/console", console.New(console.Options{})))
//
// Every request passes the same checks however the console is served: GET
// or HEAD only, a loopback caller unless Options.AllowRemote, a Host header
// naming a loopback address, localhost or one of Options.Hosts, a bounded
// query, Options.Timeout and at most Options.MaxConcurrent what-if requests
// at once. Provider and consumer URLs are shown redacted (RedactURL).
type Console struct {
	opts  Options
	slots chan struct{}
	timed http.Handler
}

// New makes a console.
func New(opts Options) *Console {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxOutcomeAddresses <= 0 {
		opts.MaxOutcomeAddresses = DefaultMaxOutcomeAddresses
	}
	c := &Console{opts: opts, slots: make(chan struct{}, opts.MaxConcurrent)}
	c.timed = http.TimeoutHandler(http.HandlerFunc(c.serve), opts.Timeout, "the dubboroute console: request took longer than "+opts.Timeout.String())
	return c
}

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"ts": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000Z")
	},
	"tsp": func(t *time.Time) string {
		if t == nil {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000Z")
	},
	"cls":    stepClass,
	"pct":    func(in, out int) int { return percent(out, in) },
	"lines":  numberLines,
	"prio":   func(p *int) string { return map[bool]string{true: "—", false: fmt.Sprint(deref(p))}[p == nil] },
	"join":   strings.Join,
	"dec":    func(i int) int { return i - 1 },
	"cells":  branchRows,
	"pcent":  func(f float64) string { return fmt.Sprintf("%.2f%%", f*100) },
	"picked": pickedText,
}).Parse(pageHTML))

// pickedText renders one weighted pick of an outcome: the candidate taken,
// the candidates' weights, and the draw values out of W that take it.
func pickedText(p outcome.Pick) string {
	var total, n int64
	for _, c := range p.Counts {
		total += c
	}
	if p.Pick >= 0 && p.Pick < len(p.Counts) {
		n = p.Counts[p.Pick]
	}
	return fmt.Sprintf("#%d of %v: %d/%d", p.Pick, p.Weights, n, total)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func percent(part, whole int) int {
	if whole <= 0 {
		return 0
	}
	return part * 100 / whole
}

// stepClass is a CSS class for a router step: empty, filtered or kept.
func stepClass(s router.Step) string {
	switch {
	case s.Out == 0:
		return "empty"
	case s.Out < s.In:
		return "filtered"
	default:
		return "kept"
	}
}

// branchRow is one counter cell as the page shows it: the scope only on
// the first row of a run of the same scope, and the count's share of the
// calls the router saw with the rule.
type branchRow struct {
	router.CounterValue
	Show  string // scope to show ("" when it repeats the row above)
	Share int    // percent of the router's calls
}

func branchRows(bc BranchCounter) []branchRow {
	// The calls a router saw with its rule: the "calls" cell where the
	// layout has one, else the sum of the cells of the first scope (whose
	// branches are exclusive).
	var calls uint64
	for _, c := range bc.Cells {
		if c.Branch == router.BranchCalls {
			calls = c.Count
			break
		}
	}
	if calls == 0 {
		for _, c := range bc.Cells {
			if len(bc.Cells) > 0 && c.Scope == bc.Cells[0].Scope && c.Branch != router.BranchCalls {
				calls += c.Count
			}
		}
	}
	out := make([]branchRow, 0, len(bc.Cells))
	prev := ""
	for i, c := range bc.Cells {
		r := branchRow{CounterValue: c}
		if i == 0 || c.Scope != prev {
			r.Show = c.Scope
		}
		prev = c.Scope
		if calls > 0 {
			r.Share = int(c.Count * 100 / calls)
		}
		out = append(out, r)
	}
	return out
}

// line is one numbered line of a rule text; Bad marks the line an error
// names.
type line struct {
	N    int
	Text string
	Bad  bool
}

func numberLines(text string, bad int) []line {
	var out []line
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, line{N: i + 1, Text: l, Bad: i+1 == bad})
	}
	return out
}

// pageData is what the page template renders.
type pageData struct {
	State     *State
	Query     Query
	ArgsText  string
	AttText   string
	WhatIf    *WhatIf
	TraceText string
}

// ServeHTTP implements http.Handler. Only GET and HEAD are served, to the
// callers and hosts the Console documentation names.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !c.guard(w, r) {
		return
	}
	c.timed.ServeHTTP(w, r)
}

func (c *Console) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch path := strings.TrimSuffix(r.URL.Path, "/"); path {
	case "", "/index.html":
		c.servePage(w, r)
	case "/api/state":
		writeJSON(w, http.StatusOK, collect(c.opts.Now()))
	case "/api/whatif":
		q := r.URL.Query()
		if n := len(q["arg"]) + len(q["attach"]); n > MaxQueryValues {
			writeJSON(w, http.StatusRequestEntityTooLarge, &WhatIf{Schema: Schema, Error: fmt.Sprintf("%d arguments and attachments, at most %d", n, MaxQueryValues)})
			return
		}
		atts, err := parseAttachments(q["attach"])
		if err != nil {
			writeJSON(w, http.StatusBadRequest, &WhatIf{Schema: Schema, Error: err.Error()})
			return
		}
		if !c.acquire(w) {
			return
		}
		defer c.release()
		res := whatIf(Query{Ref: q.Get("ref"), Method: q.Get("method"), Args: q["arg"], Attachments: atts}, c.opts.MaxOutcomeAddresses)
		code := http.StatusOK
		if res.Error != "" && len(res.Trace) == 0 {
			code = http.StatusBadRequest
		}
		writeJSON(w, code, res)
	default:
		http.NotFound(w, r)
	}
}

func (c *Console) servePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := pageData{State: collect(c.opts.Now())}
	d.Query.Ref, d.Query.Method = q.Get("ref"), q.Get("method")
	d.ArgsText, d.AttText = q.Get("args"), q.Get("attachments")
	if d.Query.Ref == "" && len(d.State.References) > 0 {
		d.Query.Ref = d.State.References[0].ID
	}
	if d.Query.Method != "" {
		if d.ArgsText != "" {
			d.Query.Args = strings.Split(strings.ReplaceAll(strings.TrimRight(d.ArgsText, "\r\n"), "\r\n", "\n"), "\n")
		}
		atts, err := parseAttachments(strings.Split(strings.ReplaceAll(d.AttText, "\r\n", "\n"), "\n"))
		switch {
		case err != nil:
			d.WhatIf = &WhatIf{Schema: Schema, Error: err.Error()}
		case len(d.Query.Args)+len(atts) > MaxQueryValues:
			d.WhatIf = &WhatIf{Schema: Schema, Error: fmt.Sprintf("%d arguments and attachments, at most %d", len(d.Query.Args)+len(atts), MaxQueryValues)}
		default:
			if !c.acquire(w) {
				return
			}
			defer c.release()
			d.Query.Attachments = atts
			d.WhatIf = whatIf(d.Query, c.opts.MaxOutcomeAddresses)
			var b bytes.Buffer
			outcome.WriteTrace(&b, false, d.WhatIf.Trace)
			d.TraceText = b.String()
		}
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, &d); err != nil {
		http.Error(w, "console: render page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'")
	_, _ = w.Write(buf.Bytes())
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, "console: encode JSON: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

// Server is a console listening on a port of its own.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Serve starts a console on addr (host:port; port 0 picks a free one). The
// host must be a loopback address or "localhost" unless opts.AllowRemote
// is set; an empty host (every interface) counts as beyond loopback.
func Serve(addr string, opts Options) (*Server, error) {
	if err := CheckBind(addr, opts.AllowRemote); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("console: listen on %s: %w", addr, err)
	}
	c := New(opts)
	s := &Server{ln: ln, srv: &http.Server{Handler: c, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: c.opts.Timeout + 5*time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// CheckBind reports whether the console may listen on addr: loopback hosts
// always, others only with allowRemote.
func CheckBind(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("console: address %q: %w", addr, err)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	what := "host " + host
	if host == "" {
		what = "every interface"
	}
	return fmt.Errorf("console: refusing to listen on %s (%s): the console shows internal addresses and rules without authentication; bind a loopback address or set AllowRemote", addr, what)
}

// Addr is the address the console listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL is the console page's URL.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }
