package zkclient

import (
	"fmt"
	"net/url"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"

	"github.com/dubboroute/dubboroute/directory/pool"
	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
)

// clients are dubboroute's ZooKeeper clients, one per ensemble and
// settings, shared by every subscription of the process and kept for its
// lifetime (as dubbo-go keeps its registry clients). Package state because
// the registries and config centers that use them are built through
// dubbo-go's process-wide extension registry, which passes no context.
var clients pool.Pool[*dzk.Client]

// Client returns the shared client for addrs (comma-separated) with opts;
// key identifies the settings.
func Client(addrs, key string, opts ...dzk.Option) (*dzk.Client, error) {
	return clients.Get(addrs+"|"+key, func() (*dzk.Client, error) {
		return dzk.Dial(strings.Split(addrs, ","), opts...)
	})
}

// Registry returns the shared client of a registry URL, rooted at the
// registry group (/<group>, "dubbo" by default): the client every
// provider-list, registration and override watch of that registry uses.
func Registry(ru *common.URL) (*dzk.Client, error) {
	group := strings.TrimPrefix(ru.GetParam(constant.RegistryGroupKey, "dubbo"), "/")
	key, opts := Options(ru)
	c, err := Client(ru.Location, key+"root=/"+group, append(opts, dzk.WithRegistryRoot("/"+group))...)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", ru.Location, err)
	}
	return c, nil
}

// URL parameters of TLS to ZooKeeper (extension/zkconn documents them).
const (
	TLSKey           = "zookeeper.tls"
	TLSCAKey         = "zookeeper.tls.ca"
	TLSCertKey       = "zookeeper.tls.cert"
	TLSKeyKey        = "zookeeper.tls.key"
	TLSServerNameKey = "zookeeper.tls.server-name"
)

// Options are the client settings a dubbo-go registry or config-center
// URL asks for: digest credentials (username, password), TLS (TLSFiles)
// and session timeout. The key tells settings apart; it holds the
// password only as its digest. TLS files that do not load make Dial fail.
func Options(u *common.URL) (string, []dzk.Option) {
	var opts []dzk.Option
	key := ""
	if u.Username != "" {
		opts = append(opts, dzk.WithDigest(u.Username+":"+u.Password))
		key += "digest=" + dzk.DigestID(u.Username, u.Password) + ";"
	}
	if files, on := TLSFiles(u); on {
		opts = append(opts, dzk.WithTLSFiles(files))
		key += fmt.Sprintf("tls=%+v;", files)
	}
	timeout := u.GetParamDuration(constant.ConfigTimeoutKey, constant.DefaultRegTimeout)
	opts = append(opts, dzk.WithSessionTimeout(timeout))
	key += "session=" + timeout.String() + ";"
	return key, opts
}

// TLSFiles are the TLS files u's parameters name, and whether u asks for
// TLS (zookeeper.tls=true, or a CA or client certificate given).
func TLSFiles(u *common.URL) (dzk.TLSFiles, bool) {
	f := dzk.TLSFiles{
		CA:         u.GetParam(TLSCAKey, ""),
		Cert:       u.GetParam(TLSCertKey, ""),
		Key:        u.GetParam(TLSKeyKey, ""),
		ServerName: u.GetParam(TLSServerNameKey, ""),
	}
	return f, u.GetParamBool(TLSKey, false) || f.CA != "" || f.Cert != ""
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
