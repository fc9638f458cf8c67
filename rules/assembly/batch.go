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

// Event is one keyed rule event of a batch: Content nil is a delete.
type Event struct {
	// Index identifies the event in reports (the case's rule index).
	Index   int
	Key     rules.Key
	Content *string
}

// Rejection is a rule the runtime would not apply because it fails to parse.
type Rejection struct {
	Rule  int    `json:"rule"`
	Error string `json:"error"`
}

// Unread is a config-center key no router of this consumer reads.
type Unread struct {
	Rule   int    `json:"rule"`
	Key    string `json:"key"`
	Reason string `json:"reason,omitempty"`
}

// Ignored is a rule Java accepts but does not apply (no conditions, a
// configVersion above v3.1, ...): the previous rule of the key stays in
// force, without an error.
type Ignored struct {
	Rule   int    `json:"rule"`
	Reason string `json:"reason"`
}

// Batch is a reference's rules assembled from a batch of keyed events.
type Batch struct {
	// Rules are the rules per chain slot.
	Rules cluster.Rules
	// Configurators are the configurator lists in force (the registry list
	// as given, then the config-center ones).
	Configurators configurator.Lists
	// HasConfigurators: a .configurators key was among the events.
	HasConfigurators bool
	// Gray is the gray rule in force (read only with Following.GrayRead),
	// GrayKey its key and GrayVersion its version.
	Gray                 *gray.Rule
	GrayKey, GrayVersion string
	// ProviderApp is the application the tag and provider-app routers
	// follow (the first enabled provider's after every configurator), and
	// EarlierApp the one they followed before configurators changed the
	// first provider ("" if they did not).
	ProviderApp, EarlierApp string
	// The reports, in the order the events were applied.
	Rejected []Rejection
	Ignored  []Ignored
	Unread   []Unread
}

// keyState is one key while a batch is applied.
type keyState struct {
	rev int
}

