// Package source is where extension's subpackages plug in how rules and
// providers are followed, per kind of config center or registry.
//
// A rule source (RegisterRuleSource) reads and watches config-center rule
// keys; the rule store (every <key>.condition-router, .tag-router,
// .configurators, ... a process subscribes) picks it by the protocol of the
// config-center URL dubbo-go's dynamic configuration was built from, and
// falls back to dubbo-go's own listener when none is registered or it cannot
// connect. Its events carry the content, a deleted flag and an opaque
// comparable revision, which the store applies once each.
//
// A provider source (RegisterProviderSource) serves the subscription of an
// interface-level registry directory, picked by the registry URL's
// protocol; without one, dubbo-go's registry subscribes.
//
// extension/zookeeper registers both for "zookeeper".
package source
