package nacosfollow

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"github.com/dubbogo/gost/log/logger"

	dnacos "github.com/dubboroute/dubboroute/directory/nacos"
	"github.com/dubboroute/dubboroute/extension/source"
)

// PollKey is the registry URL parameter (a Go duration) for how often a
// followed service's instance list is read. Default dnacos.DefaultInstancePoll.
const PollKey = "dubboroute.nacos.poll"

// FollowEnv switches the follow off when set to "off": interface- and
// application-level subscriptions on Nacos then go through dubbo-go's own
// Nacos registry and service discovery (nacos-sdk-go pushes), bugs
// included. For comparisons and as an escape hatch.
const FollowEnv = "DUBBOROUTE_NACOS_FOLLOW"

// Enabled reports whether the follow is on (FollowEnv is not "off").
func Enabled() bool { return os.Getenv(FollowEnv) != "off" }

// IsNacos reports whether a registry URL is a Nacos registry (interface
// level "registry://...?registry=nacos" or "nacos://...").
func IsNacos(u *common.URL) bool {
	return u != nil && (u.Protocol == constant.NacosKey || u.GetParam(constant.RegistryKey, "") == constant.NacosKey)
}

// Register registers Nacos's provider source (package extension/source):
// interface-level directories on a Nacos registry are served by
// dubboroute's follow. Package extension's init calls it; calling it again is
// harmless.
func Register() {
	source.RegisterProviderSource(constant.NacosKey, providerSource{})
}

// providerSource serves an interface-level directory's subscription from
// dubboroute's own follow of the service's Nacos instance list.
type providerSource struct{}

// serviceName is the Nacos service a consumer URL subscribes to.
func serviceName(u *common.URL) string {
	return dnacos.ServiceName(constant.ProviderCategory, u.GetParam(constant.InterfaceKey, u.Service()),
		u.GetParam(constant.VersionKey, ""), u.GetParam(constant.GroupKey, ""))
}

// Subscribe implements source.ProviderSource: it starts the follow and
// returns. An error (the follow is off, or the client cannot be made) makes
// the directory use dubbo-go's own subscription.
func (providerSource) Subscribe(r registry.Registry, u *common.URL, l registry.NotifyListener) (func(), error) {
	if !Enabled() {
		return nil, fmt.Errorf("%s=off", FollowEnv)
	}
	ru := r.GetURL()
	c, err := Client(ru)
	if err != nil {
		return nil, err
	}
	group := ru.GetParam(constant.RegistryGroupKey, dnacos.DefaultNamingGroup)
	name := serviceName(u)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := c.WatchInstances(ctx, name, group, pollOf(ru))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("follow %s: %w", name, err)
	}
	go feed(ch, u, l, make(chan struct{}), ru.Location+" "+name)
	return cancel, nil
}

// feed turns each instance list into events for the directory: the first
// list as one complete list, then one event per provider added, changed or
// removed. Only providers of the subscribed service key count (a list may
// also hold other registrations under the same name). After a list that
// added a provider, the whole list is handed over once more when a closing
// tombstone would have expired: dubbo-go's directory drops the add of an
// address whose provider announced closing within
// closing-invoker-expire-time (a graceful restart on the same port), and
// nothing would add it afterwards.
func feed(ch <-chan dnacos.Instances, sub *common.URL, l registry.NotifyListener, first chan struct{}, where string) {
	defer closeOnce(first)
	want := sub.ServiceKey()
	intf, group, version := common.ParseServiceKey(want)
	f := source.NewProviderFeed(l, sub.Protocol)
	again := time.NewTimer(time.Hour)
	again.Stop()
	defer again.Stop()
	for {
		var list dnacos.Instances
		select {
		case l2, ok := <-ch:
			if !ok {
				return
			}
			list = l2
		case <-again.C:
			f.Again()
			continue
		}
		now := map[string]*common.URL{}
		for _, inst := range list.Hosts {
			if !inst.Enabled {
				continue // Java's NacosRegistry drops disabled instances
			}
			u, err := InstanceURL(inst)
			if err != nil {
				logger.Warnf("[dubboroute] %s: instance %s: %v", where, inst.Address(), err)
				continue
			}
			if u.ServiceKey() != want && !common.IsAnyCondition(intf, group, version, u) {
				continue
			}
			now[u.GetCacheInvokerMapKey()] = u
		}
		started := f.Started()
		added := f.Next(now)
		if !started {
			closeOnce(first)
			continue
		}
		if added {
			again.Reset(closingTTL() + time.Second)
		}
	}
}

func closeOnce(ch chan struct{}) {
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// InstanceURL is the provider URL of an interface-level Nacos instance, as
// Java's NacosRegistry and dubbo-go build it: protocol and path from the
// metadata (path else "/"+interface), host and port from the instance, every
// metadata entry a parameter.
func InstanceURL(inst dnacos.Instance) (*common.URL, error) {
	md := inst.Metadata
	protocol := md[constant.NacosProtocolKey]
	if protocol == "" {
		return nil, fmt.Errorf("no %q in its metadata", constant.NacosProtocolKey)
	}
	path := md[constant.NacosPathKey]
	if path == "" {
		path = md[constant.InterfaceKey]
	}
	if path == "" {
		return nil, fmt.Errorf("neither %q nor %q in its metadata", constant.NacosPathKey, constant.InterfaceKey)
	}
	params := url.Values{}
	for k, v := range md {
		params.Set(k, v)
	}
	return common.NewURLWithOptions(
		common.WithIp(inst.IP),
		common.WithPort(strconv.Itoa(inst.Port)),
		common.WithProtocol(protocol),
		common.WithParams(params),
		common.WithPath(path),
	), nil
}
