package rulestore

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"dubbo.apache.org/dubbo-go/v3/common"
	conf "dubbo.apache.org/dubbo-go/v3/common/config"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/remoting"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/extension/source"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/script"
	"github.com/dubboroute/dubboroute/rules"
	"github.com/dubboroute/dubboroute/rules/assembly"
)

// keyState is one subscribed config-center key: the last good rule and the
// callbacks of the chains that use it.
type keyState struct {
	key  string
	kind rules.Kind

	mu      sync.Mutex
	rev     int  // accepted changes (adds, updates and deletes)
	evented bool // an event arrived (the initial read must not override it)
	ref     cluster.RuleRef
	gray    *gray.Rule
	subs    map[int]func(cluster.RuleRef)
	nextID  int

	// Config centers with a rule source (package extension/source): the
	// revision last applied.
	srcRead bool
	srcRev  any

	// refs counts the subscriptions (with or without a callback); when the
	// last one is cancelled the rule source's watch is stopped (stopWatch)
	// and watchGen moves on, so a late event of that watch is dropped.
	refs      int
	stopWatch context.CancelFunc
	watchGen  int
	// from names where the key is read ("Nacos dataId ... group ...",
	// "zookeeper /dubbo/config/dubbo/<key>", or dubbo-go's config center).
	from string

	// warnedDubboGo: the key's "dubbo-go alone would apply this" warning
	// was logged (once per key).
	warnedDubboGo atomic.Bool

	// What the console shows: the text of the rule in force, when it was
	// accepted (or deleted), and the last update that was not applied.
	content  string
	accepted time.Time
	rejected *Rejection
}

// ruleStore subscribes each key once per process and fans changes out.
type ruleStore struct {
	mu   sync.Mutex
	keys map[string]*keyState
	// listening maps keys to the dynamic configuration they listen on
	// (config_center.DynamicConfiguration).
	listening sync.Map
	// badDialect: an unknown extension.ScriptDialect is logged once per
	// process (the setting is process-wide).
	badDialect atomic.Bool
}

// store is the process's rule store: a package-level variable because
// every binding and provider export of the process shares one
// subscription per key, as dubbo-go's config center has one listener list
// per process.
var store = &ruleStore{keys: map[string]*keyState{}}

// Subscribe registers fn for changes of key (of kind) in the process's
// rule store and returns the rule in force now and a cancel function (see
// ruleStore.subscribe).
func Subscribe(key string, kind rules.Kind, fn func(cluster.RuleRef)) (cluster.RuleRef, func()) {
	return store.subscribe(key, kind, fn)
}

// subscribe registers fn for changes of key and returns the rule in force
// now and a cancel function. The first subscription of a key adds one
// listener to dubbo-go's dynamic configuration and reads the key once; if no
// config center is configured yet, a later subscribe retries.
func (s *ruleStore) subscribe(key string, kind rules.Kind, fn func(cluster.RuleRef)) (cluster.RuleRef, func()) {
	s.mu.Lock()
	ks := s.keys[key]
	if ks == nil {
		ks = &keyState{key: key, kind: kind, subs: map[int]func(cluster.RuleRef){}}
		s.keys[key] = ks
	}
	s.mu.Unlock()
	ks.mu.Lock()
	ks.refs++
	ks.mu.Unlock()
	ks.listen()
	ks.mu.Lock()
	defer ks.mu.Unlock()
	id := ks.nextID
	ks.nextID++
	if fn != nil {
		ks.subs[id] = fn
	}
	var once sync.Once
	return ks.ref, func() {
		once.Do(func() {
			ks.mu.Lock()
			delete(ks.subs, id)
			ks.refs--
			var stop context.CancelFunc
			if ks.refs == 0 && ks.stopWatch != nil {
				// The last reference is gone: its listener goes with it.
				// The rule stays as last read, for a later subscription,
				// which watches the key again.
				stop, ks.stopWatch = ks.stopWatch, nil
				ks.watchGen++
				store.listening.Delete(ks.key)
			}
			ks.mu.Unlock()
			if stop != nil {
				stop()
				logger.Debugf("[dubboroute] rule key=%s: no subscriber left, watch stopped", ks.key)
			}
		})
	}
}

