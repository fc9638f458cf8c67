package extension

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"
	"github.com/dubbogo/gost/log/logger"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/nacosfollow"
	"github.com/dubboroute/dubboroute/rules"
)

// Why dubboroute follows ZooKeeper itself.
//
// dubbo-go v3.3.2's ZooKeeper registry and config center lose state when
// their session is replaced: measured on a 3-member ensemble
// (integration/fault TestEnsembleFaults), after two members were down for
// 8 s the consumer's provider list kept one of two live providers for good
// ("listener has been closed"; the path watch is not re-armed), and a rule
// written while the consumer's session expired never reached it. Both
// dropped every call routed by a later rule.
//
// So for a ZooKeeper registry, an interface-level directory's provider list
// comes from a watch of dubboroute's own client (package
// directory/zookeeper), which re-reads the providers node and re-arms its
// watch after every session change; and for a ZooKeeper config center, rule
// keys are read and watched the same way. Registration of providers and
// consumers stays with dubbo-go (a provider's nodes are guarded against
// vanishing: zkregister.go).

// zkClients are dubboroute's ZooKeeper clients, one per ensemble and
// settings, shared by every subscription of the process and kept for its
// lifetime (as dubbo-go keeps its registry clients).
var zkClients = struct {
	sync.Mutex
	m map[string]*dzk.Client
}{m: map[string]*dzk.Client{}}

// zkClient returns the shared client for addrs (comma-separated) with opts;
// key identifies the settings.
func zkClient(addrs, key string, opts ...dzk.Option) (*dzk.Client, error) {
	zkClients.Lock()
	defer zkClients.Unlock()
	id := addrs + "|" + key
	if c, ok := zkClients.m[id]; ok {
		return c, nil
	}
	c, err := dzk.Dial(strings.Split(addrs, ","), opts...)
	if err != nil {
		return nil, err
	}
	zkClients.m[id] = c
	return c, nil
}

// zkOptions are the client settings a dubbo-go registry or config-center
// URL asks for: credentials and session timeout.
func zkOptions(u *common.URL) (string, []dzk.Option) {
	var opts []dzk.Option
	key := ""
	if u.Username != "" {
		opts = append(opts, dzk.WithDigest(u.Username+":"+u.Password))
		key += "digest=" + u.Username + ";"
	}
	timeout := u.GetParamDuration(constant.ConfigTimeoutKey, constant.DefaultRegTimeout)
	opts = append(opts, dzk.WithSessionTimeout(timeout))
	key += "session=" + timeout.String() + ";"
	return key, opts
}

func isZooKeeper(u *common.URL) bool {
	return u != nil && (u.Protocol == "zookeeper" || u.GetParam(constant.RegistryKey, "") == "zookeeper")
}

// followRegistry serves an interface-level directory's subscription from
// dubboroute's own watch of /<group>/<interface>/providers.
type followRegistry struct {
	registry.Registry

	mu      sync.Mutex
	cancels map[registry.NotifyListener]context.CancelFunc
}

// followed makes a directory constructor subscribe through follow.
func followed(newDir dirFactory) dirFactory {
	return func(u *common.URL, r registry.Registry) (dirType, error) { return newDir(u, follow(r)) }
}

func follow(r registry.Registry) registry.Registry {
	if r != nil && nacosfollow.IsNacos(r.GetURL()) {
		return nacosfollow.Follow(r)
	}
	if r == nil || !isZooKeeper(r.GetURL()) {
		return r
	}
	return &followRegistry{Registry: r, cancels: map[registry.NotifyListener]context.CancelFunc{}}
}

