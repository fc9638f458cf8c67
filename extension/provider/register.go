package provider

import "sync"

// registerOnce makes Register idempotent: dubbo-go's extension registry is
// process-wide (a package-level map per extension point), and Register is
// called from this package's init and may be called again.
var registerOnce sync.Once

// Register installs the provider side, once: the registry protocol wrapper
// that applies provider-side configurators Java-exactly and re-registers
// the configured URL (provider.go), with the registration guard for
// ZooKeeper registries (zkregister.go). Package extension's init calls Register, in its
// documented order.
func Register() {
	registerOnce.Do(registerProviderProtocol)
}
