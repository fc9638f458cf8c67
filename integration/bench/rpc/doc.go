// Package rpc is BenchmarkRPC/impl=dubboroute: real dubbo-go calls over
// loopback to two BookFacade providers, routed by dubboroute (blank import of
// the extension) with the seeds' rules exactly as Dubbo Admin stores them.
// Its counterpart with dubbo-go's built-in routers is package rpcbase, a
// separate test binary in the same `go test` run, because the extension
// replaces dubbo-go's router factories for the whole process.
//
// The tests and the benchmark are built without -race only, for the same
// reason as rpcbase's: three dubbo-go instances in one process trip dubbo-go
// 3.3.2's unsynchronised logger replacement under the race detector.
package rpc
