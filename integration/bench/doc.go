// Package bench holds dubboroute's side-by-side benchmarks against dubbo-go
// v3.3.2's built-in routers and load balancer: the same invokers, the same
// rules and the same invocations, both implementations in the same run
// (`make bench`, which prints the comparison table with cmd/benchtable).
//
// The package is test-only. Its benchmarks are
//
//	BenchmarkChainRoute/impl=dubboroute|dubbogo/n=N      the whole router chain
//	BenchmarkConditionRoute/impl=dubboroute|dubbogo/n=N  the service condition router alone
//	BenchmarkTagRoute/impl=dubboroute|dubbogo/n=N        the tag router alone
//	BenchmarkPick/impl=gray|dubbogo-random/n=N           the load balancer
//	BenchmarkRebuild/change=join|rule/impl=.../n=N       off-hot-path cost of a change
//
// and, in the subpackage scriptbench (it imports dubbo-go's script router,
// whose factory must stay out of this package's dubbo-go chain),
// BenchmarkScriptRoute/impl=dubbogo|dubboroute|dubboroute-java/n=N, one call
// through a script rule for n ≤ 1000
//
// for N = 10, 100, 1000, 10000; BenchmarkRPC (real calls over loopback) lives
// in the subpackages rpc and rpcbase, one process per implementation.
//
// Fairness, in detail:
//
//   - This package does not import dubboroute's extension package, whose init
//     replaces dubbo-go's router factories process-wide. The dubbo-go side is
//     dubbo-go's own chain.NewRouterChain over its own tag and condition router
//     factories; TestDubbogoSideIsDubbogo checks the factory types and that
//     the dubbo-go side shows dubbo-go's known behaviour (an address= rule
//     matches nothing there).
//   - dubbo-go receives its rules through its real config path: an in-memory
//     DynamicConfiguration (directory/memory) installed as dubbo-go's config
//     center, read by the routers' Notify -> GetRule -> Process on
//     SetInvokers, and rule changes delivered to their listeners.
//   - The service rule is the seeds' "method=queryAll => address=*:20880" for
//     dubboroute; dubbo-go cannot match address= (its URL map has no address
//     key), so its side gets "port=20880", which selects the same providers,
//     with configVersion v3.0 and enabled/force both true, so that dubbo-go
//     3.3.2's swapped enabled/force reading does not disable it.
//   - dubbo-go's RouterChain.Route leaves a RouterCacheDisable attribute on the
//     invocation, which would turn off its tag router's bitmap cache on the
//     next call with the same invocation; each benchmark op removes it, as a
//     fresh invocation would, so dubbo-go gets its fastest path.
//   - dubbo-go's tag router is measured standalone with the chain's bitmap
//     cache attached (its fast path when it is the first router of a chain).
//   - TestSameProviders asserts that both sides return the same providers for
//     every benchmark invocation at every n.
package bench
