package nacosfollow

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	gxset "github.com/dubbogo/gost/container/set"
	"github.com/dubbogo/gost/log/logger"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/global"
	"dubbo.apache.org/dubbo-go/v3/metadata"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/registry/servicediscovery"

	dnacos "github.com/dubboroute/dubboroute/directory/nacos"
)

// Application level on Nacos.
//
// dubbo-go v3.3.2 hands every Nacos push of an application's instances to
// its ServiceInstancesChangedListenerImpl, which fetches each revision's
// metadata (metadata report, else the provider's MetadataService) and
// skips an instance whose fetch fails; nothing fetches it again until the
// instance list changes. A provider that restarts and is seen before its
// metadata can be read (apache/dubbo-go#3615; the fix, PR #3625, came after
// 3.3.2) stays out of the consumer's list for good: "No provider". The
// directory's closing tombstone (a dubbo-go provider's graceful shutdown
// marks its address closing for closing-invoker-expire-time, 30 s) also
// drops the re-added instance when it comes back on the same address within
// that time, and again nothing adds it afterwards.
//
// With dubboroute, a service-discovery subscription on a Nacos registry is
// served from dubboroute's own client: the applications come from the
// reference's provided-by, else from Java's and dubbo-go's service-name
// mapping in Nacos config (dataId <interface>, group "mapping", followed);
// each application's instance list is followed as at interface level
// (WatchInstances); every list goes to dubbo-go's own
// ServiceInstancesChangedListenerImpl (which builds the provider URLs as
// before), and then
//   - while the metadata of an instance's revision cannot be read, the
//     latest lists are handed over again with backoff (AppRetryMin doubling
//     to AppRetryMax) until it can, as Java's listener retries failed
//     revisions;
//   - after a list that brought an address back, the lists are handed over
//     once more when a closing tombstone for it would have expired.

// MappingGroup is the Nacos config group of the service-name mapping
// (Java's NacosMetadataReport and dubbo-go's).
const MappingGroup = "mapping"

// Retry bounds for instances whose metadata could not be read.
const (
	AppRetryMin = 500 * time.Millisecond
	AppRetryMax = 10 * time.Second
)

// appSubs are the running application-level follows, by listener.
// Package state because SubscribeApp and UnsubscribeApp are called by
// extension/discovery's wrapper of dubbo-go's service-discovery registry,
// which dubbo-go builds through its extension registry with no context.
var appSubs = struct {
	sync.Mutex
	m map[registry.NotifyListener]context.CancelFunc
}{m: map[registry.NotifyListener]context.CancelFunc{}}

// SubscribeApp serves a service-discovery registry's subscription of u
// (a consumer URL) for l from dubboroute's follow of Nacos; ru is the
// service-discovery registry's URL. An error means nothing was started
// (the caller uses dubbo-go's subscription).
func SubscribeApp(ru, u *common.URL, l registry.NotifyListener) error {
	if !Enabled() {
		return fmt.Errorf("%s=off", FollowEnv)
	}
	c, err := Client(ru)
	if err != nil {
		return err
	}
	group := ru.GetParam(constant.RegistryGroupKey, dnacos.DefaultNamingGroup)
	poll := pollOf(ru)
	registryID := ru.GetParam(constant.RegistryIdKey, constant.DefaultKey)
	if id, ok := ru.GetNonDefaultParam(constant.RegistryIdKey); ok {
		metadata.AddSubscribeURL(id, u)
	}
	protocol := constant.TriProtocol // dubbo-go's default for application-level references
	if u.Protocol != "" {
		protocol = u.Protocol
	}
	ctx, cancel := context.WithCancel(context.Background())
	appSubs.Lock()
	if old, ok := appSubs.m[l]; ok {
		old()
	}
	appSubs.m[l] = cancel
	appSubs.Unlock()
	f := &appFollow{
		c: c, group: group, poll: poll, registryID: registryID,
		consumerApp: u.GetParam(constant.ApplicationKey, ""),
		iface:       u.GetParam(constant.InterfaceKey, u.Service()),
		serviceKey:  u.ServiceKey() + ":" + protocol,
		l:           l, where: ru.Location,
		lists: map[string][]registry.ServiceInstance{},
	}
	go f.run(ctx, u.GetParam(constant.ProvidedBy, ""))
	return nil
}

