package regconf

import (
	"fmt"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/registry"
)

// Memory is the address of the in-process registry and config center.
const Memory = "memory://"

// Split parses "scheme://host:port" into the dubbo-go extension name and
// address; "memory://" becomes ("memory", "127.0.0.1:0").
func Split(addr string) (scheme, hostport string, err error) {
	scheme, hostport, ok := strings.Cut(strings.TrimSpace(addr), "://")
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
	scheme, hostport, err := Split(addr)
	if err != nil {
		return nil, err
	}
	opts := []registry.Option{
		registry.WithRegistry(scheme),
		registry.WithAddress(scheme + "://" + hostport),
		registry.WithoutUseAsConfigCenter(),
	}
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
	scheme, hostport, err := Split(addr)
	if err != nil {
		return nil, err
	}
	return []config_center.Option{
		config_center.WithConfigCenter(scheme),
		config_center.WithAddress(scheme + "://" + hostport),
		config_center.WithNamespace("dubbo"),
	}, nil
}
