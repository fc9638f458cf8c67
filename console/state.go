package console

import (
	"sort"
	"strconv"
	"time"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/tag"
	"github.com/dubboroute/dubboroute/rules"
)

// Schema names the JSON shape of the console's endpoints. It changes only
// when a field is removed or changes meaning; new fields may be added.
const Schema = "dubboroute.console/v1"

// State is the answer of GET api/state.
type State struct {
	Schema      string            `json:"schema"`
	GeneratedAt time.Time         `json:"generated_at"`
	ChainOrder  []ChainEntry      `json:"chain_order"`
	References  []Reference       `json:"references"`
	Rules       []Rule            `json:"rules"`
	GrayPicks   map[string]uint64 `json:"gray_picks"`
	// Mocked counts the calls answered by service downgrade (mock), by
	// "<service>.<method> <mode>/<outcome>".
	Mocked map[string]uint64 `json:"mocked_calls"`
	// Outliers are the references with outlier ejection or a retry policy:
	// every provider's state (ejected ones with reason, since and until)
	// and the retry budgets, by interface (docs/resilience.md).
	Outliers map[string]extension.OutlierReport `json:"outliers,omitempty"`
	Holds    []Hold                             `json:"holds"`
}

// ChainEntry is one stage of the chain, in call order.
type ChainEntry struct {
	Router string `json:"router"`
	// Priority is Java Dubbo's state-router priority (lower runs first);
	// nil for the load balancer, which runs after every router.
	Priority *int `json:"priority"`
	// Kind is "router" or "load balancer".
	Kind string `json:"kind"`
	// RuleKey says which config-center key feeds it (a pattern).
	RuleKey string `json:"rule_key,omitempty"`
}

// Reference is one consumer reference (a dubboroute binding).
type Reference struct {
	// ID names the reference in the what-if form and api/whatif's ref
	// parameter: <interface>@<consumer-app>, with #<n> appended for the
	// n-th (n >= 2) reference of the same pair.
	ID          string `json:"id"`
	Interface   string `json:"interface"`
	ConsumerApp string `json:"consumer_app"`
	ProviderApp string `json:"provider_app"`
	LoadBalance string `json:"load_balance"`
	ConsumerURL string `json:"consumer_url"`
	// Generation is the routing snapshot in force.
	Generation uint64     `json:"generation"`
	Providers  []Provider `json:"providers"`
	// Slots are the rules compiled into the snapshot, one per router slot.
	Slots []Slot `json:"slots"`
	// Counters are calls seen per router, by outcome.
	Counters []Counter `json:"counters"`
	// Branches are the per-branch counters of every router with a rule in
	// force (and of the tag router, which always routes), in chain order.
	Branches   []BranchCounter `json:"branches"`
	Gray       GrayPools       `json:"gray"`
	NoProvider []NoProvider    `json:"no_provider"`
}

// Provider is one provider of a snapshot.
type Provider struct {
	Address     string `json:"address"`
	Application string `json:"application"`
	// Tag is the provider's static dubbo.tag ("" untagged).
	Tag string `json:"tag"`
	// DynamicTags are the tags of the tag rule in force whose requests the
	// tag router sends to this provider (its dynamic-hit pools).
	DynamicTags []string `json:"dynamic_tags,omitempty"`
	// Params are the provider's URL parameters that routing rules commonly
	// read (status, version, group, region, zone, env), when set.
	Params map[string]string `json:"params,omitempty"`
	// Weight is the effective weight now (configured weight after warm-up),
	// as the weighted random balancer sees it.
	Weight int64 `json:"weight"`
	// Gray is true when the gray balancer puts it in the gray pool.
	Gray bool `json:"gray"`
	// Hold is "held" (kept by empty protection though its registry entry is
	// gone), "pending" (its removal waits out the delete grace) or "".
	Hold string `json:"hold,omitempty"`
	// URL is the provider's URL with its userinfo and credential-like
	// parameters (token, password, secret...) redacted (RedactURL).
	URL string `json:"url"`
}