// UnSubscribeApp stops the follow SubscribeApp started for l.
func UnSubscribeApp(l registry.NotifyListener) {
	appSubs.Lock()
	defer appSubs.Unlock()
	if cancel, ok := appSubs.m[l]; ok {
		cancel()
		delete(appSubs.m, l)
	}
}

func pollOf(ru *common.URL) time.Duration {
	if v := ru.GetParam(PollKey, ""); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
		logger.Warnf("[dubboroute] registry parameter %s=%q is not a positive duration; using %s", PollKey, v, dnacos.DefaultInstancePoll)
	}
	return dnacos.DefaultInstancePoll
}

type appFollow struct {
	c           *dnacos.Client
	group       string
	poll        time.Duration
	registryID  string
	consumerApp string
	iface       string
	serviceKey  string // <service key>:<protocol>, the listener's key for l
	l           registry.NotifyListener
	where       string

	apps     []string
	listener registry.ServiceInstancesChangedListener
	lists    map[string][]registry.ServiceInstance // by application: the latest list
	seen     map[string]bool                       // addresses of the last hand-over
}

type appList struct {
	app  string
	list dnacos.Instances
}

func (f *appFollow) run(ctx context.Context, providedBy string) {
	lists := make(chan appList, 16)
	watching := map[string]context.CancelFunc{}
	defer func() {
		for _, cancel := range watching {
			cancel()
		}
	}()
	setApps := func(apps []string) {
		if len(apps) == 0 || strings.Join(apps, ",") == strings.Join(f.apps, ",") {
			return
		}
		logger.Infof("[dubboroute] %s: applications %v (Nacos %s)", f.iface, apps, f.where)
		f.apps = apps
		set := gxset.NewSet()
		for _, a := range apps {
			set.Add(a)
		}
		if f.listener != nil {
			f.listener.RemoveListener(f.serviceKey)
		}
		f.listener = servicediscovery.NewServiceInstancesChangedListener(f.consumerApp, f.registryID, set)
		f.listener.AddListenerAndNotify(f.serviceKey, f.l)
		for app, cancel := range watching {
			if !set.Contains(app) {
				cancel()
				delete(watching, app)
				delete(f.lists, app)
			}
		}
		for _, app := range apps {
			if _, ok := watching[app]; ok {
				continue
			}
			wctx, cancel := context.WithCancel(ctx)
			ch, err := f.c.WatchInstances(wctx, app, f.group, f.poll)
			if err != nil {
				cancel()
				logger.Warnf("[dubboroute] %s: follow application %s: %v", f.iface, app, err)
				continue
			}
			watching[app] = cancel
			go func() {
				for l := range ch {
					select {
					case lists <- appList{app: app, list: l}:
					case <-wctx.Done():
						return
					}
				}
			}()
		}
	}

	var mapping <-chan dnacos.ConfigEvent
	if apps := splitApps(providedBy); len(apps) > 0 {
		setApps(apps)
	} else {
		ch, err := f.c.WatchConfig(ctx, MappingGroup, dnacos.DataID(f.iface))
		if err != nil {
			logger.Warnf("[dubboroute] %s: follow the service-name mapping in Nacos %s: %v", f.iface, f.where, err)
		}
		mapping = ch
	}

	retry := time.NewTimer(time.Hour)
	retry.Stop()
	backoff := AppRetryMin
	tomb := time.NewTimer(time.Hour)
	tomb.Stop()
	for {
		select {
		case <-ctx.Done():
			if f.listener != nil {
				f.listener.RemoveListener(f.serviceKey)
			}
			return
		case ev, ok := <-mapping:
			if !ok {
				mapping = nil
				continue
			}
			setApps(splitApps(ev.Content))
		case al := <-lists:
			f.lists[al.app] = instancesOf(al.app, f.group, al.list)
			backAgain := f.handOver(al.app)
			if f.failing() {
				backoff = AppRetryMin
				retry.Reset(backoff)
			}
			if backAgain {
				tomb.Reset(closingTTL() + time.Second)
			}
		case <-retry.C:
			f.handOverAll()
			if f.failing() {
				backoff = min(backoff*2, AppRetryMax)
				retry.Reset(backoff)
			} else {
				logger.Infof("[dubboroute] %s: metadata of every instance read; providers complete", f.iface)
			}
		case <-tomb.C:
			f.handOverAll()
		}
	}
}

