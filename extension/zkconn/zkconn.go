package zkconn

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
	gxzookeeper "github.com/dubbogo/gost/database/kv/zk"
	"github.com/dubbogo/gost/log/logger"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/extension/internal/zkclient"
)

// IsZooKeeper reports a ZooKeeper registry or config-center URL.
func IsZooKeeper(u *common.URL) bool { return zkclient.IsZooKeeper(u) }

// digest is the URL's digest credentials, user:password ("" for none).
func digest(u *common.URL) string {
	if u.Username == "" {
		return ""
	}
	return u.Username + ":" + u.Password
}

// Servers are the host:port addresses of u's location (a comma-separated
// ensemble, scheme and path stripped).
func Servers(u *common.URL) []string {
	var out []string
	for _, s := range strings.Split(u.Location, ",") {
		s = strings.TrimSpace(s)
		if i := strings.Index(s, "://"); i >= 0 {
			s = s[i+3:]
		}
		if i := strings.LastIndex(s, "@"); i >= 0 {
			s = s[i+1:]
		}
		if i := strings.IndexAny(s, "/?"); i >= 0 {
			s = s[:i]
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// prepared are the dubbo-go client names Prepare has seen, with the
// credentials and TLS settings it gave them. Package state because the
// clients they name are dubbo-go's process-wide pool (see relays).
var prepared = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// Prepare gives dubbo-go's pooled ZooKeeper client for u's location the
// URL's credentials and TLS before dubbo-go uses it: it creates the client
// (through a TLS relay when the URL asks for TLS) or, if dubbo-go created
// it already, authenticates it. Call it before dubbo-go creates a
// registry, service discovery or config center for u. Without credentials
// or TLS it does nothing.
func Prepare(u *common.URL) error {
	if !IsZooKeeper(u) {
		return nil
	}
	d := digest(u)
	files, useTLS := zkclient.TLSFiles(u)
	if d == "" && !useTLS {
		return nil
	}
	want := fmt.Sprintf("%s|%v|%+v", dzk.DigestID(u.Username, u.Password), useTLS, files)
	prepared.Lock()
	defer prepared.Unlock()
	if prepared.m[u.Location] == want {
		return nil
	}
	addrs := Servers(u)
	if len(addrs) == 0 {
		return fmt.Errorf("zookeeper %q: no server address", u.Location)
	}
	if useTLS {
		cfg, err := dzk.TLSConfig(files)
		if err != nil {
			return fmt.Errorf("zookeeper %s: %w", u.Location, err)
		}
		relays, err := relaysFor(addrs, cfg)
		if err != nil {
			return fmt.Errorf("zookeeper %s: %w", u.Location, err)
		}
		addrs = relays
	}
	timeout := u.GetParamDuration(constant.ConfigTimeoutKey, constant.DefaultRegTimeout)
	c, err := gxzookeeper.NewZookeeperClient(u.Location, addrs, true, gxzookeeper.WithZkTimeOut(timeout))
	if err != nil {
		return fmt.Errorf("zookeeper %s: create dubbo-go's client: %w", u.Location, err)
	}
	if useTLS && strings.Join(c.ZkAddrs, ",") != strings.Join(addrs, ",") {
		logger.Errorf("[dubboroute] zookeeper %s: dubbo-go created its client before dubboroute could give it TLS; it connects in plain TCP to %v", u.Location, c.ZkAddrs)
	}
	if d != "" {
		if err := addAuth(c, d, 10*time.Second+timeout); err != nil {
			return fmt.Errorf("zookeeper %s: authenticate dubbo-go's client as digest user %q: %w", u.Location, u.Username, err)
		}
	}
	prepared.m[u.Location] = want
	logger.Infof("[dubboroute] zookeeper %s: dubbo-go's client authenticated=%v tls=%v", u.Location, d != "", useTLS)
	return nil
}

// addAuth adds the digest credentials to gost's connection, retrying while
// it has no session yet, within timeout. go-zookeeper re-submits them
// after every reconnect.
func addAuth(c *gxzookeeper.ZookeeperClient, creds string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c.RLock()
		conn := c.Conn
		c.RUnlock()
		if conn == nil {
			return errors.New("dubbo-go's client is closed")
		}
		done := make(chan error, 1)
		go func() { done <- conn.AddAuth("digest", []byte(creds)) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Until(deadline)):
			return fmt.Errorf("no answer within %v", timeout)
		}
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// EnsureCategories creates, for an interface-level registry with
// credentials, the category nodes of u's service that dubbo-go would
// create world-writable (/<group>/<interface>/{providers,consumers,
// configurators,routers}) with the client's creator-only ACL, so that only
// the fleet's identity can register there. Existing nodes are left as
// they are.
func EnsureCategories(ru, u *common.URL) error {
	if !IsZooKeeper(ru) || ru.Protocol == constant.ServiceRegistryProtocol || digest(ru) == "" || u == nil {
		return nil
	}
	c, err := zkclient.Registry(ru)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, cat := range []string{"providers", "consumers", "configurators", "routers"} {
		path, err := c.CategoryPath(u.Service(), cat)
		if err != nil {
			return err
		}
		if err := c.EnsurePath(ctx, path); err != nil {
			return err
		}
	}
	return nil
}

// Probe checks that the identity of the registry URL ru, when it has
// credentials, may list the providers of u's service (interface-level
// registries). It returns the *directory/zookeeper.AuthError of a refused
// read; other failures (unreachable, no node yet) are not its business and
// give nil. Without credentials it does nothing (a refused anonymous
// watch is still logged as an error by the watch itself).
func Probe(ru, u *common.URL) error {
	if !IsZooKeeper(ru) || ru.Protocol == constant.ServiceRegistryProtocol || u == nil || digest(ru) == "" {
		return nil
	}
	c, err := zkclient.Registry(ru)
	if err != nil {
		return nil
	}
	path, err := c.ProvidersPath(u.Service())
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Children(ctx, path); errors.Is(err, dzk.ErrNoAuth) {
		return err
	}
	return nil
}

// Redact is u's location without credentials, for logs.
func Redact(u *common.URL) string {
	return (&url.URL{Scheme: "zookeeper", Host: strings.Join(Servers(u), ",")}).String()
}

// PrepareRegistry is Prepare for the registry URL ru, then, when sub (the
// provider's or the reference's URL) is given, EnsureCategories; failures
// are logged as errors (dubbo-go's own registration reports its own).
func PrepareRegistry(ru, sub *common.URL) {
	if ru == nil || !IsZooKeeper(ru) {
		return
	}
	if err := Prepare(ru); err != nil {
		logger.Errorf("[dubboroute] registry %s: %v", Redact(ru), err)
	}
	if sub == nil {
		return
	}
	if err := EnsureCategories(ru, sub); err != nil {
		logger.Errorf("[dubboroute] registry %s: %s: %v", Redact(ru), sub.Service(), err)
	}
}
