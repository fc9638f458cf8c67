package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"github.com/dubbogo/gost/log/logger"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/internal/zkclient"
)

// Why dubboroute keeps a Go provider's ZooKeeper registrations alive.
//
// dubbo-go v3.3.2 registers a provider as an ephemeral node of its own
// ZooKeeper session and writes it again only when that client reconnects.
// Measured on a 3-member ensemble (integration/fault TestEnsembleFaults):
// after two members were down for 8 s a provider's client got a new
// session when the quorum returned, its re-registration found the node of
// the old session still there, and when that old session expired about 5 s
// later the node went with it; nothing wrote it again, and a consumer
// dropped a live provider (2 of 6,250 calls failed). Java providers do not
// have this hole: Curator's PersistentNode watches the node and re-creates
// it.
//
// So for a provider exported through a ZooKeeper registry, dubboroute
// guards each node dubbo-go registered, with its own ZooKeeper client
// (package directory/zookeeper, KeepEphemeral): the interface-level
// /<group>/<interface>/providers/<URL> and, when the provider registers
// application-level, /services/<application>/<ip:port>. The guard watches
// the node; when it is gone for a hold-off of 1 s (deleted, or removed with
// the session that owned it, dubbo-go's or ours) or dubboroute's session is
// new, it creates it again, ephemeral, with the data it last had and the
// client's ACL (Curator's creator-only ACL when the registry URL has
// credentials); a node dubbo-go created world-writable is tightened to that
// ACL (docs/zookeeper-security.md).
//
// Guarding rather than taking registration over: dubbo-go's registry keeps
// its own registered set and re-registers it on every reconnect (delete and
// create); its registry factory cannot be wrapped (the constructor is not
// reachable), so a takeover would mean unregistering dubbo-go's node right
// after export (a gap consumers see) and still racing its reconnect logic.
// Guarded, dubbo-go stays the writer while its node lives, and dubboroute
// writes only a node that has been absent for the hold-off: dubbo-go's own
// delete-and-create is milliseconds apart and is left alone. On unregister
// (configurator re-registration, graceful shutdown) the guard stops before
// dubbo-go deletes the node (a delete removes it whichever session owns
// it), and a node left over in dubboroute's session is deleted after.
//
// One case differs from dubbo-go alone: when a provider-side configurator
// re-registers an application-level provider, dubbo-go's service-discovery
// registry deletes the instance node on unregister and does not write it
// again on register; the guard restores it (Java keeps its instance
// registered there). Not covered by a test.

// registrationHoldOff is how long a guarded node must be absent before
// dubboroute re-creates it.
const registrationHoldOff = time.Second

// keptNode guards one provider's interface-level node.
type keptNode struct {
	url string // the registered URL the node is for
	e   *dzk.Ephemeral
}

// keepCurrent guards the node of pe.current when its registry is
// ZooKeeper (interface-level); pe.mu is held.
func (pe *providerExport) keepCurrent() {
	if pe.kept.e != nil && pe.kept.url == pe.current.String() {
		return
	}
	pe.unkeep()
	pe.kept = keptNode{}
	ru := pe.reg.GetURL()
	if !zkclient.IsZooKeeper(ru) || ru.Protocol == constant.ServiceRegistryProtocol {
		return
	}
	c, path, err := interfaceNode(ru, pe.current)
	if err != nil {
		logger.Warnf("[dubboroute] provider %s: not guarding its ZooKeeper registration: %v", pe.current.Location, err)
		return
	}
	e, err := c.KeepEphemeral(path, dzk.EphemeralOptions{HoldOff: registrationHoldOff, Created: recreated(pe.current.Location, path), Tighten: true})
	if err != nil {
		logger.Warnf("[dubboroute] provider %s: not guarding its ZooKeeper registration: %v", pe.current.Location, err)
		return
	}
	pe.kept = keptNode{url: pe.current.String(), e: e}
	logger.Infof("[dubboroute] provider %s: guarding its registration %s", pe.current.Location, path)
}

// unkeep stops guarding pe's node (before it is unregistered); release
// then deletes it if it is left in dubboroute's session; pe.mu is held.
func (pe *providerExport) unkeep() {
	if pe.kept.e != nil {
		pe.kept.e.Close()
	}
}

// release deletes a guarded node left in dubboroute's session (after
// dubbo-go unregistered it) and forgets it; pe.mu is held.
func (pe *providerExport) release() {
	e := pe.kept.e
	pe.kept = keptNode{}
	if e == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.Release(ctx); err != nil {
		logger.Warnf("[dubboroute] unregister %s: %v", e.Path(), err)
	}
}

// recreated logs a guarded node dubboroute created again.
func recreated(provider, path string) func(int64) {
	return func(session int64) {
		logger.Warnf("[dubboroute] provider %s: its registration %s was gone; re-created it in dubboroute's ZooKeeper session 0x%x", provider, path, session)
	}
}

// interfaceNode is the node dubbo-go's ZooKeeper registry created for u
// (BaseRegistry.providerRegistry and processURL: the URL's parameters plus
// anyhost and methods, the local IP when the URL has none, URL-encoded
// under /<group>/<URL-encoded interface>/providers), checked to exist.
func interfaceNode(ru, u *common.URL) (*dzk.Client, string, error) {
	if u.Path == "" || len(u.Methods) == 0 {
		return nil, "", fmt.Errorf("registered URL %s has no path or methods", u.String())
	}
	params := url.Values{}
	u.RangeParams(func(k, v string) bool {
		params.Add(k, v)
		return true
	})
	params.Add(constant.AnyhostKey, "true")
	params.Add(constant.MethodsKey, strings.Join(u.Methods, ","))
	for k, v := range params {
		if len(v) > 0 && v[0] == "" {
			params.Del(k)
		}
	}
	host := u.Ip
	if host == "" {
		host = common.GetLocalIp()
	}
	s, _ := url.QueryUnescape(params.Encode())
	raw := fmt.Sprintf("%s://%s:%s%s?%s", u.Protocol, host, u.Port, u.Path, s)
	group := ru.GetParam(constant.RegistryGroupKey, "dubbo")
	dir := strings.ReplaceAll(fmt.Sprintf("/%s/%s/providers", group, url.QueryEscape(u.Service())), "$", "%24")
	path := dir + "/" + url.QueryEscape(raw)
	c, err := zkclient.Registry(ru)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := c.GetData(ctx, path); err != nil {
		if errors.Is(err, dzk.ErrNotFound) {
			return nil, "", fmt.Errorf("dubbo-go's node is not at %s", path)
		}
		return nil, "", err
	}
	return c, path, nil
}
