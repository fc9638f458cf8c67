// Package nacos runs a private rnacos server for tests.
//
// rnacos (crates.io "rnacos", 0.8.8) is a Nacos-compatible server written in
// Rust: it serves Nacos's 1.x HTTP OpenAPI for config and naming and the
// 2.x gRPC protocol that nacos-sdk-go and Java's nacos-client 2.x speak. No
// Apache Nacos server can be installed here (none is on Maven Central or in
// Debian), so the integration tests use rnacos; docs/nacos.md lists where
// it differs from Apache Nacos.
//
// Start launches the binary (scripts/lib.sh's ensure_rnacos installs it
// with `cargo install rnacos --version 0.8.8 --locked`; found as $RNACOS_BIN,
// ~/.cargo/bin/rnacos or rnacos on PATH) on free loopback ports with a
// temporary data directory as its working directory, the console off and
// the SDK host 127.0.0.1, waits until it answers /health, and stops it when
// the test ends:
//
//	srv := nacos.Start(t)
//	c, err := dnacos.Dial([]string{srv.Addr()})
//
// The gRPC port is the HTTP port + 1000, which is where every Nacos 2.x
// client dials. Stop, Kill and Restart (same ports, same data directory)
// are for outage tests. The server is tied to the test process with a
// parent-death signal. No test may skip because rnacos is missing: Start
// fails the test saying to run `make test`.
package nacos