// Assemble applies a batch of keyed events to the reference whose
// providers are urls (in registry order), as the running consumer applies
// them: the first content of every key is its initial read, in place
// before the routers are built; later contents of a key are change events,
// applied in order. Configurators go first (they decide which providers
// become invokers, and so which provider application the routers follow);
// then the consumer-side keys (read when the routers are built), then the
// provider-application condition keys (read at the first address
// notification), then the change events. registry is the list from the
// registry's override:// URLs (nil if none). With grayRead false, gray keys
// are reported unread without being parsed (gray rules steer the
// balancer, not eligibility).
func (r *Reference) Assemble(urls []*router.URL, registry configurator.List, events []Event, grayRead bool) *Batch {
	b := &Batch{}
	if registry != nil {
		b.Configurators[configurator.ListRegistry] = registry
		b.HasConfigurators = true
	}
	consumerApp := r.App
	f := Following{MeshApps: map[string]bool{}, GrayRead: grayRead}
	if len(urls) > 0 {
		f.ProviderApp = urls[0].Application()
	}
	meshRefs := map[string]cluster.RuleRef{}
	// Java's mesh router subscribes <app>.MESHAPPRULE only while it holds
	// providers of that application: an application that has none after
	// the initial configurators and some after the later ones is
	// subscribed at that last address notification, and its router reads
	// the key's content as it is then, never the earlier contents.
	initialMesh, lateMesh := map[string]bool{}, map[string]bool{}
	// The same holds for the tag and provider-app routers: when the first
	// provider's application is followed only from the last address
	// notification on (no enabled provider before, or another
	// application's), Java's router subscribes its key then and reads the
	// content as it is, once (TagStateRouter / ProviderAppStateRouter
	// notify); a content that fails leaves the router's rule as it was.
	lateApp := ""
	// lateRead holds, per key read late, its last event: read once, below.
	lateRead := map[string]Event{}
	states := map[string]*keyState{}
	var initial, updates []Event
	for _, ev := range events {
		if _, ok := states[ev.Key.Key]; !ok {
			states[ev.Key.Key] = &keyState{}
			initial = append(initial, ev)
		} else {
			updates = append(updates, ev)
		}
	}
	providerAppKey := func(k rules.Key) bool {
		return k.Kind == rules.KindCondition && !k.Service && k.Prefix != consumerApp
	}
	apply := func(ev Event, initialRead bool) {
		st := states[ev.Key.Key]
		slots, isGray, why := r.Slots(ev.Key, f)
		if ev.Key.Kind == rules.KindGray && !isGray {
			b.Unread = append(b.Unread, Unread{Rule: ev.Index, Key: ev.Key.Key, Reason: why})
			return
		}
		if ev.Key.Kind == rules.KindConfigurators {
			b.applyConfigurators(ev, initialRead, why)
			return
		}
		content := ""
		if ev.Content != nil {
			content = *ev.Content
		}
		late := (ev.Key.Kind == rules.KindMesh && lateMesh[ev.Key.Prefix]) ||
			(lateApp != "" && ev.Key.Prefix == lateApp && (ev.Key.Kind == rules.KindTag || providerAppKey(ev.Key)))
		if late {
			lateRead[ev.Key.Key] = ev
		}
		// Parse even unread keys, so that a broken rule is reported.
		ch := Accept(ev.Key.Key, ev.Key.Kind, content, st.rev)
		switch ch.Outcome {
		case OutcomeIgnored:
			b.Ignored = append(b.Ignored, Ignored{Rule: ev.Index, Reason: ch.Err.Error() + "; the previous rule stays in force"})
		case OutcomeRejected:
			b.Rejected = append(b.Rejected, Rejection{Rule: ev.Index, Error: ch.Err.Error()})
		}
		if why != "" {
			b.Unread = append(b.Unread, Unread{Rule: ev.Index, Key: ev.Key.Key, Reason: why})
			return
		}
		if ch.Outcome == OutcomeRejected || ch.Outcome == OutcomeIgnored || late {
			return
		}
		st.rev = ch.Rev
		if isGray {
			b.Gray, b.GrayKey, b.GrayVersion = ch.Gray, ev.Key.Key, ch.Ref.Version
			return
		}
		if ev.Key.Kind == rules.KindMesh {
			meshRefs[ev.Key.Prefix] = ch.Ref
			return
		}
		for _, s := range slots {
			// At the initial read, the provider-app router takes the
			// consumer-app rule only when no provider-app rule exists.
			if initialRead && s == cluster.SlotProviderApp && ev.Key.Prefix == consumerApp && !b.Rules[s].Empty() {
				continue
			}
			b.Rules[s] = ch.Ref
		}
	}
	// The tag and provider-app routers follow the application of the first
	// invoker of the latest non-empty invoker list (TagStateRouter and
	// ProviderAppStateRouter re-subscribe when it changes). Keys of an
	// application they followed before count as read.
	for _, ev := range initial {
		if ev.Key.Kind == rules.KindConfigurators {
			apply(ev, true)
		}
	}
	initialApp := b.firstInvokerApp(r.Consumer, urls)
	b.enabledApps(r.Consumer, urls, initialMesh)
	for _, ev := range updates {
		if ev.Key.Kind == rules.KindConfigurators {
			apply(ev, false)
		}
	}
	b.enabledApps(r.Consumer, urls, f.MeshApps)
	for app := range f.MeshApps {
		if !initialMesh[app] {
			lateMesh[app] = true
		}
	}
	for app := range initialMesh {
		f.MeshApps[app] = true
	}
	f.ProviderApp = b.firstInvokerApp(r.Consumer, urls)
	if f.ProviderApp == "" {
		f.ProviderApp = initialApp
	}
	if initialApp != "" && initialApp != f.ProviderApp {
		f.EarlierApp = initialApp
	}
	if f.ProviderApp != initialApp {
		lateApp = f.ProviderApp
	}
	b.ProviderApp, b.EarlierApp = f.ProviderApp, f.EarlierApp
	for _, ev := range initial {
		if ev.Key.Kind != rules.KindConfigurators && !providerAppKey(ev.Key) {
			apply(ev, true)
		}
	}
	for _, ev := range initial {
		if providerAppKey(ev.Key) {
			apply(ev, true)
		}
	}
	for _, ev := range updates {
		if ev.Key.Kind != rules.KindConfigurators {
			apply(ev, false)
		}
	}
	// The late-subscribing routers read the last content of their keys
	// once, as a first read: a delete leaves nothing to read (the tag and
	// provider-app routers skip an empty one too), a content the router
	// does not apply leaves the rule it had.
	for _, ev := range lateRead {
		if ev.Content == nil || (ev.Key.Kind != rules.KindMesh && *ev.Content == "") {
			continue
		}
		ch := Accept(ev.Key.Key, ev.Key.Kind, *ev.Content, 0)
		if ch.Outcome != OutcomeAccepted {
			continue
		}
		if ev.Key.Kind == rules.KindMesh {
			meshRefs[ev.Key.Prefix] = ch.Ref
			continue
		}
		if slots, _, why := r.Slots(ev.Key, f); why == "" {
			for _, sl := range slots {
				b.Rules[sl] = ch.Ref
			}
		}
	}
	var ms []mesh.AppRule
	for _, ref := range meshRefs {
		for _, ar := range ref.Mesh {
			if !ar.Rule.Empty() {
				ms = append(ms, ar)
			}
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].App < ms[j].App })
	b.Rules[cluster.SlotMesh] = cluster.RuleRef{Mesh: ms}
	return b
}

