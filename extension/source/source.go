package source

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"

	"github.com/dubboroute/dubboroute/directory/watch"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/rules"
)

// RuleEvent is one state of a config-center rule key. Sources build it
// with NewRuleEvent, the one place that decides whether a state deletes
// the key's rule.
type RuleEvent struct {
	// Content is the rule text ("" when Deleted).
	Content string
	// Deleted is true when the key holds no rule: it does not exist (never
	// written, or deleted), or it is a routing rule key (every kind but
	// configurators) whose content is blank. A configurators key with
	// blank content is not deleted: Java's configurator listener parses
	// that content and rejects it (the list in force stays).
	Deleted bool
	// Revision identifies the state reported: two events with equal
	// revisions (==) carry the same state, and the rule store applies a
	// revision once (a watch re-reports what the initial read applied, and
	// re-reads after every reconnection). It must be a comparable value
	// (a number, a string, a struct of those); nil means unknown, and such
	// an event is always applied. A source must give a new revision to
	// every state that may differ, including a key deleted and written
	// again.
	Revision any
}

// NewRuleEvent is the state of key as a source sees it: exists is false
// when the key does not exist, content is its text otherwise. Every source
// (and dubbo-go's listener, which the rule store falls back to) builds its
// events with it, so whether a state deletes the key's rule is decided
// once (rules.Deletes; see RuleEvent.Deleted); a deleted event carries no
// content.
func NewRuleEvent(key string, exists bool, content string, rev any) RuleEvent {
	if rules.Deletes(key, exists, content) {
		return RuleEvent{Deleted: true, Revision: rev}
	}
	return RuleEvent{Content: content, Revision: rev}
}

// ReadEvent is a RuleClient's Read of key from its client's read: content
// and revision when err is nil; an err wrapping notFound is a key that does
// not exist (revision is then the client's revision of no key); any other
// err is returned.
func ReadEvent(key, content string, revision any, err, notFound error) (RuleEvent, error) {
	switch {
	case err == nil:
		return NewRuleEvent(key, true, content, revision), nil
	case errors.Is(err, notFound):
		return NewRuleEvent(key, false, "", revision), nil
	}
	return RuleEvent{}, err
}

// ClientEvent is an event of a config-center client's watch of one key.
type ClientEvent interface {
	// State is the key's state the event reports.
	State() (exists bool, content string, revision any)
}

// WatchEvents is a RuleClient's Watch of key from its client's watch: each
// event's state as NewRuleEvent judges it, until ch closes or ctx ends. A
// watch that failed (err not nil) is returned as it is.
func WatchEvents[E ClientEvent](ctx context.Context, key string, ch <-chan E, err error) (<-chan RuleEvent, error) {
	if err != nil {
		return nil, err
	}
	return watch.Relay(ctx, ch, func(ev E) RuleEvent {
		exists, content, revision := ev.State()
		return NewRuleEvent(key, exists, content, revision)
	}), nil
}

// RuleClient reads and follows the rule keys of one config center.
type RuleClient interface {
	// Read returns the state of key now; an error (other than for a key
	// that does not exist, which is an event with Deleted set) is logged
	// and the key is followed from its first watch event.
	Read(ctx context.Context, key string) (RuleEvent, error)
	// Watch follows key until ctx ends, reporting its state on the
	// channel whenever it may have changed (repeats are fine: see
	// Revision). An error makes the key fall back to dubbo-go's listener.
	Watch(ctx context.Context, key string) (<-chan RuleEvent, error)
}

// RuleLocator is optionally implemented by a RuleClient: Where names
// where key's rule lives, for logs and the console (e.g. "zookeeper
// /dubbo/config/dubbo/<key>", "Nacos dataId <key> group dubbo namespace
// public").
type RuleLocator interface {
	Where(key string) string
}

// RuleSource connects to a config center. Open returns the client for the
// config-center URL u (dubbo-go's DynamicConfiguration URL); an error makes
// the keys of that config center fall back to dubbo-go's listener.
type RuleSource interface {
	Open(u *common.URL) (RuleClient, error)
}

// ProviderSource serves an interface-level registry directory's
// subscription for one kind of registry. Subscribe starts following the
// providers of the reference sub in registry r and hands them to l (as
// dubbo-go's registries do: NotifyAll for a complete list, Notify for each
// change) until the returned cancel is called; an error makes the
// directory use dubbo-go's own subscription.
type ProviderSource interface {
	Subscribe(r registry.Registry, sub *common.URL, l registry.NotifyListener) (cancel func(), err error)
}

