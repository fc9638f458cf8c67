package discovery

// Register installs this package's dubbo-go extensions: the service
// instance customizer that gives Go providers Java's metadata revision
// (appmeta.go), the ZooKeeper metadata report that also reads and writes
// Java's nodes (metadata.go), and the registry protocol wrapper that runs
// application-level references as Java's APPLICATION_FIRST (migration.go).
// The registry directory wrappers (JavaView, Observed, Protected,
// Followed) are composed by extension/consumer, which registers the
// directories. Package extension's init calls it once, in its documented
// order; it is not idempotent (each call wraps dubbo-go's factories again).
func Register() {
	registerRevisionCustomizer()
	registerMetadataReport()
	registerMigration()
}
