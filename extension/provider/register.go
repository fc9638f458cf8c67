package provider

import (
	"sync"

	// extension/discovery wraps dubbo-go's registry protocol first
	// (application-level migration); the provider wrapper goes around it,
	// as it did when both lived in one package.

	_ "github.com/dubboroute/dubboroute/extension/discovery"
)

// registerOnce makes Register idempotent: dubbo-go's extension registry is
// process-wide (a package-level map per extension point), and Register is
// called from this package's init and may be called again.
var registerOnce sync.Once

// Register installs the provider side, once: the registry protocol wrapper
// that applies provider-side configurators Java-exactly and re-registers
// the configured URL (provider.go), with the registration guard for
// ZooKeeper registries (zkregister.go). The package's init calls Register.
func Register() {
	registerOnce.Do(registerProviderProtocol)
}

func init() { Register() }