// handOverAll hands the latest lists over again (dubbo-go's listener
// rebuilds from every application's stored list on each event, so one
// event does).
func (f *appFollow) handOverAll() {
	for _, app := range f.apps {
		if _, ok := f.lists[app]; ok {
			f.handOver(app)
			return
		}
	}
}

// handOver gives dubbo-go's listener app's latest list and reports whether
// it brought back an address that had been gone.
func (f *appFollow) handOver(app string) bool {
	list, ok := f.lists[app]
	if !ok || f.listener == nil {
		return false
	}
	if err := f.listener.OnEvent(registry.NewServiceInstancesChangedEvent(app, list)); err != nil {
		logger.Warnf("[dubboroute] %s: instances of %s: %v", f.iface, app, err)
	}
	now := map[string]bool{}
	back := false
	for _, apps := range f.lists {
		for _, inst := range apps {
			now[inst.GetAddress()] = true
		}
	}
	if f.seen != nil {
		for a := range now {
			if !f.seen[a] {
				back = true
			}
		}
	}
	f.seen = now
	return back
}

// failing reports whether the metadata of some instance's revision cannot
// be read (dubbo-go's listener left that instance out).
func (f *appFollow) failing() bool {
	bad := false
	for app, list := range f.lists {
		for _, inst := range list {
			rev := inst.GetMetadata()[constant.ExportedServicesRevisionPropertyName]
			if rev == "" || rev == "0" {
				continue
			}
			if _, err := servicediscovery.GetMetadataInfo(app, inst, rev, f.registryID); err != nil {
				logger.Warnf("[dubboroute] %s: metadata of %s revision %s at %s not readable yet; trying again: %v", f.iface, app, rev, inst.GetAddress(), err)
				bad = true
			}
		}
	}
	return bad
}

// closingTTL is how long dubbo-go's directory ignores an address after its
// provider announced closing (shutdown closing-invoker-expire-time).
func closingTTL() time.Duration {
	if d, err := time.ParseDuration(global.DefaultShutdownConfig().ClosingInvokerExpireTime); err == nil && d > 0 {
		return d
	}
	return 30 * time.Second
}

func splitApps(s string) []string {
	set := map[string]bool{}
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			set[a] = true
		}
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// instancesOf converts an application's Nacos instances as dubbo-go's Nacos
// service discovery does (its "id" metadata entry is the instance id and is
// removed; dubbo.tag is the instance tag), leaving out disabled instances.
func instancesOf(app, group string, l dnacos.Instances) []registry.ServiceInstance {
	out := make([]registry.ServiceInstance, 0, len(l.Hosts))
	for _, h := range l.Hosts {
		if !h.Enabled {
			continue
		}
		md := make(map[string]string, len(h.Metadata))
		for k, v := range h.Metadata {
			md[k] = v
		}
		id := md["id"]
		delete(md, "id")
		out = append(out, &registry.DefaultServiceInstance{
			ID: id, ServiceName: app, Host: h.IP, Port: h.Port,
			Weight: int64(math.Round(h.Weight)), Enable: h.Enabled, Healthy: h.Healthy,
			Metadata: md, GroupName: group, Tag: md[constant.Tagkey],
		})
	}
	return out
}