// applyConfigurators applies one event of a configurators key: an initial
// empty value is skipped, a delete clears the list, otherwise
// AcceptConfigurators decides.
func (b *Batch) applyConfigurators(ev Event, initialRead bool, why string) {
	b.HasConfigurators = true
	list := configurator.ListApp
	if ev.Key.Service {
		list = configurator.ListService
	}
	unread := func() { b.Unread = append(b.Unread, Unread{Rule: ev.Index, Key: ev.Key.Key, Reason: why}) }
	if ev.Content == nil {
		if why == "" {
			b.Configurators[list] = nil
		} else {
			unread()
		}
		return
	}
	if initialRead && *ev.Content == "" {
		if why != "" {
			unread()
		}
		return
	}
	ch := AcceptConfigurators(ev.Key.Key, *ev.Content, false, 0)
	if ch.Outcome == OutcomeRejected {
		b.Rejected = append(b.Rejected, Rejection{Rule: ev.Index, Error: ch.Err.Error()})
	}
	if why != "" {
		unread()
		return
	}
	if ch.Outcome != OutcomeAccepted {
		return
	}
	b.Configurators[list] = ch.Ref.Configurators
}

// Enabled reports whether provider u passes the directory's enabled check
// after the configurators in force.
func (b *Batch) Enabled(consumer, u *router.URL) bool {
	pr := configurator.Provider{URL: u, Consumer: consumer}
	if !b.Configurators.Empty() {
		pr = b.Configurators.ConfigureProvider(u, consumer, consumer.Host)
	}
	return pr.Enabled()
}

// firstInvokerApp is the application of the first provider that passes the
// enabled check.
func (b *Batch) firstInvokerApp(consumer *router.URL, urls []*router.URL) string {
	for _, u := range urls {
		if b.Enabled(consumer, u) {
			return u.Application()
		}
	}
	return ""
}

// enabledApps adds to apps the application of every provider that passes
// the enabled check (the applications Java's mesh router subscribes).
func (b *Batch) enabledApps(consumer *router.URL, urls []*router.URL, apps map[string]bool) {
	for _, u := range urls {
		if a := u.Application(); a != "" && a != "unknown" && b.Enabled(consumer, u) {
			apps[a] = true
		}
	}
}
