package zkclient

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
)

// clients are dubboroute's ZooKeeper clients, one per ensemble and
// settings, shared by every subscription of the process and kept for its
// lifetime (as dubbo-go keeps its registry clients).
var clients = struct {
	sync.Mutex
	m map[string]*dzk.Client
}{m: map[string]*dzk.Client{}}

// Client returns the shared client for addrs (comma-separated) with opts;
// key identifies the settings.
func Client(addrs, key string, opts ...dzk.Option) (*dzk.Client, error) {
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

// Options are the client settings a dubbo-go registry or config-center
// URL asks for: credentials and session timeout.
func Options(u *common.URL) (string, []dzk.Option) {
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

// IsZooKeeper reports whether a registry or config-center URL is ZooKeeper.
func IsZooKeeper(u *common.URL) bool {
	return u != nil && (u.Protocol == "zookeeper" || u.GetParam(constant.RegistryKey, "") == "zookeeper")
}

// ProviderURL parses a provider node name (a URL-encoded URL).
func ProviderURL(node string) (*common.URL, error) {
	raw, err := url.QueryUnescape(node)
	if err != nil {
		return nil, fmt.Errorf("not URL-encoded: %w", err)
	}
	return common.NewURL(raw)
}
