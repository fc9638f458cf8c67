package assembly

import (
	"sort"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/rules"
)

// Machine is the one wiring of a reference's rules: a pure reducer. Events
// go in (the routers are built, a key's rule is read or changes, the
// registry's configurators change, providers are notified); effects come
// out (keys to subscribe and to drop, the rules and configurator lists to
// publish to the chain). It decides, once, which provider applications the
// routers follow — the tag, script and provider-app routers the first
// enabled provider's, the mesh router every enabled provider's — and what
// each key's rule does to which chain slot.
//
// The running consumer's binding holds one and performs its effects against
// the config center and the chain; Replay drives one with a scripted
// timeline for `dubboroute route`/`explain`, the console's what-if and the
// oracle. A Machine is not safe for concurrent use: its driver serialises
// the events.
type Machine struct {
	ref      *Reference
	statics  Statics
	grayRead bool

	urls []*router.URL // the providers last notified, in registry order
	cfg  configurator.Lists

	providerApp string          // the application the tag and provider-app routers follow
	followed    []string        // every application they followed, in order
	meshApps    map[string]bool // the applications the mesh router subscribes now
	meshEver    map[string]bool // ... and every one it subscribed

	subs    map[string]*sub
	static  cluster.Rules
	dynamic cluster.Rules
	// staticGone: a config-center delete of the slot's rule dropped its
	// static rule too, as in dubbo-go (whose routers hold one rule: the
	// static one until a config-center rule replaces it, none after that
	// rule's delete).
	staticGone [len(cluster.Rules{})]bool
	mesh       map[string]cluster.RuleRef // by provider application

	gray                 *gray.Rule
	grayKey, grayVersion string
}

// Statics are a reference's static rules (dubbo-go's dubbo.router YAML or
// WithRouter): rules by slot, and the application-keyed ones that apply
// while the routers follow that provider application.
type Statics struct {
	Slots       cluster.Rules
	ProviderApp map[string]cluster.RuleRef
	Tags        map[string]cluster.RuleRef
}

// Rule is what a key source holds for a key: its rule in force (an empty
// Ref when none) and, for a gray key, the gray balancer's rule.
type Rule struct {
	Ref  cluster.RuleRef
	Gray *gray.Rule
}

// Effects are what one event asks of the machine's driver.
type Effects struct {
	// Subscribe: keys to follow from now on, in order. The driver reads
	// each one's rule in force now and hands it to Read.
	Subscribe []Sub
	// Unsubscribe: keys no longer followed.
	Unsubscribe []string
	// Rules, when Publish is set, are the effective rules per chain slot
	// (a slot's dynamic rule, else its static one).
	Rules   cluster.Rules
	Publish bool
	// Configurators, when PublishConfigurators is set, are the lists in
	// force (nil: none, Java creates no override URL then).
	Configurators        *configurator.Lists
	PublishConfigurators bool
}

// Empty reports whether the effects ask for nothing.
func (e Effects) Empty() bool {
	return len(e.Subscribe) == 0 && len(e.Unsubscribe) == 0 && !e.Publish && !e.PublishConfigurators
}

// group says which router's follow a subscription belongs to.
type group int

const (
	groupRef  group = iota // the service and consumer-application keys, configurators
	groupApp               // the followed provider application's keys
	groupMesh              // <app>.MESHAPPRULE of every enabled provider application
)

type sub struct {
	Sub
	group group
	read  bool // the initial read happened
}

// NewMachine is the machine of the reference ref with its static rules;
// with grayRead the provider application's gray key is read too (the gray
// balancer's rule: the running consumer and explain read it, `route` does
// not).
func NewMachine(ref *Reference, statics Statics, grayRead bool) *Machine {
	m := &Machine{ref: ref, statics: statics, grayRead: grayRead,
		meshApps: map[string]bool{}, meshEver: map[string]bool{},
		subs: map[string]*sub{}, mesh: map[string]cluster.RuleRef{}}
	m.static = statics.Slots
	return m
}

// Start is the routers being built: the configurators keys and the
// consumer-side keys are subscribed (Java reads them then; the provider
// application's keys wait for the first address notification), and the
// static rules are published.
func (m *Machine) Start() Effects {
	var e Effects
	app, svc := m.ref.ConfiguratorKeys()
	m.subscribe(&e, Sub{Key: app, Kind: rules.KindConfigurators}, groupRef)
	m.subscribe(&e, Sub{Key: svc, Kind: rules.KindConfigurators}, groupRef)
	for _, s := range m.ref.ConsumerSubs() {
		m.subscribe(&e, s, groupRef)
	}
	m.publish(&e)
	return e
}

func (m *Machine) subscribe(e *Effects, s Sub, g group) {
	if _, ok := m.subs[s.Key]; ok {
		return
	}
	m.subs[s.Key] = &sub{Sub: s, group: g}
	e.Subscribe = append(e.Subscribe, s)
}

