package consumer

import "sync"

// registerOnce makes Register idempotent: dubbo-go's extension registry is
// process-wide (a package-level map per extension point), and Register is
// called from this package's init and may be called again.
var registerOnce sync.Once

// Register installs the consumer chain into dubbo-go, once: the router
// factories, the cluster strategy wrappers, the registry directories (with
// extension/discovery's wrappers), the "gray" load balancer (install.go),
// and the configurator factory wrapper that leaves config-center
// configurators to dubboroute's chain (configurators.go). The package's
// init calls Register.
func Register() {
	registerOnce.Do(func() {
		registerConfigurators()
		registerInstall()
	})
}
