package mesh

import (
	"sort"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// AppRule is the mesh rule in force for one provider application.
type AppRule struct {
	App     string // provider application (the key without .MESHAPPRULE)
	Key     string // config-center key
	Version string // accepted revision, e.g. "1#2"
	Rule    *Rule
}

// Branches of mesh routing (Java's StandardMeshRuleRouter).
const (
	BranchRouted  router.Branch = "mesh-routed"   // some application's destination subsets, intersected with the input
	BranchNoMatch router.Branch = "mesh-no-match" // rules in force, nothing chosen: the input (Java's empty protection)
	BranchNoRule  router.Branch = "no-rule"       // no application present has a mesh rule
	BranchThrows  router.Branch = "mesh-error"    // Java throws here: the call fails with no provider
	// Counter branches of one application's rule (see appState.countLayout).
	BranchDetailNoRoute router.Branch = "no-route"  // the matched routedetail has no route: the application adds nothing
	BranchNoSubset      router.Branch = "no-subset" // no destination subset of the matched routedetail has providers in the input
	invalidAppName                    = "unknown"
)

// Compiled is the mesh router compiled against one provider snapshot.
type Compiled struct {
	u      *router.Universe
	apps   []*appState
	active bool // Java's MeshRuleCache.containsRule
	keys   string
	rnd    router.Rand
}

type appState struct {
	app, key, version string
	rule              *Rule
	throws            string // VirtualService selection throws on every call
	vsIndex, route    int    // the VirtualService and dubbo route chosen for the consumer's service
	details           []detailState

	// cnt counts what the application's rule did with every call routed
	// without a step (the call path): one add per call.
	cnt                            *router.Counters
	idThrows, idNoRoute, idNoMatch int32
}

type detailState struct {
	idNoRoute, idNoSubset int32 // counter cells
	d                     *RouteDetail
	src                   []int8 // per match request: sourceLabels result
	dests                 []destState
	total                 int32 // Java's int sum of max(weight, 1) (may wrap)
	nullDst               bool  // a null route element: Java throws summing the weights
}

type destState struct {
	weight int32
	null   bool          // null destination: Java throws when it is reached
	chain  []*router.Set // the subset and its fallbacks, in order
	names  []string
	ids    []int32 // counter cell of each chain entry
}

// Compile builds the mesh router over the providers urls (member i of u is
// urls[i]) for a consumer: every provider application's subsets become
// interned sets and the VirtualService route for the consumer's service is
// chosen once. rules may name applications without providers: they are
// evaluated as Java evaluates a rule whose providers left (they can fail
// the call, never add a provider), and only while some application with a
// rule has providers.
// rnd draws weighted destinations (nil: router.DefaultRand).
func Compile(u *router.Universe, consumer *router.URL, urls []*router.URL, rules []AppRule, rnd router.Rand) *Compiled {
	return CompileConfigured(u, consumer, urls, nil, rules, rnd)
}

// CompileConfigured is Compile for a consumer with dynamic configuration
// (configurators): overrides[i] is provider i's override URL (nil, or a
// nil overrides: none), which Java's DubboServiceAddressURL.getParameter
// reads before anything else, so subset labels see the configured values
// (see ConfiguredLabelValue). consumer is the original consumer URL, not
// the configured one: Java's mesh router takes its source labels from its
// own URL and the registry wraps the original in every provider URL. The
// provider application stays the provider's own (getRemoteApplication).
func CompileConfigured(u *router.Universe, consumer *router.URL, urls, overrides []*router.URL, rules []AppRule, rnd router.Rand) *Compiled {
	if rnd == nil {
		rnd = router.DefaultRand
	}
	c := &Compiled{u: u, rnd: rnd}
	byApp := map[string][]int{}
	for i, p := range urls {
		if p == nil {
			continue
		}
		app := p.Params.Value("application")
		if app == "" || app == invalidAppName {
			continue
		}
		byApp[app] = append(byApp[app], i)
	}
	var keys []string
	sorted := append([]AppRule(nil), rules...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].App < sorted[j].App })
	service := consumer.Interface()
	for _, ar := range sorted {
		members := byApp[ar.App]
		if ar.Rule.Empty() {
			continue
		}
		keys = append(keys, ar.Key)
		st := &appState{app: ar.App, key: ar.Key, version: ar.Version, rule: ar.Rule, vsIndex: -1, route: -1}
		// An application without providers in the input keeps its rule in
		// Java's router (its group stays after its providers leave) and is
		// evaluated on every call: its matching can throw, its subsets are
		// empty. Java routes at all only while some application with a
		// rule has providers (MeshRuleCache.containsRule).
		var subsets map[string]*router.Set
		var nullSubset *router.Set
		if len(members) > 0 {
			c.active = true
			subsets, nullSubset = subsetSets(u, consumer, urls, overrides, members, ar.Rule)
		}
		lookup := func(name *string) *router.Set {
			if name == nil {
				if nullSubset == nil {
					return u.None()
				}
				return nullSubset
			}
			if s := subsets[*name]; s != nil {
				return s
			}
			return u.None()
		}
		st.selectRoute(service)
		if st.throws == "" && st.route >= 0 {
			dr := ar.Rule.VirtualServices[st.vsIndex].Spec.Dubbo[st.route]
			for _, d := range dr.RouteDetail {
				ds := detailState{d: d}
				if d != nil {
					for _, m := range d.Match {
						ds.src = append(ds.src, m.sourceLabels(consumer))
					}
					for _, rd := range d.Route {
						if rd == nil {
							ds.nullDst = true
							continue
						}
						w := rd.Weight
						if w < 1 {
							w = 1
						}
						ds.total += w // Java int arithmetic: wraps
						dst := destState{weight: rd.Weight, null: rd.Destination == nil}
						for x, n := rd.Destination, 0; x != nil && n <= maxFallbackChain; n++ {
							dst.chain = append(dst.chain, lookup(x.Subset))
							name := "<null>"
							if x.Subset != nil {
								name = *x.Subset
							}
							dst.names = append(dst.names, name)
							if x.Fallback == nil {
								break
							}
							x = x.Fallback.Destination
						}
						ds.dests = append(ds.dests, dst)
					}
				}
				st.details = append(st.details, ds)
			}
		}
		st.countLayout()
		c.apps = append(c.apps, st)
	}
	if !c.active {
		c.apps, keys = nil, nil
	}
	c.keys = strings.Join(keys, ",")
	return c
}

