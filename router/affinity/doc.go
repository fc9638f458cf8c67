// Package affinity is Java Dubbo 3.3.6's service-level affinity router
// (AffinityServiceStateRouter, chain position 130: "same zone first, unless
// too few"), rule key <interface>:<version>:<group>.affinity-router.
//
// Java 3.3.6 compiles the affinity routers in but does not register their
// factories, so no Java consumer runs them unless the application registers
// them; dubboroute likewise runs this router only for a consumer that asks
// for it (reference parameter dubboroute.affinity=true).
//
// A rule (configVersion v3.1, affinityAware.key K, affinityAware.ratio R in
// [0, 100], enabled) keeps the providers whose K equals the consumer's K
// (the consumer's value is a condition pattern: globs, ranges, $refs) when
// they are at least R% of the input; otherwise all of the input. Where Java
// would return no provider (ratio 0 and no provider with the consumer's
// value), dubboroute returns the input: see docs/divergences.md.
// The same Compiled router serves dubboroute's provider-application affinity
// router (<provider-app>.affinity-router, position 135): Java 3.3.6's
// variant subscribes .condition-router keys and acts as a second condition
// router, a defect docs/divergences.md lists.
package affinity