// shownParams are the provider parameters listed in Provider.Params.
var shownParams = []string{"status", "version", "group", "region", "zone", "env"}

// Slot is the rule compiled into one router slot.
type Slot struct {
	Router  string `json:"router"`
	Key     string `json:"key,omitempty"`
	Version string `json:"version,omitempty"`
	// Kind is the rule's kind, "" when no rule is in force.
	Kind string `json:"kind,omitempty"`
}

// Counter is the calls one router saw, by outcome.
type Counter struct {
	Router   string `json:"router"`
	Kept     uint64 `json:"kept"`
	Filtered uint64 `json:"filtered"`
	Empty    uint64 `json:"empty"`
}

// BranchCounter is what one router's rule did with the calls routed
// through the chain: a cell per branch of the rule, counted on the call
// path (explain and what-if are not counted). The cells belong to one rule
// version: a snapshot rebuilt for a provider change keeps them, a new
// version starts from zero (Since).
type BranchCounter struct {
	Router  string `json:"router"`
	Key     string `json:"key,omitempty"`
	Version string `json:"version,omitempty"`
	// Since is when this rule version started counting in this process.
	Since time.Time `json:"since"`
	// Cells are {scope, branch, detail, count} in the router's layout order:
	// scope is the part of the rule ("rule", a condition line "#0 ...",
	// "static tags", "dynamic rule", a mesh application or routedetail,
	// "key <affinity key>"); branch is the trace's branch code (plus "calls"
	// and "destination"); detail tells cells of one branch apart (a v3.1
	// destination, a dynamic tag, a mesh subset).
	Cells []router.CounterValue `json:"cells"`
}

// GrayPools is the gray balancer's view of a reference's providers.
type GrayPools struct {
	Key     string `json:"key"`
	InForce bool   `json:"in_force"`
	Gray    int    `json:"gray"`
	Normal  int    `json:"normal"`
	// Delegate is the balancer inside a pool.
	Delegate gray.Delegate `json:"delegate"`
}

// NoProvider is a recent call routing left without a provider.
type NoProvider struct {
	At         time.Time     `json:"at"`
	Method     string        `json:"method"`
	Providers  int           `json:"providers"`
	Generation uint64        `json:"generation"`
	Error      string        `json:"error"`
	Trace      []router.Step `json:"trace"`
}

// Rule is one subscribed config-center key.
type Rule struct {
	Key        string     `json:"key"`
	Kind       string     `json:"kind"`
	InForce    bool       `json:"in_force"`
	Version    string     `json:"version,omitempty"`
	Content    string     `json:"content,omitempty"`
	AcceptedAt *time.Time `json:"accepted_at,omitempty"`
	// Subscribers is how many router chains follow the key (a gray rule
	// feeds the process-wide balancer instead, so it has none).
	Subscribers int       `json:"subscribers"`
	Rejected    *Rejected `json:"rejected,omitempty"`
	// Source names where the key is read: "zookeeper <node path>",
	// "Nacos dataId <key> group <group> namespace <ns>", or dubbo-go's
	// config center.
	Source string `json:"source,omitempty"`
}

// Rejected is the last update of a key that was not applied.
type Rejected struct {
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
	Line    int       `json:"line,omitempty"`
	Ignored bool      `json:"ignored,omitempty"`
	Content string    `json:"content"`
}

// Hold is a provider removal held back (process-wide).
type Hold struct {
	Interface string    `json:"interface"`
	Address   string    `json:"address"`
	State     string    `json:"state"`
	Since     time.Time `json:"since"`
	URL       string    `json:"url"`
}