// countLayout lays out an application's counters: mesh-error (Java
// throws), not-applicable (no VirtualService route for the consumer's
// service), mesh-no-match (no routedetail matched); per routedetail of the
// chosen route no-route and no-subset; per destination the subset picked
// (destination) and each fallback subset taken (fallback). The layout
// follows the rule and the route chosen for the consumer, never the
// providers.
func (st *appState) countLayout() {
	var l router.CounterLayout
	st.idThrows = l.Add(st.app, BranchThrows)
	st.idNoRoute = l.Add(st.app, router.BranchNotApplicable)
	st.idNoMatch = l.Add(st.app, BranchNoMatch)
	for di := range st.details {
		ds := &st.details[di]
		scope := st.app + " routedetail[" + itoa(di) + "]"
		if ds.d != nil {
			scope += nameOf(ds.d.Name)
		}
		ds.idNoRoute = l.Add(scope, BranchDetailNoRoute)
		ds.idNoSubset = l.Add(scope, BranchNoSubset)
		for i := range ds.dests {
			d := &ds.dests[i]
			d.ids = make([]int32, len(d.chain))
			for k := range d.chain {
				detail := "route[" + itoa(i) + "] subset " + d.names[0]
				br := router.BranchDestination
				if k > 0 {
					detail += " → fallback " + d.names[k]
					br = router.BranchFallback
				}
				d.ids[k] = l.AddDetail(scope, br, detail)
			}
		}
	}
	// One block per application rule (its accepted version) and chosen
	// route.
	st.cnt = l.Build(st.rule)
}

// AppCounters are one application's mesh rule counters.
type AppCounters struct {
	App, Key, Version string
	Counters          *router.Counters
}

// Counters are the counters of every application with a rule and
// providers in the snapshot, by application name.
func (c *Compiled) Counters() []AppCounters {
	if c == nil {
		return nil
	}
	out := make([]AppCounters, 0, len(c.apps))
	for _, st := range c.apps {
		out = append(out, AppCounters{App: st.app, Key: st.key, Version: st.version, Counters: st.cnt})
	}
	return out
}

// AdoptCounters makes each application of c count into prev's cells for
// the same application rule (the same accepted version) and layout:
// counters survive a snapshot rebuild for a provider change and start
// again with a new rule version. It must be called before c is used.
func (c *Compiled) AdoptCounters(prev *Compiled) {
	if c == nil || prev == nil {
		return
	}
	for _, st := range c.apps {
		for _, p := range prev.apps {
			if p.app == st.app {
				st.cnt = st.cnt.Adopt(p.cnt)
			}
		}
	}
}

