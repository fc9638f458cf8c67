// Command scaleconsumer is the consumer process of the scale benchmark
// (package integration/bench/scale): BookFacade references over a
// ZooKeeper registry and config center, driven in-process so that the
// process's CPU time is spent on calls, not on a request per call.
//
// Built twice from the same source: with -tags dubboroute it blank-imports
// dubboroute's extension (dubboroute's router chain and load balancers
// replace dubbo-go's); without the tag it is a plain dubbo-go v3.3.2
// consumer with dubbo-go's built-in routers. Both use dubbo-go's load
// balancer random (-lb; the dubboroute build also has dubboroute's gray)
// and no retries, so a call is attempted once, on a routed provider.
//
// On start it dials -refs references of the interface, makes queryAll calls
// on the first until one is served by the provider port -want names (the
// port the service rule routes queryAll to), prints "FIRST <unix ns>" and
// then "READY http <addr>". Its HTTP endpoint (loopback only):
//
//   - /load?concurrency=C&duration=D[&rate=R][&check=1]: C workers call for
//     D (at R calls/s in all when given), alternating queryAll untagged and
//     queryByName tagged gray, and report calls, failures, latency
//     percentiles and serving ports as JSON. Calls served by a port other
//     than p0 (queryAll) or p1 (queryByName+gray) are counted as wrong. With
//     check=1 (dubboroute build only) each call also records the snapshot
//     generation before and after it and the ports that snapshot routes the
//     call to; a call served by a port routed by neither is counted as mixed.
//   - /rulewait?port=P&timeout=D: on every reference concurrently, calls
//     queryAll until one is served by port P; reports when the last
//     reference got there (unix ns).
//   - /stats: dubboroute's snapshot rebuild counter and rebuild-time
//     histogram for the interface, its bindings and the providers in the
//     newest one's snapshot (dubboroute build; empty otherwise).
//   - /debug/pprof/profile and /debug/pprof/heap: Go's profiles.
package main