// chainOrder is Java Dubbo 3.3's consumer chain as dubboroute runs it.
func chainOrder() []ChainEntry {
	prio := map[string]int{
		cluster.RouterMock: -100, cluster.RouterTag: 100, cluster.RouterService: 140,
		cluster.RouterProviderApp: 145, cluster.RouterConsumerApp: 150, cluster.RouterScript: 200,
	}
	keys := map[string]string{
		cluster.RouterTag:         "<provider-app>" + rules.TagSuffix,
		cluster.RouterService:     "<interface>:<version>:<group>" + rules.ConditionSuffix,
		cluster.RouterProviderApp: "<provider-app>" + rules.ConditionSuffix,
		cluster.RouterConsumerApp: "<consumer-app>" + rules.ConditionSuffix,
		cluster.RouterScript:      "<provider-app>" + rules.ScriptSuffix,
	}
	var out []ChainEntry
	for _, name := range cluster.RouterNames {
		e := ChainEntry{Router: name, Kind: "router", RuleKey: keys[name]}
		if p, ok := prio[name]; ok {
			e.Priority = &p
		}
		out = append(out, e)
	}
	out = append(out, ChainEntry{Router: extension.GrayName, Kind: "load balancer", RuleKey: "<provider-app>" + rules.GraySuffix})
	return out
}

// ref is a binding with its console ID.
type ref struct {
	id string
	b  *extension.Binding
}

// refs lists the live bindings with stable IDs.
func refs() []ref {
	seen := map[string]int{}
	var out []ref
	for _, b := range extension.AllBindings() {
		id := b.Interface() + "@" + b.ConsumerApp()
		seen[id]++
		if n := seen[id]; n > 1 {
			id += "#" + strconv.Itoa(n)
		}
		out = append(out, ref{id: id, b: b})
	}
	return out
}

func findRef(id string) (ref, bool) {
	for _, r := range refs() {
		if r.id == id {
			return r, true
		}
	}
	return ref{}, false
}

// collect reads the process's routing state.
func collect(now time.Time) *State {
	st := &State{Schema: Schema, GeneratedAt: now, ChainOrder: chainOrder(), References: []Reference{},
		Rules: []Rule{}, GrayPicks: extension.GrayPicks(), Mocked: extension.Mocked(), Outliers: extension.Outliers(), Holds: []Hold{}}
	holds := extension.Holds()
	for _, h := range holds {
		st.Holds = append(st.Holds, Hold{Interface: h.Interface, Address: h.Address, State: h.State, Since: h.Since, URL: RedactURL(h.URL)})
	}
	for _, r := range refs() {
		st.References = append(st.References, reference(r, holds))
	}
	for _, rs := range extension.RuleStates() {
		x := Rule{Key: rs.Key, Kind: string(rs.Kind), InForce: rs.InForce, Version: rs.Version, Subscribers: rs.Subscribers, Source: rs.Source}
		if rs.InForce {
			x.Content = rs.Content
		}
		if !rs.Accepted.IsZero() {
			t := rs.Accepted
			x.AcceptedAt = &t
		}
		if j := rs.Rejected; j != nil {
			x.Rejected = &Rejected{At: j.At, Error: j.Error, Line: j.Line, Ignored: j.Ignored, Content: j.Content}
		}
		st.Rules = append(st.Rules, x)
	}
	return st
}

