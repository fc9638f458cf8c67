package cluster

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
)

// Options configure a Chain.
type Options struct {
	// OnRulePanic, if set, is told when compiling or routing panicked: the
	// rules of that update were rejected and the previous ones stay (the
	// last good keeps routing).
	OnRulePanic func(error)
	// Rand draws v3.1 condition destinations; nil means router.DefaultRand.
	Rand router.Rand
	// Observer receives metrics events; may be nil.
	Observer Observer
	// Adapt, if set, maps each provider invoker to the invoker the chain
	// hands out (the dubbo-go glue uses it to apply the consumer's load
	// balancer name). It is called off the hot path, once per invoker and
	// rebuild, and must return the same value for the same invoker.
	Adapt func(base.Invoker) base.Invoker
	// Name identifies the chain in NoProviderError (usually the interface).
	Name string
	// Configure, if set, maps a provider invoker whose parameters the
	// configurators changed to the invoker the balancers and the cluster
	// see (changed: the parameters written, see
	// configurator.Provider.Changed; plus the configured consumer's
	// retries). Called off the hot path, before Adapt; it must return the
	// same value for the same invoker and parameters.
	Configure func(ivk base.Invoker, changed map[string]string) base.Invoker
	// Dropped, if set, reports the providers the registry delivered but
	// that were dropped before they reached the chain (protocol mismatch,
	// for example); a NoProviderError names them. Called only when a call
	// finds no provider.
	Dropped func() []Dropped
	// OnNoProvider, if set, is called by List with every "no provider"
	// answer it hands out (off the hot path: only calls that found no
	// provider pay for it). The console keeps the last few.
	OnNoProvider func(*NoProviderError)
}

// Chain is the router chain of one consumer reference. Writers (SetInvokers,
// SetRule, SetConsumer, Update) serialise and publish a new Snapshot; Route
// and List are lock-free.
type Chain struct {
	cur  atomic.Pointer[Snapshot]
	opts Options

	mu       sync.Mutex // serialises rebuilds
	gen      uint64
	consumer *router.URL
	invokers []base.Invoker // as given (before Adapt)
	rules    [numSlots]RuleRef
	// prevRules are the rules in force before the last update that
	// compiled (nil once they were restored): what a rule that panics
	// while routing falls back to.
	prevRules *[numSlots]RuleRef
	cfg       *configurator.Lists // dynamic configuration (nil: none)
	cfgGen    uint32              // bumped when cfg or the consumer changes (never 0)

	// Provider state carried from rebuild to rebuild, so that a change
	// reads only the URLs of the providers that joined: the parsed URL of
	// every invoker seen (entries of invokers that left are pruned when the
	// map grows well past the live count), and the indexes the previous
	// snapshot was compiled with. A *router.URL is never modified after
	// it is parsed, so the values read from it stay valid.
	urls      entries
	cfgs      map[*urlEntry]*cfgEntry // the entries with hasCfg
	packer    *packer                 // the parameter table all those URLs share
	tagIndex  *tag.Index
	condIndex *condition.ProviderIndex
}

// urlEntry is the chain's cache of one invoker: its URL (held here, so
// that a provider costs one allocation; Snapshot.URLs point into entries)
// and the state carried between rebuilds. At 10,000 providers every byte
// here is 10 kB per reference: keep it at 128 (a size class; the URL is
// 112).
type urlEntry struct {
	url router.URL
	// gen: low 32 bits of the generation of the last snapshot holding the
	// invoker (0: none; the chain skips generations whose low bits are 0
	// and clears every entry's gen when they wrap).
	gen uint32
	pos int32 // its member in that snapshot
	// cfgGen: the chain's cfgGen when the configurator state was computed
	// (it wraps around: the chain then recomputes every entry).
	cfgGen  uint32
	noURL   bool // the invoker has no URL (u() is nil)
	mock    bool // url.Protocol == "mock"
	enabled bool
	// hasCfg: the chain's cfgs holds the entry's configurator state; it is
	// set while a configurator list applies to the invoker and stays set
	// (its tagPrev matters when the lists go away). Kept aside, not here:
	// most providers never have any.
	hasCfg bool
}

// entries maps invokers to their entries. The invokers of a reference are
// in practice pointers of one type: those are keyed by the pointer alone (a
// map slot of 16 bytes instead of the interface's 24, at 10,000 providers
// 13 B each), every other invoker by the interface. Two invokers of that
// type are the same invoker exactly when their pointers are equal, so the
// two keys identify the same invokers. The zero value is empty.
type entries struct {
	typ   reflect.Type // the pointer type keyed by pointer (the first one seen)
	byPtr map[unsafe.Pointer]*urlEntry
	other map[base.Invoker]*urlEntry
}

