// Package scale is the end-to-end scale benchmark of make bench
// (BenchmarkScale): a fleet of BookFacade provider registrations in a real
// private ZooKeeper, a dubboroute consumer process and a plain dubbo-go
// consumer process (command scaleconsumer, built with and without the
// dubboroute tag), both driven over real dubbo RPC on loopback.
//
// # The fleet
//
// Four real provider processes (samples/bookfacade/cmd/provider) listen on
// every local address (no -host: dubbo-go binds the port on all
// interfaces) and register 127.0.0.1 (DUBBO_IP_TO_REGISTRY). The benchmark
// then writes n-4 further registrations into /dubbo/<interface>/providers,
// ephemeral nodes of its own ZooKeeper session: copies of a real provider's
// URL with the host replaced by a distinct 127.1.x.y address, so each is a
// separate provider to the consumers (its own invoker and connection) and
// is served by the real provider on that port, since Linux routes all of
// 127.0.0.0/8 to the loopback interface. Nothing leaves 127.0.0.0/8.
//
// The service rule (queryAll to port p0, queryByName to p1; the port= form
// both implementations apply) and the seeds' tag rule (gray to p1) are in
// force, so a quarter of the fleet is eligible for each call.
//
// # What is measured
//
// SCALE_LB=<names> (Java balancer names, comma-separated) adds, per size,
// sub-benchmarks impl=<dubboroute|dubbogo>/lb=<name>/n=<n> with the
// consumer dialled with that balancer (dubbo-go under its own name for it:
// consistenthashing, p2c; none for shortestresponse).
//
// At each fleet size (n = 100 and 1,000; SCALE_N overrides), for
// each consumer in turn (never both at once, so they do not compete for
// the CPUs): time from process start to the first queryAll served by p0,
// calls/s at a fixed concurrency, CPU time per call (utime+stime of the
// consumer process from /proc/<pid>/stat over the measured load, divided by
// its calls), p50/p99 latency, RSS after the load, and the time from a
// service-rule write to the consumer's calls being served as it says.
//
// At n = 1,000: a provider storm under load (20 % of the registrations
// deleted and re-created within 5 s while the consumer calls at a fixed
// rate): failed calls, snapshots rebuilt and the rebuild time p99
// (dubboroute), and whether any call was served by a provider that neither
// the snapshot in force when it began nor the one when it ended routed it
// to. Then a consumer with 100 references of the interface: the time from
// a rule write until every reference routes with it.
//
// The results are logged as a markdown table (and written to $SCALE_OUT
// when set); `make bench` runs it after the micro-benchmarks. It is a
// benchmark only: `go test` without -bench runs the short smoke test.
package scale
