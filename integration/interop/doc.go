// Package interop proves that dubboroute interoperates with real Java Dubbo
// and routes exactly as Java Dubbo 3.3 routes (issue 7).
//
// The tests need the Java interop build (integration/java, Apache Dubbo
// 3.3.6): `make test` runs integration/java/build.sh first; without the jar
// every test fails with a message saying so. None of them skips.
//
//   - TestOracleDifferential: a seeded generator (Generator) of random
//     routing cases from a grammar covering the condition and tag rule
//     languages; every case is evaluated by the Java oracle (Dubbo's own
//     router classes, streamed) and by `dubboroute route`, and the answers
//     must agree (RunOracle, RunRouteBinary, Normalize, Diff). v3.1 weighted
//     picks are compared as distributions with Java's exact probabilities.
//     Every differential compares through one comparator (compareAll) and
//     evaluates both sides at once (bothSides): the oracle's JVM, and a
//     build of cmd/dubboroute without -race (the same cli.Run that RunRoute
//     calls in process; the race detector made that side slower than
//     Java's), so the package's -race test binary is not the bottleneck.
//   - TestRegressionFixtures: every case that ever disagreed, kept in
//     testdata/regressions.jsonl with Java's answer, replayed against
//     dubboroute; testdata/known-divergences.jsonl holds disagreements that
//     are reported but not fixed, with both answers.
//   - issue 12: TestMeshOracleDifferential (NextMesh: mesh rules of several
//     provider applications with every matcher, weights, fallbacks, updates,
//     rejected values, script, condition and tag rules; Java's mesh draws
//     enumerated by MeshProbe), TestAffinityOracleDifferential (NextAffinity:
//     Java's service affinity router, registered for cases with "affinity"),
//     TestMeshJavaFixtures (Dubbo's own mesh fixtures), TestMeshOracleIsolation
//     (the oracle's batch isolation), TestYAMLLimitsOracle (SnakeYAML's limits
//     for every kind) and TestMeshMixedFleet (a mesh rule on ZooKeeper steers
//     a Go and a Java consumer of a mixed fleet alike).
//   - the process tests: a Go consumer (samples/bookfacade/cmd/consumer)
//     calling Java providers, a Java consumer calling Go providers, and a
//     mixed fleet in which both consumers must see the same eligible
//     providers, all on a private ZooKeeper (integration/zk), all traffic
//     on loopback. Each starts from newFleet (the jar, the sample binaries,
//     a ZooKeeper and its rules client).
package interop