// Subscribe implements registry.Registry: it starts the watch and returns.
// If dubboroute's client cannot connect, dubbo-go's own subscription is used.
func (f *followRegistry) Subscribe(u *common.URL, l registry.NotifyListener) error {
	ru := f.Registry.GetURL()
	group := ru.GetParam(constant.RegistryGroupKey, "dubbo")
	key, opts := zkOptions(ru)
	opts = append(opts, dzk.WithRegistryRoot("/"+group))
	c, err := zkClient(ru.Location, key+"root=/"+group, opts...)
	if err != nil {
		logger.Warnf("[dubboroute] registry %s: %v; using dubbo-go's subscription", ru.Location, err)
		return f.Registry.Subscribe(u, l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := c.WatchProviders(ctx, u.Service())
	if err != nil {
		cancel()
		logger.Warnf("[dubboroute] registry %s: watch %s: %v; using dubbo-go's subscription", ru.Location, u.Service(), err)
		return f.Registry.Subscribe(u, l)
	}
	f.mu.Lock()
	if old, ok := f.cancels[l]; ok {
		old()
	}
	f.cancels[l] = cancel
	f.mu.Unlock()
	go feed(ch, u, l)
	return nil
}

// UnSubscribe implements registry.Registry.
func (f *followRegistry) UnSubscribe(_ *common.URL, l registry.NotifyListener) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cancel, ok := f.cancels[l]; ok {
		cancel()
		delete(f.cancels, l)
	}
	return nil
}

// feed turns each provider list into events for the directory: the first
// list as one complete list (one rebuild, however many providers), then the
// providers that came and went one event each, as dubbo-go's ZooKeeper
// listener does for each child node (a removal passes through the delete
// grace). Only providers of the subscribed service key count. A provider
// of another protocol than the reference's is announced on its own, so that
// the directory drops it as it always does and the drop is recorded.
func feed(ch <-chan dzk.Providers, sub *common.URL, l registry.NotifyListener) {
	want := sub.ServiceKey()
	intf, group, version := common.ParseServiceKey(want)
	known := map[string]*common.URL{} // node name -> the URL announced for it
	first := true
	for p := range ch {
		seen := make(map[string]bool, len(p.Nodes))
		var added []*common.URL
		for _, node := range p.Nodes {
			seen[node] = true
			if _, ok := known[node]; ok {
				continue
			}
			u, err := providerURL(node)
			if err != nil {
				logger.Warnf("[dubboroute] %s: provider node %q: %v", p.Path, node, err)
				continue
			}
			if u.ServiceKey() != want && !common.IsAnyCondition(intf, group, version, u) {
				continue
			}
			known[node] = u
			added = append(added, u)
		}
		if first {
			first = false
			announceAll(l, added, sub.Protocol)
			continue
		}
		for _, u := range added {
			l.Notify(&registry.ServiceEvent{Action: remoting.EventTypeAdd, Service: u.Clone()})
		}
		for node, u := range known {
			if !seen[node] {
				delete(known, node)
				l.Notify(&registry.ServiceEvent{Action: remoting.EventTypeDel, Service: u.Clone()})
			}
		}
	}
}

// announceAll hands the directory the initial providers as one complete
// list, and those of another protocol one event each after it.
func announceAll(l registry.NotifyListener, urls []*common.URL, protocol string) {
	var all, other []*registry.ServiceEvent
	for _, u := range urls {
		ev := &registry.ServiceEvent{Action: remoting.EventTypeAdd, Service: u.Clone()}
		if protocol != "" && u.Protocol != protocol {
			other = append(other, ev)
		} else {
			all = append(all, ev)
		}
	}
	if len(all) > 0 {
		l.NotifyAll(all, func() {})
	}
	for _, ev := range other {
		l.Notify(ev)
	}
}

func providerURL(node string) (*common.URL, error) {
	raw, err := url.QueryUnescape(node)
	if err != nil {
		return nil, fmt.Errorf("not URL-encoded: %w", err)
	}
	return common.NewURL(raw)
}

// zkRuleWatch reads a rule key once and then follows it with dubboroute's
// own client when the config center is ZooKeeper; false if it is not (or the
// client cannot connect), and dubbo-go's listener is to be used.
func (ks *keyState) zkRuleWatch(cu *common.URL) bool {
	if !isZooKeeper(cu) {
		return false
	}
	root := cu.GetParam(constant.ConfigRootPathParamKey, "/dubbo/config")
	group := cu.GetParam(constant.ConfigNamespaceKey, "dubbo")
	key, opts := zkOptions(cu)
	opts = append(opts, dzk.WithRoot(root), dzk.WithGroup(group))
	c, err := zkClient(cu.Location, key+"rules="+root+"/"+group, opts...)
	if err != nil {
		logger.Warnf("[dubboroute] config center %s: %v; using dubbo-go's listener", cu.Location, err)
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	content, version, err := c.GetRule(ctx, ks.key)
	cancel()
	switch {
	case err == nil:
		ks.applyVersion(content, version, false)
	case errors.Is(err, dzk.ErrNotFound):
		ks.applyVersion("", -1, false)
	default:
		logger.Warnf("[dubboroute] read rule key=%s: %v", ks.key, err)
	}
	ch, err := c.WatchRule(context.Background(), ks.key)
	if err != nil {
		logger.Warnf("[dubboroute] watch rule key=%s: %v; using dubbo-go's listener", ks.key, err)
		return false
	}
	go func() {
		for ev := range ch {
			ks.applyVersion(ev.Content, ev.Version, true)
		}
	}()
	return true
}

// applyVersion applies a rule read from ZooKeeper at a node data version
// (-1: no node), once per version: the watch re-reports the state the
// initial read already applied, and re-reads after every session change.
func (ks *keyState) applyVersion(content string, version int32, event bool) {
	ks.mu.Lock()
	if ks.zkRead && ks.zkVersion == version {
		ks.mu.Unlock()
		return
	}
	first := !ks.zkRead
	ks.zkRead, ks.zkVersion = true, version
	ks.mu.Unlock()
	if version < 0 && first {
		return // no rule to begin with
	}
	if ks.kind == rules.KindConfigurators {
		// Java's listener: no node is a delete; an empty node is content
		// that fails to parse (skipped at the initial read).
		if first && version >= 0 && content == "" {
			return
		}
		ks.applyConfigurators(content, version < 0, event)
		return
	}
	ks.apply(content, event)
}
