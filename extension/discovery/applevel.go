package discovery

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/metadata/info"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/registry/servicediscovery"
	"dubbo.apache.org/dubbo-go/v3/remoting"
	"github.com/dubbogo/gost/log/logger"
)

// Application-level provider URLs as a Java consumer's routers see them
// (consumer side; the provider side is in appmeta.go).
//
// dubbo-go v3.3.2 builds the URL of an application-level provider from the
// instance and the service's metadata (registry.DefaultServiceInstance.ToURLs):
// the service parameters, method parameters renamed methods.<m>.<k>, then
// dubbo.tag set to the instance's tag (empty unless the provider set
// application.tag) and weight to the instance weight (always 100 from
// ZooKeeper). Instance metadata is not on the URL at all. A Java 3.3
// consumer wraps the same data in an InstanceAddressURL (spec
// java-dubbo-3.3-mesh-affinity-configurators.md §6.1) and its routers read:
//   - condition and affinity routers (toOriginalMap): the instance
//     metadata overlaid by the service parameters, as published (method
//     parameters <m>.<k>), plus protocol, host, port, address and path;
//   - the tag router (getParameter("dubbo.tag"), a provider-first key): the
//     service parameter, else the instance metadata;
//   - load balancers (getParameter("weight"), consumer-first): the
//     service parameter (a reference sets no weight), else the instance
//     metadata.
//
// JavaView wraps the registry a service-discovery directory subscribes
// through, so every provider URL is reshaped that way before dubbo-go's
// directory merges it with the reference and hands it to the chain. It must
// get dubbo-go's registry itself (it reads the instances through its
// GetServiceDiscovery), so it is the outermost registry wrapper.
func JavaView(newDir DirFactory) DirFactory {
	return func(u *common.URL, r registry.Registry) (Dir, error) {
		if r == nil {
			return newDir(u, r)
		}
		sd, ok := r.(interface {
			GetServiceDiscovery() registry.ServiceDiscovery
		})
		if !ok {
			logger.Warnf("[dubboroute] %s: registry %T exposes no service discovery; application-level provider URLs stay as dubbo-go builds them", u.Service(), r)
			return newDir(u, r)
		}
		return newDir(u, &javaViewRegistry{Registry: r, sd: sd.GetServiceDiscovery, listeners: map[registry.NotifyListener]*javaViewListener{}})
	}
}

// javaViewRegistry is a service-discovery registry whose notifications
// carry Java-shaped provider URLs.
type javaViewRegistry struct {
	registry.Registry
	sd func() registry.ServiceDiscovery

	mu        sync.Mutex
	listeners map[registry.NotifyListener]*javaViewListener
	recent    map[string]instanceIndex // by application: the last instances read
}

// instanceIndex is an application's instances by address, as read at.
type instanceIndex struct {
	at    time.Time
	byAdr map[string]registry.ServiceInstance
}

// instanceReuse is how long the instances read for one notification serve
// the single-provider notifications that follow (dubbo-go notifies the
// providers it already knows one by one when a reference subscribes).
const instanceReuse = 2 * time.Second

func (r *javaViewRegistry) wrap(l registry.NotifyListener) registry.NotifyListener {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.listeners[l]; ok {
		return w
	}
	w := &javaViewListener{inner: l, reg: r}
	r.listeners[l] = w
	return w
}

// Subscribe implements registry.Registry.
func (r *javaViewRegistry) Subscribe(u *common.URL, l registry.NotifyListener) error {
	return r.Registry.Subscribe(u, r.wrap(l))
}

// UnSubscribe implements registry.Registry.
func (r *javaViewRegistry) UnSubscribe(u *common.URL, l registry.NotifyListener) error {
	return r.Registry.UnSubscribe(u, r.wrap(l))
}

// LoadSubscribeInstances implements registry.Registry.
func (r *javaViewRegistry) LoadSubscribeInstances(u *common.URL, l registry.NotifyListener) error {
	return r.Registry.LoadSubscribeInstances(u, r.wrap(l))
}

// GetServiceDiscovery forwards to dubbo-go's service-discovery registry.
func (r *javaViewRegistry) GetServiceDiscovery() registry.ServiceDiscovery { return r.sd() }

// javaViewListener reshapes the provider URLs of every notification.
type javaViewListener struct {
	inner registry.NotifyListener
	reg   *javaViewRegistry
}

// Notify implements registry.NotifyListener.
func (l *javaViewListener) Notify(ev *registry.ServiceEvent) {
	l.inner.Notify(l.reg.shape([]*registry.ServiceEvent{ev}, true)[0])
}

// NotifyAll implements registry.NotifyListener.
func (l *javaViewListener) NotifyAll(evs []*registry.ServiceEvent, done func()) {
	l.inner.NotifyAll(l.reg.shape(evs, false), done)
}