// ptr is ivk's pointer when it is of the type keyed by pointer.
func (m *entries) ptr(ivk base.Invoker) (unsafe.Pointer, bool) {
	t := reflect.TypeOf(ivk)
	if m.typ == nil && t.Kind() == reflect.Pointer {
		m.typ = t
	}
	if t != m.typ {
		return nil, false
	}
	return reflect.ValueOf(ivk).UnsafePointer(), true
}

func (m *entries) get(ivk base.Invoker) *urlEntry {
	if p, ok := m.ptr(ivk); ok {
		return m.byPtr[p]
	}
	return m.other[ivk]
}

func (m *entries) put(ivk base.Invoker, e *urlEntry) {
	if p, ok := m.ptr(ivk); ok {
		if m.byPtr == nil {
			m.byPtr = map[unsafe.Pointer]*urlEntry{}
		}
		m.byPtr[p] = e
		return
	}
	if m.other == nil {
		m.other = map[base.Invoker]*urlEntry{}
	}
	m.other[ivk] = e
}

func (m *entries) len() int { return len(m.byPtr) + len(m.other) }

// each calls f for every entry.
func (m *entries) each(f func(*urlEntry)) {
	for _, e := range m.byPtr {
		f(e)
	}
	for _, e := range m.other {
		f(e)
	}
}

// prune keeps the entries keep returns true for, in maps made anew at the
// size of what is left (deleting would keep their size).
func (m *entries) prune(keep func(*urlEntry) bool) {
	byPtr := map[unsafe.Pointer]*urlEntry{}
	for p, e := range m.byPtr {
		if keep(e) {
			byPtr[p] = e
		}
	}
	other := map[base.Invoker]*urlEntry{}
	for ivk, e := range m.other {
		if keep(e) {
			other[ivk] = e
		}
	}
	m.byPtr, m.other = byPtr, other
}

// cfgEntry is an invoker's configurator state.
type cfgEntry struct {
	prov    *configurator.Provider // nil: no configurator list
	tagURL  *router.URL            // the URL, or it with the configured dubbo.tag
	tagPrev *router.URL            // tagURL the previous snapshot was indexed with
	changed map[string]string
}

// u is the entry's URL (nil when the invoker has none).
func (e *urlEntry) u() *router.URL {
	if e.noURL {
		return nil
	}
	return &e.url
}

// New makes a chain for consumer with no provider and no rule.
func New(consumer *router.URL, opts Options) *Chain {
	c := &Chain{opts: opts, consumer: consumer, cfgs: map[*urlEntry]*cfgEntry{}, packer: newPacker(), cfgGen: 1}
	c.rebuild()
	return c
}

// Snapshot returns the snapshot in force.
func (c *Chain) Snapshot() *Snapshot { return c.cur.Load() }

// Consumer returns the consumer URL in force.
func (c *Chain) Consumer() *router.URL { return c.cur.Load().Consumer }

// SetInvokers replaces the provider list and publishes a new snapshot.
func (c *Chain) SetInvokers(invokers []base.Invoker) {
	c.Update(func(in *Input) { in.Invokers = invokers })
}

// SetRule replaces the rule of one slot and publishes a new snapshot.
func (c *Chain) SetRule(slot Slot, ref RuleRef) {
	if slot < 0 || slot >= numSlots {
		return
	}
	c.Update(func(in *Input) { in.Rules[slot] = ref })
}

// SetConsumer replaces the consumer URL and publishes a new snapshot.
func (c *Chain) SetConsumer(u *router.URL) {
	c.Update(func(in *Input) { in.Consumer = u })
}

// Input is what a snapshot is built from.
type Input struct {
	Consumer *router.URL
	Invokers []base.Invoker
	Rules    [numSlots]RuleRef
	// Configurators are the consumer's dynamic configuration lists
	// (registry, <consumer-app>.configurators, <svc>.configurators), applied
	// to every provider URL and to the consumer URL before any router, as
	// Java's RegistryDirectory does. nil: none.
	Configurators *configurator.Lists
}