// selectRoute is getDubboRoute over the VirtualServices in document order:
// the first dubbo route whose services list is empty or matches the
// consumer's service (constant for a consumer, so chosen once).
func (st *appState) selectRoute(service string) {
	for vi, vs := range st.rule.VirtualServices {
		if vs.Spec == nil {
			st.throws = "VirtualService " + vs.Name + " has no spec (Java: NullPointerException)"
			return
		}
		for ri, r := range vs.Spec.Dubbo {
			if r == nil {
				st.throws = "VirtualService " + vs.Name + ": a dubbo route that is not a mapping (Java: NullPointerException)"
				return
			}
			if len(r.Services) == 0 {
				st.vsIndex, st.route = vi, ri
				return
			}
			for _, m := range r.Services {
				ok, th := m.match(service, true)
				if th {
					st.throws = "VirtualService " + vs.Name + ": a services matcher throws (null or bad regex)"
					return
				}
				if ok {
					st.vsIndex, st.route = vi, ri
					return
				}
			}
		}
	}
}

// subsetSets computes every subset of an application's DestinationRules
// (subsets of the same name are unioned, as Java's cache shares one list).
func subsetSets(u *router.Universe, consumer *router.URL, urls, overrides []*router.URL, members []int, r *Rule) (map[string]*router.Set, *router.Set) {
	type acc struct{ idx []int }
	named := map[string]*acc{}
	var null *acc
	for _, dr := range r.DestinationRules {
		for _, s := range dr.Spec.Subsets {
			var a *acc
			if s.Name == nil {
				if null == nil {
					null = &acc{}
				}
				a = null
			} else {
				if named[*s.Name] == nil {
					named[*s.Name] = &acc{}
				}
				a = named[*s.Name]
			}
			for _, i := range members {
				var o *router.URL
				if overrides != nil {
					o = overrides[i]
				}
				if labelsMatch(consumer, urls[i], o, s.Labels) {
					a.idx = append(a.idx, i)
				}
			}
		}
	}
	out := make(map[string]*router.Set, len(named))
	for n, a := range named {
		out[n] = u.Of(a.idx...)
	}
	var ns *router.Set
	if null != nil {
		ns = u.Of(null.idx...)
	}
	return out, ns
}

// providerFirst are the consumer parameters a ZooKeeper registry strips
// from the consumer URL it wraps into each provider URL (Java's
// ProviderFirstParams): for these the provider's value counts.
var providerFirst = map[string]bool{"release": true, "dubbo": true, "methods": true, "timestamp": true, "dubbo.tag": true}

// LabelValue is what Java's isLabelMatch compares a subset label with:
// URL.getOriginalServiceParameter on a 3.x interface-level provider URL
// (DubboServiceAddressURL): group, version and application are the
// provider's; side is the consumer's; category is "providers"; any other key
// is the consumer's value when it has a non-empty one, else the provider's
// (timestamp and pid are not kept on provider URLs).
func LabelValue(consumer, provider *router.URL, key string) (string, bool) {
	switch key {
	case "group", "version", "application":
		v, ok := provider.Params.Get(key)
		return v, ok
	case "side":
		v, ok := consumer.Params.Get("side")
		return v, ok
	case "category":
		return "providers", true
	}
	if !providerFirst[key] {
		if v := consumer.Params.Value(key); v != "" {
			return v, true
		}
	}
	if key == "timestamp" || key == "pid" {
		return "", false
	}
	v, ok := provider.Params.Get(key)
	return v, ok
}

// ConfiguredLabelValue is LabelValue when the consumer has configurators:
// the provider's override URL (configurator.Provider.Override; nil: none)
// first, when it has a non-empty value, as DubboServiceAddressURL reads.
// The override URL carries the consumer's application and side, so a label
// application: <provider-app> no longer matches once any configurator
// list exists (as in Java).
func ConfiguredLabelValue(consumer, provider, override *router.URL, key string) (string, bool) {
	if override != nil {
		if v := override.Params.Value(key); v != "" {
			return v, true
		}
	}
	return LabelValue(consumer, provider, key)
}

func labelsMatch(consumer, provider, override *router.URL, labels []KV) bool {
	for _, kv := range labels {
		v, ok := ConfiguredLabelValue(consumer, provider, override, kv.Key)
		if !ok || v != *kv.Value {
			return false
		}
	}
	return true
}

// Active reports whether some provider application of the snapshot has a
// mesh rule (otherwise Route passes every call through).
func (c *Compiled) Active() bool { return c != nil && c.active }

// Keys are the config-center keys of the rules in force, comma-separated.
func (c *Compiled) Keys() string {
	if c == nil {
		return ""
	}
	return c.keys
}
