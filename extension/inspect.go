package extension

import (
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dto "github.com/prometheus/client_model/go"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/rules"
)

// This file is the read-only view of the process's routing state that the
// console (package console) shows. Nothing here is on the call path.

// now is the clock of the inspection records (accepted, rejected, held,
// no-provider times).
var now = time.Now

// MaxNoProviders is how many recent "no provider" answers a binding keeps.
const MaxNoProviders = 20

// maxRejectedContent bounds the text of a rejected update kept for display.
const maxRejectedContent = 16 << 10

// Rejection is the last update of a rule key that was not applied.
type Rejection struct {
	// At is when it arrived.
	At time.Time
	// Error is the parse error (clipped), naming the line where known.
	Error string
	// Line is the rule line the error names, 0 if it names none.
	Line int
	// Ignored is true for an update Java Dubbo also ignores without an
	// error (configVersion above v3.1, no conditions, valid: false).
	Ignored bool
	// Content is the rejected text (clipped).
	Content string
}

var lineRE = regexp.MustCompile(`\bline (\d+)`)

func newRejection(err error, content string) *Rejection {
	r := &Rejection{At: now(), Error: clip(err.Error(), maxLoggedError), Ignored: rules.IsIgnored(err),
		Content: clip(content, maxRejectedContent)}
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		r.Line, _ = strconv.Atoi(m[1])
	}
	return r
}

// RuleState is one config-center key this process subscribes, as it holds
// it now.
type RuleState struct {
	Key  string
	Kind rules.Kind
	// InForce is true when a rule is in force (false: none yet, or deleted).
	InForce bool
	// Version is the accepted revision in force, e.g. "3.1#2".
	Version string
	// Content is the text of the rule in force.
	Content string
	// Accepted is when the rule in force was accepted, or the key deleted;
	// zero if nothing was ever applied.
	Accepted time.Time
	// Rejected is the last update that was not applied, nil if none.
	Rejected *Rejection
	// Subscribers is how many chains follow the key.
	Subscribers int
}

// RuleStates lists every subscribed key, sorted by key.
func RuleStates() []RuleState {
	store.mu.Lock()
	kss := make([]*keyState, 0, len(store.keys))
	for _, ks := range store.keys {
		kss = append(kss, ks)
	}
	store.mu.Unlock()
	out := make([]RuleState, 0, len(kss))
	for _, ks := range kss {
		ks.mu.Lock()
		st := RuleState{Key: ks.key, Kind: ks.kind, InForce: !ks.ref.Empty() || ks.gray != nil,
			Version: ks.ref.Version, Content: ks.content, Accepted: ks.accepted, Subscribers: len(ks.subs)}
		if ks.kind == rules.KindGray && ks.gray != nil && st.Version == "" {
			st.Version = "1#" + strconv.Itoa(ks.rev)
		}
		if ks.rejected != nil {
			r := *ks.rejected
			st.Rejected = &r
		}
		ks.mu.Unlock()
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// AllBindings returns every live binding, sorted by interface (bindings of
// one interface in creation order).
func AllBindings() []*Binding {
	bindingsMu.Lock()
	ifaces := make([]string, 0, len(bindings))
	for k := range bindings {
		ifaces = append(ifaces, k)
	}
	sort.Strings(ifaces)
	var out []*Binding
	for _, k := range ifaces {
		out = append(out, bindings[k]...)
	}
	bindingsMu.Unlock()
	return out
}

// Interface is the interface of the binding's reference.
func (b *Binding) Interface() string { return b.iface }

// LoadBalance is the reference's configured load balancer ("" if none).
func (b *Binding) LoadBalance() string { return b.lb }

// RouterCounts are the calls one router of the chain saw, by outcome.
type RouterCounts struct {
	Router                string
	Kept, Filtered, Empty uint64
}

// Counters reads the binding's per-router counters (the Prometheus series
// dubboroute_routed_total of its interface: bindings of one interface share
// them).
func (b *Binding) Counters() []RouterCounts {
	out := make([]RouterCounts, len(cluster.RouterNames))
	for r, name := range cluster.RouterNames {
		out[r].Router = name
		out[r].Kept = counterOf(b.metrics.routed[r][cluster.OutcomeKept])
		out[r].Filtered = counterOf(b.metrics.routed[r][cluster.OutcomeFiltered])
		out[r].Empty = counterOf(b.metrics.routed[r][cluster.OutcomeEmpty])
	}
	return out
}

// GrayPicks reads the gray balancer's pick counters by class (gray, normal,
// single), process-wide.
func GrayPicks() map[string]uint64 {
	out := map[string]uint64{}
	for class, c := range grayPickCounters {
		if m, ok := c.(interface{ Write(*dto.Metric) error }); ok {
			out[class] = metricValue(m)
		}
	}
	return out
}

func counterOf(c interface{ Write(*dto.Metric) error }) uint64 {
	if c == nil {
		return 0
	}
	return metricValue(c)
}

func metricValue(c interface{ Write(*dto.Metric) error }) uint64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return 0
	}
	return uint64(m.GetCounter().GetValue())
}

// NoProviderRecord is one call that routing left without a provider.
type NoProviderRecord struct {
	At  time.Time
	Err *cluster.NoProviderError
}

// noProviders is a binding's ring of recent no-provider answers.
type noProviders struct {
	mu   sync.Mutex
	ring [MaxNoProviders]NoProviderRecord
	next int
	n    int
}

func (r *noProviders) add(err *cluster.NoProviderError) {
	r.mu.Lock()
	r.ring[r.next] = NoProviderRecord{At: now(), Err: err}
	r.next = (r.next + 1) % MaxNoProviders
	if r.n < MaxNoProviders {
		r.n++
	}
	r.mu.Unlock()
}

// NoProviders returns the binding's recent no-provider answers, newest
// first (at most MaxNoProviders).
func (b *Binding) NoProviders() []NoProviderRecord {
	r := &b.noProv
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]NoProviderRecord, 0, r.n)
	for i := 1; i <= r.n; i++ {
		out = append(out, r.ring[(r.next-i+MaxNoProviders)%MaxNoProviders])
	}
	return out
}

// Hold is a provider removal that is being held back: by the delete grace
// ("pending") or by empty protection ("held", it was the last provider).
type Hold struct {
	// Interface of the provider, Address its host:port, URL its URL.
	Interface, Address, URL string
	// State is "pending" or "held".
	State string
	// Since is when the removal arrived.
	Since time.Time
}

// Holds lists the removals held back right now, process-wide, sorted by
// interface and address.
func Holds() []Hold {
	protectors.Lock()
	ls := append([]*protectingListener(nil), protectors.list...)
	protectors.Unlock()
	var out []Hold
	for _, l := range ls {
		l.mu.Lock()
		for key, m := range l.marks {
			state := ""
			if _, ok := l.held[key]; ok {
				state = "held"
			} else if _, ok := l.pending[key]; ok {
				state = "pending"
			}
			if state == "" || m.ev == nil || m.ev.Service == nil {
				continue
			}
			u := m.ev.Service
			out = append(out, Hold{Interface: u.GetParam(constant.InterfaceKey, u.Service()), Address: u.Location,
				URL: u.String(), State: state, Since: m.since})
		}
		l.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Interface != out[j].Interface {
			return out[i].Interface < out[j].Interface
		}
		return out[i].Address < out[j].Address
	})
	return out
}