// Update changes the input under the chain's writer lock and publishes one
// new snapshot for all the changes f makes.
func (c *Chain) Update(f func(*Input)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := Input{Consumer: c.consumer, Invokers: c.invokers, Rules: c.rules, Configurators: c.cfg}
	f(&in)
	if in.Configurators != c.cfg || in.Consumer != c.consumer {
		if c.cfgGen++; c.cfgGen == 0 { // wrapped: every entry is stale
			c.cfgGen = 1
			c.urls.each(func(e *urlEntry) { e.cfgGen = 0 })
		}
	}
	prevRules := c.rules
	c.consumer, c.invokers, c.rules, c.cfg = in.Consumer, in.Invokers, in.Rules, in.Configurators
	if err := c.safeRebuild(); err != nil {
		// A rule that panics the compiler is rejected: the rules in force
		// before this update stay (with the rest of the update), and if even
		// that fails the snapshot in force stays published.
		c.rules = prevRules
		c.reportPanic(err)
		if err := c.safeRebuild(); err != nil {
			c.reportPanic(err)
		}
		return
	}
	if !sameRules(&prevRules, &c.rules) {
		c.prevRules = &prevRules
	}
}

// sameRules reports whether two rule sets are the same accepted rules.
func sameRules(a, b *[numSlots]RuleRef) bool {
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Key != y.Key || x.Version != y.Version || x.Condition != y.Condition || x.Tag != y.Tag ||
			x.Affinity != y.Affinity || x.Script != y.Script || len(x.Mesh) != len(y.Mesh) {
			return false
		}
		for j := range x.Mesh {
			if x.Mesh[j].Version != y.Mesh[j].Version || x.Mesh[j].App != y.Mesh[j].App {
				return false
			}
		}
	}
	return true
}

// safeRebuild is rebuild with a panic turned into an error.
func (c *Chain) safeRebuild() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cluster %s: compiling the chain panicked: %v", c.opts.Name, r)
		}
	}()
	c.rebuild()
	return nil
}

func (c *Chain) reportPanic(err error) {
	if c.opts.OnRulePanic != nil {
		c.opts.OnRulePanic(err)
	}
}

// routePanicked handles a panic while routing one call on snapshot s: the
// rules s was compiled with, when an update had just changed them, are
// rejected (the previous rules are compiled again and published, the last
// good), and the call is routed on the snapshot in force. If that panics
// too, the call gets no provider.
func (c *Chain) routePanicked(s *Snapshot, r any, inv base.Invocation, trace *router.Trace) (out []base.Invoker) {
	err := fmt.Errorf("cluster %s: routing %s panicked on snapshot %d: %v", c.opts.Name, inv.MethodName(), s.Generation, r)
	c.mu.Lock()
	if c.cur.Load() == s && c.prevRules != nil {
		c.rules = *c.prevRules
		c.prevRules = nil
		if rerr := c.safeRebuild(); rerr != nil {
			c.reportPanic(rerr)
		}
	}
	c.mu.Unlock()
	c.reportPanic(err)
	next := c.cur.Load()
	if next == s {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			c.reportPanic(fmt.Errorf("cluster %s: routing %s panicked again on snapshot %d: %v", c.opts.Name, inv.MethodName(), next.Generation, r))
			out = nil
		}
	}()
	return next.Route(inv, trace, c.opts.Observer)
}

