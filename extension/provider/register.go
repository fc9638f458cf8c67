package provider

import (
	"sync"

	// extension/discovery wraps dubbo-go's registry protocol first
	// (application-level migration); the provider wrapper goes around it,
	// as it did when both lived in one package.

	_ "github.com/dubboroute/dubboroute/extension/discovery"
)

var registerOnce sync.Once

// Register installs the provider side, once: the registry protocol wrapper
// that applies provider-side configurators Java-exactly and re-registers
// the configured URL (provider.go), with the registration guard for
// ZooKeeper registries (zkregister.go). The package's init calls Register.
func Register() {
	registerOnce.Do(registerProviderProtocol)
}

func init() { Register() }
