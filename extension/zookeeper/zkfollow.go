package zookeeper

import (
	"context"
	"fmt"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/directory/watch"
	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/internal/zkclient"
	"github.com/dubboroute/dubboroute/extension/source"
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
// vanishing: extension/provider's zkregister.go).

// Protocol is the registry and config-center protocol this package
// registers its sources for.
const Protocol = "zookeeper"

// Register registers ZooKeeper's rule source and provider source (package
// extension/source). Package extension's init calls it; calling it again is
// harmless.
func Register() {
	source.RegisterRuleSource(Protocol, ruleSource{})
	source.RegisterProviderSource(Protocol, providerSource{})
}

// providerSource serves an interface-level directory's subscription from
// dubboroute's own watch of /<group>/<interface>/providers.
type providerSource struct{}

// Subscribe implements source.ProviderSource: it starts the watch and
// returns. If dubboroute's client cannot connect, the error makes the
// directory use dubbo-go's own subscription.
func (providerSource) Subscribe(r registry.Registry, u *common.URL, l registry.NotifyListener) (func(), error) {
	c, err := zkclient.Registry(r.GetURL())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := c.WatchProviders(ctx, u.Service())
	if err != nil {
		cancel()
		return nil, fmt.Errorf("watch the providers of %s: %w", u.Service(), err)
	}
	go feed(ch, u, l)
	return cancel, nil
}

// WatchOverrides implements source.OverrideSource: the registry's
// /<group>/<interface>/configurators node, watched by dubboroute's own
// client (dubbo-go v3.3.2's ZooKeeper registry watches only the providers
// node).
func (providerSource) WatchOverrides(ctx context.Context, ru *common.URL, iface string) (<-chan source.Overrides, error) {
	c, err := zkclient.Registry(ru)
	if err != nil {
		return nil, err
	}
	ch, err := c.WatchCategory(ctx, iface, "configurators")
	if err != nil {
		return nil, fmt.Errorf("registry %s: watch the configurators of %s: %w", ru.Location, iface, err)
	}
	where := "/" + strings.TrimPrefix(ru.GetParam(constant.RegistryGroupKey, "dubbo"), "/") + "/" + iface + "/configurators"
	return watch.Relay(ctx, ch, func(p dzk.Providers) source.Overrides {
		return source.Overrides{Where: where, URLs: p.URLs}
	}), nil
}

// feed turns each provider list into events for the directory
// (source.ProviderFeed: the first list complete, then the providers that
// came and went one event each, as dubbo-go's ZooKeeper listener does for
// each child node). Only providers of the subscribed service key count; a
// node announced already is not parsed again.
func feed(ch <-chan dzk.Providers, sub *common.URL, l registry.NotifyListener) {
	want := sub.ServiceKey()
	intf, group, version := common.ParseServiceKey(want)
	f := source.NewProviderFeed(l, sub.Protocol)
	for p := range ch {
		now := make(map[string]*common.URL, len(p.Nodes))
		for _, node := range p.Nodes {
			if u, ok := f.Known(node); ok {
				now[node] = u
				continue
			}
			u, err := zkclient.ProviderURL(node)
			if err != nil {
				logger.Warnf("[dubboroute] %s: provider node %q: %v", p.Path, node, err)
				continue
			}
			if u.ServiceKey() != want && !common.IsAnyCondition(intf, group, version, u) {
				continue
			}
			now[node] = u
		}
		f.Next(now)
	}
}

// ruleSource reads and follows rule keys with dubboroute's own client
// when the config center is ZooKeeper.
type ruleSource struct{}

// Open implements source.RuleSource. Rules are read where Java Dubbo and
// Dubbo Admin keep them, <root>/dubbo/<key> with root "/<namespace>/config"
// (Java's TreePathDynamicConfiguration; /dubbo/config/dubbo/<key> by
// default), and, when config-center.namespace is not "dubbo", also where
// dubbo-go v3.3.2 itself reads them, /dubbo/config/<namespace>/<key>:
// Java's place wins when both hold a key (source.Layered). A root-path
// parameter replaces both roots.
func (ruleSource) Open(cu *common.URL) (source.RuleClient, error) {
	ns := cu.GetParam(constant.ConfigNamespaceKey, "dubbo")
	javaRoot := cu.GetParam(constant.ConfigRootPathParamKey, "/"+ns+"/config")
	java, err := openRules(cu, javaRoot, "dubbo")
	if err != nil || ns == "dubbo" {
		return java, err
	}
	goRoot := cu.GetParam(constant.ConfigRootPathParamKey, "/dubbo/config")
	dubbogo, err := openRules(cu, goRoot, ns)
	if err != nil {
		return nil, err
	}
	return source.Layered{Primary: java, Secondary: dubbogo, PrimaryName: javaRoot + "/dubbo", SecondaryName: goRoot + "/" + ns}, nil
}

// openRules is the rule client of the nodes <root>/<group>/<key>.
func openRules(cu *common.URL, root, group string) (ruleClient, error) {
	key, opts := zkclient.Options(cu)
	opts = append(opts, dzk.WithRoot(root), dzk.WithGroup(group))
	c, err := zkclient.Client(cu.Location, key+"rules="+root+"/"+group, opts...)
	if err != nil {
		return ruleClient{}, err
	}
	return ruleClient{c}, nil
}

// ruleClient is source.RuleClient over a directory/zookeeper client. The
// revision of a state is the node's dzk.Revision (creation and
// modification zxids; the zero Revision: no node), not its data version: a
// node deleted and created again is back at version 0.
type ruleClient struct{ c *dzk.Client }

// Where implements source.RuleLocator: the rule's node.
func (r ruleClient) Where(key string) string {
	p, err := r.c.RulePath(key)
	if err != nil {
		return "zookeeper " + key
	}
	return "zookeeper " + p
}

// Read implements source.RuleClient: a missing node (the zero Revision) is
// a deleted key.
func (r ruleClient) Read(ctx context.Context, key string) (source.RuleEvent, error) {
	content, _, rev, err := r.c.GetRuleRevision(ctx, key)
	return source.ReadEvent(key, content, rev, err, dzk.ErrNotFound)
}

// Watch implements source.RuleClient: the node's states as
// source.NewRuleEvent judges them (a missing node, the zero Revision, is a
// deleted key).
func (r ruleClient) Watch(ctx context.Context, key string) (<-chan source.RuleEvent, error) {
	ch, err := r.c.WatchRule(ctx, key)
	return source.WatchEvents(ctx, key, ch, err)
}