func reference(r ref, holds []extension.Hold) Reference {
	b := r.b
	s := b.Chain().Snapshot()
	x := Reference{ID: r.id, Interface: b.Interface(), ConsumerApp: b.ConsumerApp(), ProviderApp: b.ProviderApp(),
		LoadBalance: b.LoadBalance(), Generation: s.Generation, Providers: []Provider{}, NoProvider: []NoProvider{}}
	if s.Consumer != nil {
		x.ConsumerURL = RedactURL(s.Consumer.String())
	}
	held := map[string]string{}
	for _, h := range holds {
		if h.Interface == x.Interface {
			held[h.Address] = h.State
		}
	}
	plan := extension.GrayLoadBalance().Plan(s.Invokers)
	dyn := dynamicTags(s)
	for i, u := range s.URLs {
		if u == nil {
			continue
		}
		p := Provider{Address: u.Address(), Application: u.Application(), Tag: u.Params.Value("dubbo.tag"), URL: RedactURL(providerURL(s, i))}
		for _, k := range shownParams {
			if v, ok := u.Params.Get(k); ok {
				if p.Params == nil {
					p.Params = map[string]string{}
				}
				p.Params[k] = v
			}
		}
		if plan != nil {
			p.Weight, p.Gray = plan.Weight(i), plan.IsGray(i)
		}
		p.Hold = held[p.Address]
		p.DynamicTags = dyn[i]
		x.Providers = append(x.Providers, p)
	}
	sort.SliceStable(x.Providers, func(i, j int) bool { return x.Providers[i].Address < x.Providers[j].Address })
	for slot, ref := range s.Rules {
		sl := Slot{Router: cluster.Slot(slot).String(), Key: ref.Key, Version: ref.Version}
		switch {
		case ref.Condition != nil:
			sl.Kind = string(rules.KindCondition)
		case ref.Tag != nil:
			sl.Kind = string(rules.KindTag)
		}
		x.Slots = append(x.Slots, sl)
	}
	for _, c := range b.Counters() {
		x.Counters = append(x.Counters, Counter{Router: c.Router, Kept: c.Kept, Filtered: c.Filtered, Empty: c.Empty})
	}
	x.Branches = []BranchCounter{}
	for _, bc := range s.BranchCounters() {
		x.Branches = append(x.Branches, BranchCounter{Router: bc.Router, Key: bc.Key, Version: bc.Version, Since: bc.Since, Cells: bc.Values})
	}
	x.Gray.Key = x.ProviderApp + rules.GraySuffix
	x.Gray.InForce = x.ProviderApp != "" && extension.GrayLoadBalance().Rule(x.ProviderApp) != nil
	if plan != nil {
		x.Gray.Gray, x.Gray.Normal = plan.Pools()
		x.Gray.Delegate = plan.Delegate()
	}
	for _, np := range b.NoProviders() {
		e := np.Err
		n := NoProvider{At: np.At, Method: e.Method, Providers: e.Providers, Generation: e.Generation, Error: redactText(e.Error()), Trace: []router.Step{}}
		if e.Trace != nil {
			n.Trace = e.Trace.Steps
		}
		x.NoProvider = append(x.NoProvider, n)
	}
	return x
}

// providerURL is the provider's URL as the registry gave it (the invoker's
// URL before the consumer's load balancer was applied).
func providerURL(s *cluster.Snapshot, i int) string {
	if i < len(s.Invokers) && s.Invokers[i] != nil {
		ivk := s.Invokers[i]
		if w, ok := ivk.(interface{ Unwrap() base.Invoker }); ok {
			ivk = w.Unwrap()
		}
		if u := ivk.GetURL(); u != nil {
			return u.String()
		}
	}
	if u := s.URLs[i]; u != nil {
		return u.String()
	}
	return ""
}

// dynamicTags names, per provider member, the tags of the tag rule in force
// that route to it. The tag router itself is asked: the snapshot's
// providers and tag rule (no condition rule) compiled as the chain compiles
// them, and for each tag a request carrying it with dubbo.force.tag=true,
// counted only when the router reports a dynamic hit.
func dynamicTags(s *cluster.Snapshot) map[int][]string {
	tr := s.Rules[cluster.SlotTag].Tag
	if tr == nil || len(s.URLs) == 0 {
		return nil
	}
	var only cluster.Rules
	only[cluster.SlotTag] = s.Rules[cluster.SlotTag]
	snap := cluster.NewSnapshot(s.Consumer, s.URLs, only, cluster.Options{})
	out := map[int][]string{}
	for _, t := range tr.Tags {
		inv := invocation.NewRPCInvocation("$console", nil, map[string]any{tag.TagKey: t.Name, tag.ForceTagKey: "true"})
		call := cluster.CallOf(inv)
		trace := &router.Trace{}
		set := snap.RouteSet(&call, trace, nil)
		if len(trace.Steps) < 2 || trace.Steps[1].Branch != router.BranchDynamicHit {
			continue
		}
		set.ForEach(func(i int) { out[i] = append(out[i], t.Name) })
	}
	return out
}
