package discovery

import "sync"

// registerOnce makes Register idempotent: dubbo-go's extension registry is
// process-wide (a package-level map per extension point), and Register is
// called from this package's init and may be called again.
var registerOnce sync.Once

// Register installs this package's dubbo-go extensions, once: the service
// instance customizer that gives Go providers Java's metadata revision
// (appmeta.go), the ZooKeeper metadata report that also reads and writes
// Java's nodes (metadata.go), and the registry protocol wrapper that runs
// application-level references as Java's APPLICATION_FIRST (migration.go).
// The registry directory wrappers (JavaView, Observed, Protected,
// Followed) are composed by extension/consumer, which registers the
// directories. Package extension's init calls Register, in its
// documented order.
func Register() {
	registerOnce.Do(func() {
		registerRevisionCustomizer()
		registerMetadataReport()
		registerMigration()
	})
}
