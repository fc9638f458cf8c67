// Package rpcbase is BenchmarkRPC/impl=dubbogo: real dubbo-go calls over
// loopback to two BookFacade providers, routed by dubbo-go 3.3.2's built-in
// tag and condition routers with the seeds' rules (the service rule in the
// port= form dubbo-go can match).
//
// It must not import dubboroute's extension, whose init replaces dubbo-go's
// router factories for the whole process; its counterpart with dubboroute is
// package rpc, built and run as a separate test binary in the same
// `go test` run.
//
// The tests and the benchmark are built without -race only: the process
// starts three dubbo-go instances (two providers and the consumer), and
// dubbo-go 3.3.2 replaces its package-level loggers unsynchronised on every
// dubbo.NewInstance, which the race detector reports inside dubbo-go (see
// scripts/test.sh).
package rpcbase