func (m *Machine) unsubscribe(e *Effects, key string) {
	if _, ok := m.subs[key]; !ok {
		return
	}
	delete(m.subs, key)
	e.Unsubscribe = append(e.Unsubscribe, key)
}

// Subscribed reports whether key is followed now.
func (m *Machine) Subscribed(key string) bool { _, ok := m.subs[key]; return ok }

// Read is the initial read of a key the machine asked to subscribe: the
// rule its source holds now. A provider-application condition key that
// holds none leaves the provider-app slot as it was (Java's
// ProviderAppStateRouter applies the key's content only when there is
// some).
func (m *Machine) Read(key string, r Rule) Effects {
	s, ok := m.subs[key]
	if !ok {
		return Effects{}
	}
	s.read = true
	if s.OnlyIfSet && r.Ref.Empty() {
		return Effects{}
	}
	return m.apply(s, r)
}

// Update is a change of a followed key's rule (ignored for a key no longer
// followed: a late event of a dropped subscription). A configurators change
// publishes the new lists; the driver then notifies the providers again
// (Refresh), as Java's RegistryDirectory refreshes its invokers.
func (m *Machine) Update(key string, r Rule) Effects {
	s, ok := m.subs[key]
	if !ok {
		return Effects{}
	}
	return m.apply(s, r)
}

func (m *Machine) apply(s *sub, r Rule) Effects {
	var e Effects
	switch s.Kind {
	case rules.KindConfigurators:
		list := configurator.ListApp
		if app, _ := m.ref.ConfiguratorKeys(); s.Key != app {
			list = configurator.ListService
		}
		m.cfg[list] = r.Ref.Configurators
		m.publishConfigurators(&e)
		return e
	case rules.KindMesh:
		m.mesh[s.Key[:len(s.Key)-len(rules.MeshSuffix)]] = r.Ref
		m.dynamic[cluster.SlotMesh] = m.meshRef()
	case rules.KindGray:
		m.gray, m.grayKey, m.grayVersion = r.Gray, s.Key, r.Ref.Version
		return e
	default:
		if len(s.Slots) == 0 {
			return e
		}
		for _, slot := range s.Slots {
			if r.Ref.Empty() && !m.dynamic[slot].Empty() && !m.static[slot].Empty() {
				m.staticGone[slot] = true
			}
			m.dynamic[slot] = r.Ref
		}
	}
	m.publish(&e)
	return e
}

// Configurators replaces the registry's configurator list (override://
// URLs of the registry, Dubbo 2.6's dynamic configuration; nil: none).
// The driver then notifies the providers again (Refresh).
func (m *Machine) Configurators(registry configurator.List) Effects {
	var e Effects
	m.cfg[configurator.ListRegistry] = registry
	m.publishConfigurators(&e)
	return e
}

// Providers is an address notification: urls are the providers in
// registry order, before configurators. The routers follow the
// applications of the providers the configurators leave enabled: the tag,
// script and provider-app routers the first one's (an empty list, or a
// first provider without an application, keeps the application followed
// so far), the mesh router every one's. A mesh application that has no
// enabled provider any more is dropped, its last rule kept (Java's mesh
// router keeps the group of an application whose providers left).
func (m *Machine) Providers(urls []*router.URL) Effects {
	m.urls = urls
	return m.Refresh()
}

// Refresh notifies the providers of the last Providers event again, after
// the configurators changed which of them are enabled.
func (m *Machine) Refresh() Effects {
	var e Effects
	first, apps := m.enabledApps()
	m.followMesh(&e, apps)
	if first != "" && first != m.providerApp {
		m.follow(&e, first)
	}
	if len(e.Subscribe) > 0 || len(e.Unsubscribe) > 0 {
		m.publish(&e)
	}
	return e
}

// NeedsURLs reports whether Providers needs the providers' full URLs: the
// configurators decide which are enabled. Without configurators a driver
// may pass URLs that carry only the application parameter.
func (m *Machine) NeedsURLs() bool { return !m.cfg.Empty() }

// enabledApps is the application of the first enabled provider and the set
// of the enabled providers' applications (empty and "unknown" left out).
func (m *Machine) enabledApps() (first string, apps map[string]bool) {
	apps = map[string]bool{}
	seenFirst := false
	for _, u := range m.urls {
		if u == nil || !m.Enabled(u) {
			continue
		}
		a := u.Application()
		if !seenFirst {
			first, seenFirst = a, true
		}
		if a != "" && a != "unknown" {
			apps[a] = true
		}
	}
	return first, apps
}

