package discovery

import (
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/extension/source"
)

// followRegistry serves an interface-level directory's subscription from
// the provider source registered for the registry's protocol (package
// extension/source; extension/zookeeper registers ZooKeeper's, which
// follows /<group>/<interface>/providers with dubboroute's own client).
type followRegistry struct {
	registry.Registry
	src source.ProviderSource

	mu      sync.Mutex
	cancels map[registry.NotifyListener]func()
}

// Followed makes a directory constructor subscribe through the provider
// source of its registry, if one is registered.
func Followed(newDir DirFactory) DirFactory {
	return func(u *common.URL, r registry.Registry) (Dir, error) { return newDir(u, follow(r)) }
}

func follow(r registry.Registry) registry.Registry {
	if r == nil {
		return r
	}
	src := source.ProviderSourceFor(r.GetURL())
	if src == nil {
		return r
	}
	return &followRegistry{Registry: r, src: src, cancels: map[registry.NotifyListener]func(){}}
}

// Subscribe implements registry.Registry: it starts the source's watch and
// returns. If the source cannot follow, dubbo-go's own subscription is used.
func (f *followRegistry) Subscribe(u *common.URL, l registry.NotifyListener) error {
	cancel, err := f.src.Subscribe(f.Registry, u, l)
	if err != nil {
		logger.Warnf("[dubboroute] registry %s: %v; using dubbo-go's subscription", f.Registry.GetURL().Location, err)
		return f.Registry.Subscribe(u, l)
	}
	f.mu.Lock()
	if old, ok := f.cancels[l]; ok {
		old()
	}
	f.cancels[l] = cancel
	f.mu.Unlock()
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
