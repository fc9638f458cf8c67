// Package configurator is Java Dubbo 3.3's dynamic configuration ("override
// rules", configurators) as Dubbo Admin writes it, for dubbo-go consumers and
// providers.
//
// A configurator rule lives under the config-center keys
// <app>.configurators and <interface>:<version>:<group>.configurators
// (group dubbo), or comes as registry override:// URLs. Parse turns the text
// into override:// URLs exactly as Java's ConfigParser does (v2.7 and v3.0
// YAML with match, the JSON-array-of-URLs form), FromURLs turns registry URLs
// into configurators as Configurator.toConfigurators does (empty:// clears,
// sorted by host then priority), and Configurator.Configure is Java's
// AbstractConfigurator.configure: side, addresses, providerAddresses,
// applications, services, enabled, item type and v3.0 match.
//
// What a consumer does with the configured URLs (spec §5.6, §5.8) is in
// Lists: Java's interface-level RegistryDirectory applies the registry list,
// then <consumer-app>.configurators, then <svc>.configurators to a separate
// override URL per provider (application = the consumer's, side, group,
// version), which getParameter reads first; a provider whose effective
// disabled=true (or enabled=false) never becomes an invoker. The consumer
// URL itself is configured too (retries and when-parts read it).
//
// Everything here runs off the call path, when rules or providers change.
package configurator