// Enabled reports whether provider u passes the directory's enabled check
// after the configurators in force.
func (m *Machine) Enabled(u *router.URL) bool {
	consumer := m.ref.Consumer
	pr := configurator.Provider{URL: u, Consumer: consumer}
	if !m.cfg.Empty() {
		pr = m.cfg.ConfigureProvider(u, consumer, consumer.Host)
	}
	return pr.Enabled()
}

// followMesh subscribes the mesh keys of applications new among apps and
// drops those of applications no longer among them.
func (m *Machine) followMesh(e *Effects, apps map[string]bool) {
	for _, app := range sortedKeys(m.meshApps) {
		if !apps[app] {
			delete(m.meshApps, app)
			m.unsubscribe(e, MeshKey(app))
		}
	}
	for _, app := range sortedKeys(apps) {
		if !m.meshApps[app] {
			m.meshApps[app], m.meshEver[app] = true, true
			m.subscribe(e, Sub{Key: MeshKey(app), Kind: rules.KindMesh, Slots: []cluster.Slot{cluster.SlotMesh}}, groupMesh)
		}
	}
}

// follow makes app the application the tag, script and provider-app
// routers follow: the previous one's keys are dropped, app's subscribed,
// its static tag and provider-app rules take their slots, and the
// provider-application affinity slot starts empty.
func (m *Machine) follow(e *Effects, app string) {
	for _, key := range m.keysOf(groupApp) {
		m.unsubscribe(e, key)
	}
	m.providerApp = app
	m.followed = append(m.followed, app)
	m.static[cluster.SlotTag] = m.statics.Tags[app]
	m.staticGone[cluster.SlotTag] = false
	if app != m.ref.App {
		m.static[cluster.SlotProviderApp] = m.statics.ProviderApp[app]
		m.staticGone[cluster.SlotProviderApp] = false
	}
	m.dynamic[cluster.SlotAffinityApp] = cluster.RuleRef{}
	for _, s := range m.ref.ProviderAppSubs(app) {
		if s.Kind == rules.KindGray && !m.grayRead {
			continue
		}
		if s.Kind == rules.KindTag || s.Kind == rules.KindScript {
			// The tag and script routers take the new application's rule,
			// none included (Java's TagStateRouter keeps the earlier one's:
			// a pinned divergence, known-first-app-change-keeps-earlier-tag-rule).
			m.dynamic[s.Slots[0]] = cluster.RuleRef{}
		}
		m.subscribe(e, s, groupApp)
	}
}

func (m *Machine) keysOf(g group) []string {
	var out []string
	for k, s := range m.subs {
		if s.group == g {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// meshRef combines the applications' mesh rules into the mesh slot's rule.
func (m *Machine) meshRef() cluster.RuleRef {
	var out []mesh.AppRule
	for _, app := range sortedKeys(m.mesh) {
		for _, ar := range m.mesh[app].Mesh {
			if !ar.Rule.Empty() {
				out = append(out, ar)
			}
		}
	}
	return cluster.RuleRef{Mesh: out}
}

func (m *Machine) publish(e *Effects) {
	e.Publish, e.Rules = true, m.Rules()
}

func (m *Machine) publishConfigurators(e *Effects) {
	e.PublishConfigurators, e.Configurators = true, m.ConfiguratorLists()
}

// Rules are the effective rules per slot: a slot's dynamic rule when it
// has one, else its static one (unless a config-center delete dropped it).
func (m *Machine) Rules() cluster.Rules {
	var eff cluster.Rules
	for i := range eff {
		eff[i] = m.dynamic[i]
		if eff[i].Empty() && !m.staticGone[i] {
			eff[i] = m.static[i]
		}
	}
	return eff
}

// ConfiguratorLists is a copy of the configurator lists in force, nil when
// there are none.
func (m *Machine) ConfiguratorLists() *configurator.Lists {
	if m.cfg.Empty() {
		return nil
	}
	cp := m.cfg
	return &cp
}

// ProviderApp is the application the tag and provider-app routers follow
// ("" before the first provider).
func (m *Machine) ProviderApp() string { return m.providerApp }

// EarlierApp is the application they followed before the current one (""
// if none).
func (m *Machine) EarlierApp() string {
	if len(m.followed) < 2 {
		return ""
	}
	return m.followed[len(m.followed)-2]
}

// Gray is the gray balancer's rule read (with grayRead), its key and version.
func (m *Machine) Gray() (r *gray.Rule, key, version string) {
	return m.gray, m.grayKey, m.grayVersion
}

// Following is what the machine follows now, for Reference.Slots: the
// provider application, the one before it, and every mesh application it
// subscribed.
func (m *Machine) Following() Following {
	f := Following{ProviderApp: m.providerApp, EarlierApp: m.EarlierApp(), MeshApps: map[string]bool{}, GrayRead: m.grayRead}
	for a := range m.meshEver {
		f.MeshApps[a] = true
	}
	return f
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
