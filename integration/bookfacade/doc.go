// Package bookfacade holds the end-to-end tests of the BookFacade sample on a
// private real ZooKeeper: real dubbo-go providers and consumers (the
// sample's cmd/provider and cmd/consumer, built with -race and run as
// separate processes by integration/harness) registering interface-level
// under /dubbo/<interface>/providers, rules written with a plain ZooKeeper
// client to /dubbo/config/dubbo/<key> in Dubbo Admin's format, and every
// seed scenario checked with real calls through the consumers' HTTP
// endpoints and with their explain traces. The package has no non-test
// code; see bookfacade_test.go for what each test asserts.
package bookfacade