// shape returns evs with every added provider's URL in Java's view. The
// instances are read once per application and notification (dubbo-go's
// ZooKeeper discovery reads them on every change anyway), or with reuse
// taken from the last read when it is recent and knows the provider; a
// provider whose instance or metadata cannot be found keeps dubbo-go's URL.
func (r *javaViewRegistry) shape(evs []*registry.ServiceEvent, reuse bool) []*registry.ServiceEvent {
	sd := r.GetServiceDiscovery()
	if sd == nil {
		return evs
	}
	registryID := constant.DefaultKey
	if ru := r.GetURL(); ru != nil {
		registryID = ru.GetParam(constant.RegistryIdKey, constant.DefaultKey)
	}
	byApp := map[string]map[string]registry.ServiceInstance{}
	out := make([]*registry.ServiceEvent, len(evs))
	for i, ev := range evs {
		out[i] = ev
		if ev == nil || ev.Service == nil || ev.Action == remoting.EventTypeDel {
			continue
		}
		app := ev.Service.GetParam(constant.ApplicationKey, "")
		if app == "" {
			continue
		}
		insts, ok := byApp[app]
		if !ok && reuse {
			insts, ok = r.recentIndex(app, ev.Service.Location)
		}
		if !ok {
			insts = indexInstances(sd.GetInstances(app))
			byApp[app] = insts
			r.remember(app, insts)
		}
		inst := insts[ev.Service.Location]
		if inst == nil {
			continue
		}
		var svc map[string]string
		rev := inst.GetMetadata()[constant.ExportedServicesRevisionPropertyName]
		if mi, err := servicediscovery.GetMetadataInfo(app, inst, rev, registryID); err == nil && mi != nil {
			svc = serviceParams(mi.Services, ev.Service)
		} else if err != nil {
			logger.Debugf("[dubboroute] %s: metadata of %s revision %s: %v", ev.Service.Service(), app, rev, err)
		}
		nu := ev.Service.Clone()
		javaParams(nu, inst.GetMetadata(), svc)
		out[i] = &registry.ServiceEvent{Action: ev.Action, Service: nu, KeyFunc: ev.KeyFunc}
	}
	return out
}

// recentIndex is the last index read for app if it is recent and knows
// addr.
func (r *javaViewRegistry) recentIndex(app, addr string) (map[string]registry.ServiceInstance, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx, ok := r.recent[app]
	if !ok || time.Since(idx.at) > instanceReuse || idx.byAdr[addr] == nil {
		return nil, false
	}
	return idx.byAdr, true
}

func (r *javaViewRegistry) remember(app string, byAdr map[string]registry.ServiceInstance) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.recent == nil {
		r.recent = map[string]instanceIndex{}
	}
	r.recent[app] = instanceIndex{at: time.Now(), byAdr: byAdr}
}

// indexInstances maps host:port of every endpoint (and the instance's own
// address) to its instance.
func indexInstances(list []registry.ServiceInstance) map[string]registry.ServiceInstance {
	out := make(map[string]registry.ServiceInstance, len(list))
	for _, inst := range list {
		if inst == nil {
			continue
		}
		out[inst.GetAddress()] = inst
		for _, ep := range inst.GetEndPoints() {
			if ep != nil && ep.Port > 0 {
				out[inst.GetHost()+":"+strconv.Itoa(ep.Port)] = inst
			}
		}
	}
	return out
}

// serviceParams are the published parameters of the service u was built
// from (same interface, group, version and protocol), nil if none.
func serviceParams(services map[string]*info.ServiceInfo, u *common.URL) map[string]string {
	iface := u.GetParam(constant.InterfaceKey, u.Service())
	for _, si := range services {
		if si != nil && si.Name == iface && si.Protocol == u.Protocol &&
			si.Group == u.GetParam(constant.GroupKey, "") && si.Version == u.GetParam(constant.VersionKey, "") {
			return si.Params
		}
	}
	return nil
}

// javaParams puts on u (a provider URL dubbo-go built from an instance and
// svc, the service's published parameters; nil if unknown) what Java's
// InstanceAddressURL gives routers and balancers: instance metadata keys the
// service does not publish, the service's own dubbo.tag (else the
// instance's), the service's weight (else the instance's) and the method
// parameters under their published names <method>.<key> (dubbo-go's
// methods.<method>.<key> copies stay for dubbo-go's own lookups).
func javaParams(u *common.URL, meta, svc map[string]string) {
	for k, v := range meta {
		if v == "" || k == constant.RegistryIdKey || k == constant.Tagkey || k == constant.WeightKey {
			continue
		}
		if _, published := svc[k]; published {
			continue
		}
		if u.GetParam(k, "") == "" {
			u.SetParam(k, v)
		}
	}
	if svc != nil || meta[constant.Tagkey] != "" {
		if tag := firstOf(svc[constant.Tagkey], meta[constant.Tagkey]); tag != "" {
			u.SetParam(constant.Tagkey, tag)
		} else {
			u.DelParam(constant.Tagkey)
		}
	}
	if w := firstOf(svc[constant.WeightKey], meta[constant.WeightKey]); w != "" {
		u.SetParam(constant.WeightKey, w)
	}
	if svc == nil {
		return
	}
	methods := map[string]bool{}
	for _, m := range strings.Split(svc[constant.MethodsKey], ",") {
		if m != "" {
			methods[m] = true
		}
	}
	for k, v := range svc {
		if i := strings.IndexByte(k, '.'); i > 0 && methods[k[:i]] && v != "" {
			u.SetParam(k, v)
		}
	}
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