// rebuild compiles and publishes a snapshot; c.mu is held (or c is new).
func (c *Chain) rebuild() {
	start := time.Now()
	invs := make([]base.Invoker, 0, len(c.invokers))
	urls := make([]*router.URL, 0, len(c.invokers))
	// prevPos[i]: member of the previous snapshot holding urls[i], or -1
	// (tagPos: the same for the URL the tag router reads).
	prevPos := make([]int32, 0, len(c.invokers))
	// raw[i]: the invoker of urls[i] as given, whose dubbo-go URL holds
	// its address text (Location), which the condition index keeps instead
	// of a copy when it reads that provider.
	raw := make([]base.Invoker, 0, len(c.invokers))
	tagPos := prevPos
	var tagURLs []*router.URL
	var mocks []int
	var disabled []Disabled
	var provs []*configurator.Provider
	prevGen, gen := uint32(c.gen), c.gen+1
	if uint32(gen) == 0 { // the entries' gen wraps: none was in a snapshot
		gen++
		c.urls.each(func(e *urlEntry) { e.gen = 0 })
		prevGen = 0
	}
	gen32 := uint32(gen)
	consumer, consumerApplied := c.consumer, []configurator.Applied(nil)
	if !c.cfg.Empty() {
		consumer, consumerApplied = c.cfg.ConfigureConsumer(c.consumer, localHost(c.consumer))
		tagURLs = make([]*router.URL, 0, len(c.invokers))
		tagPos = make([]int32, 0, len(c.invokers))
		provs = make([]*configurator.Provider, 0, len(c.invokers))
	}
	for _, ivk := range c.invokers {
		if ivk == nil {
			continue
		}
		e := c.urls.get(ivk)
		pos := int32(-1)
		if e == nil {
			e = &urlEntry{}
			e.noURL = !c.packer.fill(&e.url, ivk.GetURL())
			e.mock = !e.noURL && e.url.Protocol == "mock"
			c.urls.put(ivk, e)
		} else if e.gen == prevGen && prevGen != 0 {
			pos = e.pos
		}
		u := e.u()
		var ec *cfgEntry // the entry's configurator state, if any
		if e.hasCfg {
			ec = c.cfgs[e]
		}
		if e.cfgGen != c.cfgGen {
			e.cfgGen = c.cfgGen
			st := cfgState{cfgEntry: cfgEntry{tagURL: u}}
			if ec != nil {
				st.cfgEntry = *ec
			}
			configureEntry(&st, u, c.cfg, c.consumer, consumer)
			e.enabled = st.enabled
			if ec != nil || st.prov != nil || st.changed != nil || st.tagURL != u {
				if ec == nil {
					ec = &cfgEntry{tagPrev: u}
					c.cfgs[e], e.hasCfg = ec, true
				}
				st.cfgEntry.tagPrev = ec.tagPrev
				*ec = st.cfgEntry
			}
		}
		// Without configurator state the tag router reads the URL itself.
		ce := cfgEntry{tagURL: u, tagPrev: u}
		if ec != nil {
			ce = *ec
		}
		if !e.enabled {
			disabled = append(disabled, Disabled{URL: u, Provider: ce.prov})
			continue
		}
		if ec != nil {
			ec.tagPrev = ce.tagURL
		}
		// A duplicate invoker keeps its first member (and reads as new).
		if e.gen != gen32 {
			e.gen, e.pos = gen32, int32(len(urls))
		}
		if e.mock {
			mocks = append(mocks, len(urls))
		}
		out := ivk
		if ce.changed != nil && c.opts.Configure != nil {
			out = c.opts.Configure(ivk, ce.changed)
		}
		if c.opts.Adapt != nil {
			out = c.opts.Adapt(out)
		}
		invs = append(invs, out)
		urls = append(urls, u)
		prevPos = append(prevPos, pos)
		raw = append(raw, ivk)
		if provs != nil {
			provs = append(provs, ce.prov)
			tp := pos
			if ce.tagPrev != ce.tagURL {
				tp = -1
			}
			tagPos = append(tagPos, tp)
			tagURLs = append(tagURLs, ce.tagURL)
		}
	}
	if c.urls.len() > 2*len(urls)+64 {
		c.urls.prune(func(e *urlEntry) bool {
			if e.gen != gen32 {
				delete(c.cfgs, e)
				return false
			}
			return true
		})
	}
	c.gen = gen
	u := router.NewUniverse(len(invs))
	if tagURLs == nil {
		tagURLs = urls
	}
	c.tagIndex = tag.NewIndex(u, tagURLs, c.tagIndex, tagPos)
	c.condIndex = condition.NewProviderIndexFrom(u, urls, c.condIndex, prevPos)
	c.condIndex.UseAddresses(func(i int) string { return location(raw[i]) })
	s := build(gen, u, invs, urls, tagURLs, mocks, consumer, configuredView{c.consumer, provs}, c.rules, c.tagIndex,
		condition.CompileOptions{Rand: c.opts.Rand, Index: c.condIndex})
	s.setConfigured(c.cfg, c.consumer, consumerApplied, provs, disabled)
	c.condIndex.UseAddresses(nil)
	c.condIndex.Trim() // kept only to carry values over to the next rebuild
	s.adoptCounters(c.cur.Load())
	c.cur.Store(s)
	if c.opts.Observer != nil {
		c.opts.Observer.Rebuilt(len(invs), time.Since(start).Seconds())
	}
}

// location is the address text dubbo-go keeps for ivk ("" if none).
func location(ivk base.Invoker) string {
	if cu := ivk.GetURL(); cu != nil {
		return cu.Location
	}
	return ""
}

// cfgState is what configureEntry computes for one provider.
type cfgState struct {
	cfgEntry
	enabled bool
}