// Overrides is one state of a registry's override:// URLs of an
// interface (Dubbo 2.6's dynamic configuration at
// /<group>/<interface>/configurators in ZooKeeper).
type Overrides struct {
	// Where names the watched place, for logs and configurator origins
	// (e.g. "/dubbo/com.foo.Bar/configurators").
	Where string
	// URLs are the override URLs that parse.
	URLs []*router.URL
}

// OverrideSource is optionally implemented by a ProviderSource whose
// registry holds override:// URLs: WatchOverrides follows those of
// interface iface in registry ru (its URL) until ctx ends, reporting every
// state on the channel (the first one when the watch starts); the channel
// is closed when the watch ends. Java consumers apply these URLs first
// (configurator.RegistryList); dubbo-go's registries never read them.
type OverrideSource interface {
	WatchOverrides(ctx context.Context, ru *common.URL, iface string) (<-chan Overrides, error)
}

// sources are the registered sources by protocol. A package-level
// variable because registration happens at process start, from package
// extension's init (through the Register of extension/zookeeper,
// extension/nacosfollow and extension/nacosrules), as dubbo-go's own
// extension registry is filled.
var sources = struct {
	sync.RWMutex
	rules     map[string]RuleSource
	providers map[string]ProviderSource
}{rules: map[string]RuleSource{}, providers: map[string]ProviderSource{}}

// RegisterRuleSource makes s the rule source of config centers whose URL
// protocol is protocol (e.g. "zookeeper", "nacos"); a later registration of
// the same protocol replaces the earlier one. Call it at start-up (an init).
func RegisterRuleSource(protocol string, s RuleSource) {
	sources.Lock()
	defer sources.Unlock()
	sources.rules[strings.ToLower(protocol)] = s
}

// RegisterProviderSource makes s the provider source of interface-level
// registries whose URL protocol is protocol (the registry URL's "registry"
// parameter when its protocol is "registry"). Call it at start-up (an
// init).
func RegisterProviderSource(protocol string, s ProviderSource) {
	sources.Lock()
	defer sources.Unlock()
	sources.providers[strings.ToLower(protocol)] = s
}

// RuleSourceFor returns the rule source registered for a config-center
// URL (by its protocol, else by its "registry" parameter), nil if none
// (dubbo-go's listener is used then).
func RuleSourceFor(u *common.URL) RuleSource {
	sources.RLock()
	defer sources.RUnlock()
	return lookup(sources.rules, u)
}

// OverrideSourceFor returns the override source of a registry URL (its
// provider source, if that implements OverrideSource), nil if none.
func OverrideSourceFor(u *common.URL) OverrideSource {
	o, _ := ProviderSourceFor(u).(OverrideSource)
	return o
}

// ProviderSourceFor returns the provider source registered for a registry
// URL (by its protocol, else by its "registry" parameter, which names the
// registry of dubbo-go's registry:// URLs), nil if none (dubbo-go's
// subscription is used then).
func ProviderSourceFor(u *common.URL) ProviderSource {
	sources.RLock()
	defer sources.RUnlock()
	return lookup(sources.providers, u)
}

// lookup finds the source of u's protocol, else of its "registry"
// parameter (the zero value if none); sources is read-locked.
func lookup[S any](m map[string]S, u *common.URL) S {
	for _, p := range protocolsOf(u) {
		if s, ok := m[p]; ok {
			return s
		}
	}
	var none S
	return none
}

// Registered lists the protocols with a rule source and those with a
// provider source, sorted (for diagnostics and tests).
func Registered() (rules, providers []string) {
	sources.RLock()
	defer sources.RUnlock()
	for p := range sources.rules {
		rules = append(rules, p)
	}
	for p := range sources.providers {
		providers = append(providers, p)
	}
	sort.Strings(rules)
	sort.Strings(providers)
	return rules, providers
}

// protocolsOf are the names a URL's kind of registry or config center may
// be registered under: its protocol, then its "registry" parameter.
func protocolsOf(u *common.URL) []string {
	if u == nil {
		return nil
	}
	out := []string{strings.ToLower(u.Protocol)}
	if r := u.GetParam(constant.RegistryKey, ""); r != "" {
		out = append(out, strings.ToLower(r))
	}
	return out
}
