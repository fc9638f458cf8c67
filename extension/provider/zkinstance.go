package provider

import (
	"context"
	"strings"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"github.com/dubbogo/gost/log/logger"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/internal/zkclient"
)

// The guards of a provider's application-level instance nodes (why:
// zkregister.go, which guards the interface-level nodes).

// instances guard the application-level instance nodes
// (/services/<application>/<ip:port>) of this process, one per node
// however many services it exports. Package state because every export's
// registry protocol wrapper, made through dubbo-go's process-wide
// extension registry, which passes no context, shares them.
var instances = struct {
	sync.Mutex
	m map[string]*dzk.Ephemeral
}{m: map[string]*dzk.Ephemeral{}}

// keepInstance guards the application-level instance node dubbo-go's
// ZooKeeper service discovery registers for the provider u
// (curator_discovery: <registry.group, default /services>/<application>/
// <ip:port>, JSON data). The instance is registered after the services are
// exported, so the guard adopts the node once it appears and keeps the data
// it last had (dubbo-go updates it when the metadata revision changes).
func keepInstance(reg registry.Registry, u *common.URL) {
	ru := reg.GetURL()
	if ru == nil || ru.Protocol != constant.ServiceRegistryProtocol || !zkclient.IsZooKeeper(ru) {
		return
	}
	app := u.GetParam(constant.ApplicationKey, "")
	if app == "" || u.Port == "" {
		return
	}
	host := u.Ip
	if host == "" {
		host = common.GetLocalIp()
	}
	root := "/" + strings.Trim(ru.GetParam(constant.RegistryGroupKey, "/services"), "/")
	path := root + "/" + app + "/" + host + ":" + u.Port
	instances.Lock()
	defer instances.Unlock()
	if _, ok := instances.m[path]; ok {
		return
	}
	key, opts := zkclient.Options(ru)
	c, err := zkclient.Client(ru.Location, key+"root=/dubbo", append(opts, dzk.WithRegistryRoot("/dubbo"))...)
	if err == nil {
		var e *dzk.Ephemeral
		if e, err = c.KeepEphemeral(path, dzk.EphemeralOptions{Adopt: true, HoldOff: registrationHoldOff, Created: recreated(u.Location, path), Tighten: true}); err == nil {
			instances.m[path] = e
			logger.Infof("[dubboroute] provider %s: guarding its instance registration %s", u.Location, path)
			return
		}
	}
	logger.Warnf("[dubboroute] provider %s: not guarding its instance registration %s: %v", u.Location, path, err)
}

// unkeepInstances stops guarding the instance nodes (before dubbo-go
// unregisters them).
func unkeepInstances() []*dzk.Ephemeral {
	instances.Lock()
	defer instances.Unlock()
	var out []*dzk.Ephemeral
	for path, e := range instances.m {
		e.Close()
		out = append(out, e)
		delete(instances.m, path)
	}
	return out
}

// releaseInstances deletes instance nodes left in dubboroute's session.
func releaseInstances(es []*dzk.Ephemeral) {
	for _, e := range es {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := e.Release(ctx); err != nil {
			logger.Warnf("[dubboroute] unregister %s: %v", e.Path(), err)
		}
		cancel()
	}
}
