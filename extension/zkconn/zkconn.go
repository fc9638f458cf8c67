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
)

// URL parameters of TLS to ZooKeeper.
const (
	TLSKey           = "zookeeper.tls"
	TLSCAKey         = "zookeeper.tls.ca"
	TLSCertKey       = "zookeeper.tls.cert"
	TLSKeyKey        = "zookeeper.tls.key"
	TLSServerNameKey = "zookeeper.tls.server-name"
)

// IsZooKeeper reports a ZooKeeper registry or config-center URL.
func IsZooKeeper(u *common.URL) bool {
	return u != nil && (u.Protocol == "zookeeper" || u.GetParam(constant.RegistryKey, "") == "zookeeper")
}

// digest is the URL's digest credentials, user:password ("" for none).
func digest(u *common.URL) string {
	if u.Username == "" {
		return ""
	}
	return u.Username + ":" + u.Password
}

// Options are the dubboroute client options for u's credentials and TLS
// (not its session timeout or paths), and a key that tells settings apart
// (the password only as its digest). TLS files that do not load make Dial
// fail.
func Options(u *common.URL) (string, []dzk.Option) {
	var opts []dzk.Option
	key := ""
	if d := digest(u); d != "" {
		opts = append(opts, dzk.WithDigest(d))
		key += "digest=" + dzk.DigestID(u.Username, u.Password) + ";"
	}
	files, on := tlsFiles(u)
	if on {
		opts = append(opts, dzk.WithTLSFiles(files))
		key += fmt.Sprintf("tls=%+v;", files)
	}
	return key, opts
}

func tlsFiles(u *common.URL) (dzk.TLSFiles, bool) {
	f := dzk.TLSFiles{
		CA:         u.GetParam(TLSCAKey, ""),
		Cert:       u.GetParam(TLSCertKey, ""),
		Key:        u.GetParam(TLSKeyKey, ""),
		ServerName: u.GetParam(TLSServerNameKey, ""),
	}
	return f, u.GetParamBool(TLSKey, false) || f.CA != "" || f.Cert != ""
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

// clients are dubboroute's ZooKeeper clients, one per ensemble and
// settings, shared by every subscription and guard of the process and kept
// for its lifetime (as dubbo-go keeps its registry clients).
var clients = struct {
	sync.Mutex
	m map[string]*dzk.Client
}{m: map[string]*dzk.Client{}}

// Shared returns the shared client for addrs (comma-separated) with opts;
// key identifies the settings.
func Shared(addrs, key string, opts ...dzk.Option) (*dzk.Client, error) {
	clients.Lock()
	defer clients.Unlock()
	id := addrs + "|" + key
	if c, ok := clients.m[id]; ok {
		return c, nil
	}
	c, err := dzk.Dial(strings.Split(addrs, ","), opts...)
	if err != nil {
		return nil, err
	}
	clients.m[id] = c
	return c, nil
}

// registryClient is the shared dubboroute client of a registry URL with
// the registry group as its root.
func registryClient(ru *common.URL) (*dzk.Client, string, error) {
	key, opts := Options(ru)
	group := "/" + strings.TrimPrefix(ru.GetParam(constant.RegistryGroupKey, "dubbo"), "/")
	timeout := ru.GetParamDuration(constant.ConfigTimeoutKey, constant.DefaultRegTimeout)
	opts = append(opts, dzk.WithSessionTimeout(timeout), dzk.WithRegistryRoot(group))
	c, err := Shared(ru.Location, key+"session="+timeout.String()+";root="+group, opts...)
	return c, group, err
}

// prepared are the dubbo-go client names Prepare has seen, with the
// credentials and TLS settings it gave them.
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
	files, useTLS := tlsFiles(u)
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
	c, _, err := registryClient(ru)
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
	c, _, err := registryClient(ru)
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
