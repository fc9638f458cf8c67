// Package consumer installs dubboroute's chain into dubbo-go's consumer
// side: one Binding per reference (per directory) that owns the
// reference's cluster.Chain, receives its providers and subscribes its
// rules.
//
//   - Router factories (install.go). "tag" is replaced by the binding
//     factory: the router it creates for a reference owns that reference's
//     chain, receives the provider list (Notify) and subscribes the rules.
//     "service.condition", "provider.condition" and "script" are replaced by
//     factories that return (nil, nil), which dubbo-go's chain builder
//     skips, so dubbo-go's own routers are never created.
//   - Cluster strategies (install.go). Every strategy dubbo-go ships is
//     wrapped: Join finds the binding inside the directory's dubbo-go
//     RouterChain and replaces that RouterChain with the binding's own
//     (Directory.SetRouterChain); from then on directories call dubboroute
//     directly and dubbo-go's RouterChain is off the call path. Cluster
//     invokers carry lanes (extension/lane).
//   - Registry directories (install.go), built through extension/discovery's
//     wrappers (Followed, Protected, Observed, JavaView), get the chain as
//     soon as dubbo-go built them.
//   - The "gray" load balancer; the consumer's configured balancer wins
//     over a provider's (dubbo-go issue #2864).
//   - Rules per chain slot (binding.go, static.go, mesh.go): the service,
//     consumer-app, provider-app, tag, affinity and mesh keys from the rule
//     store (extension/internal/rulestore), else static dubbo-go YAML rules;
//     configurators (configurators.go) from the config center and the
//     registry's override:// URLs.
//   - Inspection (inspect.go): what the console shows of each binding.
//
// Its one registration point is Register (register.go), called by package
// extension's init. Package extension re-exports its API.
package consumer