// configureEntry recomputes the configurator state of provider u (e holds
// the previous one) for the lists cfg, the original consumer URL and the
// configured one.
func configureEntry(e *cfgState, u *router.URL, cfg *configurator.Lists, original, consumer *router.URL) {
	e.prov, e.changed = nil, nil
	if cfg.Empty() || u == nil {
		// Without configurators the directory still drops a provider that
		// registered itself disabled.
		p := configurator.Provider{URL: u, Consumer: original}
		e.enabled = u == nil || p.Enabled()
		e.tagURL = u
		return
	}
	p := cfg.ConfigureProvider(u, original, localHost(original))
	e.prov = &p
	e.enabled = p.Enabled()
	e.changed = p.Changed()
	// retries is read from the configured consumer URL (Java's
	// directoryUrl), never from a provider's override.
	if r, ok := consumer.Params.Get("retries"); ok && r != original.Params.Value("retries") {
		if e.changed == nil {
			e.changed = map[string]string{}
		}
		e.changed["retries"] = r
	} else if e.changed != nil {
		delete(e.changed, "retries")
		if len(e.changed) == 0 {
			e.changed = nil
		}
	}
	// The tag router reads the static tag with getParameter: the override
	// URL's dubbo.tag first. The condition routers read the provider's own
	// parameters (toOriginalMap).
	want := u.Params.Value(tag.TagKey)
	if v, ok := p.Param(tag.TagKey); ok {
		want = v
	}
	switch {
	case want == u.Params.Value(tag.TagKey):
		e.tagURL = u
	case e.tagURL != nil && e.tagURL != u && e.tagURL.Params.Value(tag.TagKey) == want:
		// unchanged: keep the pointer so the tag index is reused
	default:
		cp := *u
		cp.Params = router.ParamsOf(u.Params.Map())
		cp.Params.Set(tag.TagKey, want)
		e.tagURL = &cp
	}
}

// localHost is the consumer's IP (Java's NetUtils.getLocalHost on the
// consumer): the consumer URL's host.
func localHost(consumer *router.URL) string {
	if consumer == nil {
		return ""
	}
	return consumer.Host
}

// Route routes one call against the snapshot in force and returns the
// routed invokers (possibly empty; do not modify). trace may be nil; with a
// trace the route is an explanation and is not counted (see
// Snapshot.RouteSet).
func (c *Chain) Route(inv base.Invocation, trace *router.Trace) (out []base.Invoker) {
	s := c.cur.Load()
	defer func() {
		if r := recover(); r != nil {
			out = c.routePanicked(s, r, inv, trace)
		}
	}()
	return s.Route(inv, trace, c.opts.Observer)
}

// Routed is Route for callers that take an error: the routed invokers,
// or, when no provider is left, a NoProviderError that carries the trace
// of this call (routed again, on the same snapshot, with recording on) and
// the providers dropped before routing.
func (c *Chain) Routed(inv base.Invocation) ([]base.Invoker, *NoProviderError) {
	out := c.Route(inv, nil)
	if len(out) > 0 {
		return out, nil
	}
	s := c.cur.Load()
	trace := &router.Trace{}
	call := CallOf(inv)
	s.RouteSet(&call, trace, nil)
	np := &NoProviderError{Service: c.opts.Name, Method: call.Method, Providers: len(s.Invokers),
		Generation: s.Generation, Trace: trace, Wanted: wanted(s.Consumer)}
	if c.opts.Dropped != nil {
		np.Dropped = c.opts.Dropped()
	}
	if c.opts.OnNoProvider != nil {
		c.opts.OnNoProvider(np)
	}
	return nil, np
}

// List is Route at dubbo-go's directory boundary, whose List cannot return
// an error: when no provider is left it returns a single invoker whose
// Invoke fails with Routed's NoProviderError, so that dubbo-go's own
// cluster strategies hand that error to the application instead of a bare
// "no provider available". dubboroute's strategies call Routed.
func (c *Chain) List(inv base.Invocation) []base.Invoker {
	out, np := c.Routed(inv)
	if np == nil {
		return out
	}
	return NoProviderList(c.cur.Load(), np)
}

// NoProviderList is List's answer for err at dubbo-go's boundary: one
// invoker whose Invoke fails with err (its URL the first provider's of s).
func NoProviderList(s *Snapshot, err *NoProviderError) []base.Invoker {
	return []base.Invoker{newNoProviderInvoker(s, err)}
}
