package provider

// Register installs the provider side: the registry protocol wrapper that
// applies provider-side configurators Java-exactly and re-registers the
// configured URL (provider.go), with the registration guard for ZooKeeper
// registries (zkregister.go, zkinstance.go). Package extension's init
// calls it once, in its documented order; it is not idempotent (each call
// wraps the registry protocol again).
func Register() {
	registerProviderProtocol()
}
