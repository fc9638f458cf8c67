package source

import (
	"sort"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"
)

// ProviderFeed turns the successive complete provider lists a provider
// source reads into a directory's events, as dubbo-go's registries hand
// them over: the first list as one complete list (one rebuild, however
// many providers), then one event per provider added, changed (its URL
// text differs) or removed (a removal passes through the directory's
// delete grace). A provider of another protocol than the reference's is
// announced on its own after a complete list, so that the directory drops
// it as it always does and the drop is recorded. Lists are keyed by
// whatever names a provider in the source (a ZooKeeper node name, a Nacos
// instance key); events go out in key order. Not safe for concurrent use:
// one feed per subscription goroutine.
type ProviderFeed struct {
	l        registry.NotifyListener
	protocol string
	started  bool
	known    map[string]*common.URL // key -> URL announced
	text     map[string]string      // key -> its URL text, to see changes
}

// NewProviderFeed is the feed of listener l for a reference of protocol
// ("" : every protocol is the reference's).
func NewProviderFeed(l registry.NotifyListener, protocol string) *ProviderFeed {
	return &ProviderFeed{l: l, protocol: protocol, known: map[string]*common.URL{}, text: map[string]string{}}
}

// Known returns the URL announced under key, so that a source can skip
// parsing a provider it announced already.
func (f *ProviderFeed) Known(key string) (*common.URL, bool) {
	u, ok := f.known[key]
	return u, ok
}

// Started reports whether the first list was handed over.
func (f *ProviderFeed) Started() bool { return f.started }

// Next hands over the complete list now (key -> URL) and reports whether
// it added a provider.
func (f *ProviderFeed) Next(now map[string]*common.URL) (added bool) {
	keys := sortedKeys(now)
	if !f.started {
		f.started = true
		for _, k := range keys {
			f.known[k], f.text[k] = now[k], now[k].String()
		}
		f.announce(keys, now)
		return len(keys) > 0
	}
	for _, k := range keys {
		u := now[k]
		old, ok := f.known[k]
		if ok && old == u {
			continue
		}
		s := u.String()
		switch {
		case !ok:
			added = true
			f.l.Notify(&registry.ServiceEvent{Action: remoting.EventTypeAdd, Service: u.Clone()})
		case f.text[k] != s:
			f.l.Notify(&registry.ServiceEvent{Action: remoting.EventTypeUpdate, Service: u.Clone()})
		}
		f.known[k], f.text[k] = u, s
	}
	for _, k := range sortedKeys(f.known) {
		if _, ok := now[k]; !ok {
			u := f.known[k]
			delete(f.known, k)
			delete(f.text, k)
			f.l.Notify(&registry.ServiceEvent{Action: remoting.EventTypeDel, Service: u.Clone()})
		}
	}
	return added
}

// Again hands the directory every provider announced so far as one
// complete list once more (nothing when there is none).
func (f *ProviderFeed) Again() {
	f.announce(sortedKeys(f.known), f.known)
}

// announce hands the directory the providers of keys as one complete list,
// and those of another protocol one event each after it.
func (f *ProviderFeed) announce(keys []string, urls map[string]*common.URL) {
	var all, other []*registry.ServiceEvent
	for _, k := range keys {
		u := urls[k]
		ev := &registry.ServiceEvent{Action: remoting.EventTypeAdd, Service: u.Clone()}
		if f.protocol != "" && u.Protocol != f.protocol {
			other = append(other, ev)
		} else {
			all = append(all, ev)
		}
	}
	if len(all) > 0 {
		f.l.NotifyAll(all, func() {})
	}
	for _, ev := range other {
		f.l.Notify(ev)
	}
}

func sortedKeys(m map[string]*common.URL) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
