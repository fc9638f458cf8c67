package regconf

import (
	"fmt"
	"net/url"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/registry"
)

// Memory is the address of the in-process registry and config center.
const Memory = "memory://"

// Security is what an address may carry besides scheme://host:port:
// "zookeeper://user:password@host:port?zookeeper.tls=true&zookeeper.tls.ca=ca.pem"
// (digest credentials, URL parameters of the registry and config center).
type Security struct {
	Username, Password string
	Params             map[string]string
}

// parse splits addr into Split's parts and its Security.
func parse(addr string) (scheme, hostport string, sec Security, err error) {
	scheme, hostport, err = Split(addr)
	if err != nil {
		return "", "", sec, err
	}
	_, rest, _ := strings.Cut(strings.TrimSpace(addr), "://")
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		user, pass, _ := strings.Cut(rest[:at], ":")
		if sec.Username, err = url.PathUnescape(user); err == nil {
			sec.Password, err = url.PathUnescape(pass)
		}
		if err != nil {
			return "", "", sec, fmt.Errorf("registry address: credentials: %w", err)
		}
	}
	if _, query, ok := strings.Cut(rest, "?"); ok {
		q, err := url.ParseQuery(query)
		if err != nil {
			return "", "", sec, fmt.Errorf("registry address: parameters: %w", err)
		}
		sec.Params = map[string]string{}
		for k := range q {
			sec.Params[k] = q.Get(k)
		}
	}
	return scheme, hostport, sec, nil
}

// Split parses "scheme://host:port" into the dubbo-go extension name and
// address; "memory://" becomes ("memory", "127.0.0.1:0"). Credentials
// ("user:password@") and parameters ("?k=v") are left out (see Security).
func Split(addr string) (scheme, hostport string, err error) {
	scheme, hostport, ok := strings.Cut(strings.TrimSpace(addr), "://")
	if at := strings.LastIndex(hostport, "@"); at >= 0 {
		hostport = hostport[at+1:]
	}
	if i := strings.Index(hostport, "?"); i >= 0 {
		hostport = hostport[:i]
	}
	if !ok || scheme == "" {
		return "", "", fmt.Errorf("registry address %q: want scheme://host:port, e.g. memory:// or zookeeper://127.0.0.1:2181", addr)
	}
	switch scheme {
	case "memory":
		if hostport == "" {
			hostport = "127.0.0.1:0"
		}
	case "zookeeper", "nacos", "etcdv3", "polaris":
		if hostport == "" {
			return "", "", fmt.Errorf("registry address %q: missing host:port", addr)
		}
	default:
		return "", "", fmt.Errorf("registry address %q: unsupported scheme %q", addr, scheme)
	}
	return scheme, hostport, nil
}

// Registry returns interface-level registry options for addr (providers
// appear under /dubbo/<interface>/providers, as Java writes them).
func Registry(addr string) ([]registry.Option, error) {
	return RegistryOfType(addr, "interface")
}

// RegistryTypes are the registry-type values RegistryOfType takes.
var RegistryTypes = []string{"interface", "service", "all", "default"}

// RegistryOfType returns registry options for addr with dubbo-go's
// registry-type: "interface" (/dubbo/<interface>/providers), "service"
// (application-level: instances under /services/<app>, metadata in the
// registry), "all" (both), or "default" (the line left out: dubbo-go's
// default, application-level). Application-level registries also serve as
// the metadata report.
func RegistryOfType(addr, registryType string) ([]registry.Option, error) {
	scheme, hostport, sec, err := parse(addr)
	if err != nil {
		return nil, err
	}
	opts := []registry.Option{
		registry.WithRegistry(scheme),
		registry.WithAddress(scheme + "://" + hostport),
		registry.WithoutUseAsConfigCenter(),
	}
	opts = withSecurity(opts, sec, registry.WithUsername, registry.WithPassword, registry.WithParams)
	switch registryType {
	case "interface", "":
		return append(opts, registry.WithRegisterInterface(), registry.WithoutUseAsMetaReport()), nil
	case "service":
		return append(opts, registry.WithRegisterService()), nil
	case "all":
		return append(opts, registry.WithRegisterServiceAndInterface()), nil
	case "default":
		return opts, nil
	}
	return nil, fmt.Errorf("registry-type %q: want one of %v", registryType, RegistryTypes)
}

// ConfigCenter returns config-center options for addr; rules are read from
// group "dubbo" (ZooKeeper: /dubbo/config/dubbo/<key>, where Dubbo Admin
// writes them).
func ConfigCenter(addr string) ([]config_center.Option, error) {
	scheme, hostport, sec, err := parse(addr)
	if err != nil {
		return nil, err
	}
	opts := []config_center.Option{
		config_center.WithConfigCenter(scheme),
		config_center.WithAddress(scheme + "://" + hostport),
		config_center.WithNamespace("dubbo"),
	}
	return withSecurity(opts, sec, config_center.WithUsername, config_center.WithPassword, config_center.WithParams), nil
}

// withSecurity appends sec's credentials and parameters to opts, as
// options made by the registry's or the config center's constructors.
func withSecurity[O any](opts []O, sec Security, user, password func(string) O, params func(map[string]string) O) []O {
	if sec.Username != "" {
		opts = append(opts, user(sec.Username), password(sec.Password))
	}
	if len(sec.Params) > 0 {
		opts = append(opts, params(sec.Params))
	}
	return opts
}
