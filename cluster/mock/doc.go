// Package mock is dubboroute's service downgrade with the semantics of Java
// Dubbo 3.3.6's MockClusterInvoker and MockInvoker: which calls are mocked
// (force: always, without calling a provider; fail: only calls that failed
// with a non-business exception), and what a mock returns
// (return null|empty|true|false|<quoted>|<number>|<JSON>, throw [<class>],
// or a Go implementation registered for the interface as Java's
// <Interface>Mock class).
//
// The value is read from the configured consumer URL (reference,
// <method>.mock, and the configurators Dubbo Admin writes): the dubbo-go
// glue in extension/strategies resolves it and calls Decide, Parse and
// Action.Fill; this package has no dubbo-go dependency.
package mock