func (ks *keyState) listen() {
	dc := conf.GetEnvInstance().GetDynamicConfiguration()
	if dc == nil {
		return
	}
	if prev, loaded := store.listening.LoadOrStore(ks.key, dc); loaded && prev == dc {
		return
	} else if loaded {
		store.listening.Store(ks.key, dc) // a new config center replaced the old one
	}
	if d, ok := dc.(interface{ GetURL() *common.URL }); ok && ks.sourceWatch(d.GetURL()) {
		return
	}
	from := "dubbo-go's config center"
	if d, ok := dc.(interface{ GetURL() *common.URL }); ok && d.GetURL() != nil {
		from = "dubbo-go's " + d.GetURL().Protocol + " config center " + d.GetURL().Location
	}
	ks.mu.Lock()
	ks.from = from
	ks.mu.Unlock()
	dc.AddListener(ks.key, ks)
	content, err := dc.GetRule(ks.key)
	if err != nil {
		logger.Warnf("[dubboroute] read rule key=%s: %v", ks.key, err)
		return
	}
	ks.mu.Lock()
	evented := ks.evented
	ks.mu.Unlock()
	if content != "" && !evented {
		ks.applyEvent(source.NewRuleEvent(ks.key, true, content, nil), false)
	}
}

// Process implements config_center.ConfigurationListener: dubbo-go's
// change event, judged as every rule source's (source.NewRuleEvent).
func (ks *keyState) Process(ev *config_center.ConfigChangeEvent) {
	if ev == nil {
		return
	}
	content, _ := ev.Value.(string)
	ks.mu.Lock()
	ks.evented = true
	ks.mu.Unlock()
	ks.applyEvent(source.NewRuleEvent(ks.key, ev.ConfigType != remoting.EventTypeDel, content, nil), true)
}

// applyEvent applies one state of the key (event: a change, not the
// initial read): a configurators list or a routing rule. Whether it
// deletes the rule was decided by source.NewRuleEvent.
func (ks *keyState) applyEvent(ev source.RuleEvent, event bool) {
	if ks.kind == rules.KindConfigurators {
		ks.applyConfigurators(ev.Content, ev.Deleted, event)
		return
	}
	ks.apply(ev.Content, event)
}

// applyConfigurators is Java's AbstractConfiguratorListener for a
// .configurators key, as the assembly decides it
// (assembly.AcceptConfigurators): a delete clears the list; content that
// fails to parse (empty content on a change included) is logged with key
// and line and the list in force stays; content that yields no
// configurator keeps it too.
func (ks *keyState) applyConfigurators(content string, deleted, event bool) {
	ks.mu.Lock()
	had := len(ks.ref.Configurators) > 0
	ch := assembly.AcceptConfigurators(ks.key, content, deleted, ks.rev)
	switch ch.Outcome {
	case assembly.OutcomeDeleted:
		ks.ref, ks.rev = ch.Ref, ch.Rev
		ks.content, ks.accepted = "", time.Now()
		subs := ks.snapshotSubs()
		ks.mu.Unlock()
		if had {
			metrics.RuleChange(ks.key, "deleted").Inc()
			logger.Infof("[dubboroute] rule key=%s deleted: no configurators", ks.key)
		}
		notify(subs, ch.Ref)
		return
	case assembly.OutcomeRejected:
		ks.rejected = newRejection(ch.Err, content)
		ks.mu.Unlock()
		metrics.RuleChange(ks.key, "rejected").Inc()
		logger.Errorf("[dubboroute] rule key=%s%s rejected, the previous configurators stay in force: %s", ks.key, ks.fromNote(), clip(ch.Err.Error(), maxLoggedError))
		return
	case assembly.OutcomeKept:
		ks.mu.Unlock()
		logger.Warnf("[dubboroute] rule key=%s yields no configurator; the previous configurators stay in force (as in Java; delete the key to clear them)", ks.key)
		return
	}
	ks.ref, ks.rev = ch.Ref, ch.Rev
	ks.content, ks.accepted = content, time.Now()
	subs := ks.snapshotSubs()
	ks.mu.Unlock()
	metrics.RuleChange(ks.key, "accepted").Inc()
	src := "initial read"
	if event {
		src = "change event"
	}
	logger.Infof("[dubboroute] rule key=%s version=%s accepted (%s): %d configurator(s)%s", ks.key, ch.Ref.Version, src, len(ch.Ref.Configurators), ks.fromNote())
	notify(subs, ch.Ref)
}

