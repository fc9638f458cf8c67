// Package provider is dubboroute's provider side in a Go provider that
// imports extension: provider items of <provider-app>.configurators and
// <interface>:<version>:<group>.configurators are applied to the
// registered URL with Java's rules (package configurator) and the
// configured URL re-registered (provider.go), and on ZooKeeper registries
// the provider's ephemeral nodes are guarded against vanishing with
// dubboroute's own client (zkregister.go, zkinstance.go).
//
// Its one registration point is Register (register.go), called by package
// extension's init after extension/discovery's Register (its registry
// protocol wrapper goes around discovery's).
package provider
