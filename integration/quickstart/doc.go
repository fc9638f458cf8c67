// Package quickstart holds the test of the README's quickstart as a new user
// follows it: the README's Go program and dubbogo.yaml, taken from the
// README text itself, built as a module of their own that requires
// dubboroute (replaced by this checkout), run against the sample's real
// providers on a private ZooKeeper with the seed rule pushed where Dubbo
// Admin writes it. The package has no non-test code.
package quickstart
