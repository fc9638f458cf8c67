package assembly

import (
	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
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
	Reports
}

// Reports are what a reference's rules did not contribute, in the order
// the events were applied: the contents rejected, those Java ignores, the
// keys no router reads. `dubboroute route` and `explain` print them under
// these JSON names.
type Reports struct {
	Rejected []Rejection `json:"rejected"`
	Ignored  []Ignored   `json:"ignored,omitempty"`
	Unread   []Unread    `json:"unread,omitempty"`
}

// Add appends o's reports to r's.
func (r *Reports) Add(o Reports) {
	r.Rejected = append(r.Rejected, o.Rejected...)
	r.Ignored = append(r.Ignored, o.Ignored...)
	r.Unread = append(r.Unread, o.Unread...)
}

// Assemble replays a batch of keyed events on the machine of the reference
// whose providers are urls (in registry order), on the timeline of a
// consumer that starts with the config center holding every key's first
// content (Java's oracle runs the same timeline):
//
//  1. the routers are built: the configurators and consumer-side keys are
//     subscribed and read (Machine.Start);
//  2. the registry's configurators (override:// URLs, nil if none) arrive
//     with the first notification, then the providers are notified: the
//     provider applications' keys are subscribed and read;
//  3. the later contents of every key are change events, in input order,
//     delivered to the keys followed at that moment;
//  4. if a configurators key changed, the providers are notified again
//     (RegistryDirectory's refresh): keys of applications followed from
//     then on are read with their content as it is then.
//
// A key's content is judged by its key source as the running consumer's
// rule store judges it (KeySource). Every content is also parsed for the
// report, read or not; gray keys are read only with grayRead.
func (r *Reference) Assemble(urls []*router.URL, registry configurator.List, events []Event, grayRead bool) *Batch {
	b := &Batch{}
	m := NewMachine(r, Statics{}, grayRead)
	cur := map[string]*string{} // the config center's content per key
	sources := map[string]*KeySource{}
	touched := map[string]bool{}
	var updates []Event
	for _, ev := range events {
		if _, seen := cur[ev.Key.Key]; seen {
			updates = append(updates, ev)
			continue
		}
		cur[ev.Key.Key] = ev.Content
	}
	var perform func(e Effects)
	perform = func(e Effects) {
		for _, s := range e.Subscribe {
			touched[s.Key] = true
			src := sources[s.Key]
			if src == nil {
				k, _ := rules.ParseKey(s.Key)
				src = &KeySource{Key: s.Key, Kind: k.Kind}
				sources[s.Key] = src
			}
			src.Read(cur[s.Key])
			perform(m.Read(s.Key, src.Rule()))
		}
	}
	perform(m.Start())
	if registry != nil {
		b.HasConfigurators = true
		perform(m.Configurators(registry))
	}
	perform(m.Providers(urls))
	refresh := false
	for _, ev := range updates {
		cur[ev.Key.Key] = ev.Content
		if !m.Subscribed(ev.Key.Key) {
			continue
		}
		if sources[ev.Key.Key].Event(ev.Content) {
			perform(m.Update(ev.Key.Key, sources[ev.Key.Key].Rule()))
		}
		refresh = refresh || ev.Key.Kind == rules.KindConfigurators
	}
	if refresh {
		perform(m.Refresh())
	}
	b.Rules = m.Rules()
	if l := m.ConfiguratorLists(); l != nil {
		b.Configurators = *l
	}
	b.Gray, b.GrayKey, b.GrayVersion = m.Gray()
	b.ProviderApp, b.EarlierApp = m.ProviderApp(), m.EarlierApp()
	b.report(r, m.Following(), events, touched, grayRead)
	return b
}

// report fills the batch's reports: every content that fails to parse
// (an initial empty one is skipped unparsed, as routers skip it), every
// content Java ignores, and every event of a key no router read, with the
// reason.
func (b *Batch) report(r *Reference, f Following, events []Event, touched map[string]bool, grayRead bool) {
	seen := map[string]bool{}
	for _, ev := range events {
		first := !seen[ev.Key.Key]
		seen[ev.Key.Key] = true
		if ev.Key.Kind == rules.KindConfigurators {
			b.HasConfigurators = true
		}
		read := touched[ev.Key.Key] && (ev.Key.Kind != rules.KindGray || grayRead)
		if !read {
			_, _, why := r.Slots(ev.Key, f)
			if why == "" {
				why = "no router of this consumer read the key"
			}
			b.Unread = append(b.Unread, Unread{Rule: ev.Index, Key: ev.Key.Key, Reason: why})
			if ev.Key.Kind == rules.KindGray {
				continue // not parsed: gray rules steer the balancer, not eligibility
			}
		}
		if ev.Content == nil || (first && *ev.Content == "") {
			continue
		}
		if ev.Key.Kind == rules.KindConfigurators {
			if ch := AcceptConfigurators(ev.Key.Key, *ev.Content, false, 0); ch.Outcome == OutcomeRejected {
				b.Rejected = append(b.Rejected, Rejection{Rule: ev.Index, Error: ch.Err.Error()})
			}
			continue
		}
		switch ch := Accept(ev.Key.Key, ev.Key.Kind, *ev.Content, 0); ch.Outcome {
		case OutcomeIgnored:
			b.Ignored = append(b.Ignored, Ignored{Rule: ev.Index, Reason: ch.Err.Error() + "; the previous rule stays in force"})
		case OutcomeRejected:
			b.Rejected = append(b.Rejected, Rejection{Rule: ev.Index, Error: ch.Err.Error()})
		}
	}
}
