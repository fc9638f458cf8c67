package consumer

// Register installs the consumer chain into dubbo-go: the router
// factories, the cluster strategy wrappers, the registry directories (with
// extension/discovery's wrappers), the "gray" load balancer (install.go),
// and the configurator factory wrapper that leaves config-center
// configurators to dubboroute's chain (configurators.go). Package
// extension's init calls it once, in its documented order; it is not
// idempotent (each call wraps dubbo-go's factories again).
func Register() {
	registerConfigurators()
	registerInstall()
}
