// Package rpcfix is the shared setup of the BenchmarkRPC packages (rpc for
// dubboroute, rpcbase for dubbo-go's built-in routers): two BookFacade
// providers over the dubbo protocol on loopback, found through the
// in-process memory registry, a consumer, the seeds' rules in the in-process
// config center, and the two benchmark calls.
//
// It does not import dubboroute's extension: whether a process routes with
// dubboroute or with dubbo-go's built-ins is decided by the importing test
// package alone.
package rpcfix