// apply judges content (empty = delete) as the assembly does
// (assembly.Accept), keeps the last good rule on error, and notifies
// subscribers of accepted changes.
func (ks *keyState) apply(content string, event bool) {
	ks.mu.Lock()
	had := !ks.ref.Empty() || ks.gray != nil
	ch := assembly.AcceptAs(ks.key, ks.kind, content, ks.rev, scriptDialect())
	switch ch.Outcome {
	case assembly.OutcomeDeleted:
		ks.ref, ks.gray, ks.rev = ch.Ref, nil, ch.Rev
		ks.content, ks.accepted = "", time.Now()
		subs := ks.snapshotSubs()
		ks.mu.Unlock()
		if ks.kind == rules.KindGray {
			shared.GrayLB.SetRule(strings.TrimSuffix(ks.key, rules.GraySuffix), nil)
		}
		if had {
			metrics.RuleChange(ks.key, "deleted").Inc()
			logger.Infof("[dubboroute] rule key=%s deleted: routing without it", ks.key)
		}
		notify(subs, ch.Ref)
		return
	case assembly.OutcomeRejected, assembly.OutcomeIgnored:
		ks.rejected = newRejection(ch.Err, content)
		ks.mu.Unlock()
		metrics.RuleChange(ks.key, "rejected").Inc()
		why := "rejected, the previous rule stays in force"
		if ch.Outcome == assembly.OutcomeIgnored {
			why = "ignored as Java Dubbo does, the previous rule stays in force"
		}
		if errors.Is(ch.Err, condition.ErrDubboGoApplies) {
			metrics.DubboGoDiffers(ks.key, "configVersion above v3.1").Inc()
			if !ks.warnedDubboGo.Swap(true) {
				logger.Warnf("[dubboroute] rule key=%s: dubboroute follows Java Dubbo here, dubbo-go alone would not: %s (logged once per key, counted in dubboroute_dubbogo_differs_total)", ks.key, clip(ch.Err.Error(), maxLoggedError))
			}
		}
		logger.Errorf("[dubboroute] rule key=%s%s %s: %s", ks.key, ks.fromNote(), why, clip(ch.Err.Error(), maxLoggedError))
		return
	}
	ref := ch.Ref
	ks.rev = ch.Rev
	if ch.Parsed.Script != nil && ch.Parsed.Script.Why != "" {
		logger.Warnf("[dubboroute] rule key=%s: %s", ks.key, ch.Parsed.Script.Why)
	}
	if ch.Parsed.Mesh != nil && ch.Parsed.Mesh.Empty() {
		logger.Infof("[dubboroute] rule key=%s: %s", ks.key, ch.Parsed.Mesh.Cleared)
	}
	ks.ref = ref
	ks.gray = ch.Gray
	ks.content, ks.accepted = content, time.Now()
	subs := ks.snapshotSubs()
	ks.mu.Unlock()
	if ks.kind == rules.KindGray {
		shared.GrayLB.SetRule(strings.TrimSuffix(ks.key, rules.GraySuffix), ch.Gray)
	}
	metrics.RuleChange(ks.key, "accepted").Inc()
	src := "initial read"
	if event {
		src = "change event"
	}
	logger.Infof("[dubboroute] rule key=%s version=%s accepted (%s)%s", ks.key, ref.Version, src, ks.fromNote())
	notify(subs, ref)
}

// scriptDialect is the consumer's script dialect setting
// (extension.ScriptDialect); an unknown value is logged once and read as
// auto.
func scriptDialect() script.Dialect {
	d, err := script.ParseDialect(*shared.Settings.ScriptDialect)
	if err != nil {
		if store.badDialect.CompareAndSwap(false, true) {
			logger.Errorf("[dubboroute] extension.ScriptDialect: %v; script rules run in the auto dialect", err)
		}
		return script.DialectAuto
	}
	return d
}

// fromNote is " from <where the key is read>" for log lines, "" when not
// known. ks.mu must not be held.
func (ks *keyState) fromNote() string {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.from == "" {
		return ""
	}
	return " from " + ks.from
}

func (ks *keyState) snapshotSubs() []func(cluster.RuleRef) {
	out := make([]func(cluster.RuleRef), 0, len(ks.subs))
	for _, f := range ks.subs {
		out = append(out, f)
	}
	return out
}

func notify(subs []func(cluster.RuleRef), ref cluster.RuleRef) {
	for _, f := range subs {
		f(ref)
	}
}

// Listening reports whether a config-center key is subscribed (for tests and
// diagnostics).
func Listening(key string) bool {
	_, ok := store.listening.Load(key)
	return ok
}

// maxLoggedError bounds how much of a rejection is logged: an error can
// quote the offending value, and a rule may carry a megabyte of it.
const maxLoggedError = 2048

// clip shortens s to at most n bytes (on a rune boundary), saying how much
// was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}
