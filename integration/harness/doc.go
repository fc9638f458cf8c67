// Package harness runs the BookFacade sample's dubbo-go providers and
// consumers as separate processes for integration tests, so that the test
// process itself never creates a dubbo-go instance (dubbo-go v3.3.2 replaces
// its package-level loggers unsynchronised on every dubbo.NewInstance, which
// trips -race in any process that creates more than one).
//
// # Building
//
// SampleBinaries builds samples/bookfacade/cmd/provider and cmd/consumer once
// per test binary, with -race (so dubboroute's code inside them is race
// checked too; set DUBBOROUTE_HARNESS_RACE=0 to build without), into a
// temporary directory. Call Main from TestMain so that directory is removed
// when the test binary ends:
//
//	func TestMain(m *testing.M) { harness.Main(m) }
//
// # Processes
//
// Start runs any binary as a child process tied to the test: it gets its own
// process group (Setpgid; stopping signals the whole group), is killed by the
// kernel if the test binary dies (Pdeathsig on Linux), writes stdout and
// stderr into one log file, and is stopped when the test ends (t.Cleanup:
// SIGTERM, then SIGKILL after a grace period). When the test failed, the
// end of every process log is printed. Proc.WaitLine waits (bounded) for a
// line on the log; Stop, Kill and Signal end it early; Log and LogContains
// read what it wrote.
//
// Race reports: the children are -race binaries. At cleanup the harness
// reads every "WARNING: DATA RACE" report in a process log. A report whose
// accessing stacks (the "Read at"/"Write at" and "Previous ..." sections)
// have a dubboroute frame on top fails the test; a report entirely inside
// third-party code (dubbo-go has at least one: graceful shutdown reads the
// register URL that Export wrote, registry/protocol/protocol.go:562 vs 651)
// is logged and tolerated.
//
// # The BookFacade
//
// StartProvider runs cmd/provider (a free 127.0.0.1 port unless one is
// given; listening on and registering 127.0.0.1) and waits for its READY
// line. On Stop (SIGTERM) a provider shuts down gracefully: it unregisters
// from every registry, keeps serving for its -shutdown-wait
// (ProviderOptions.ShutdownWait, DefaultShutdownWait 50 ms unless a test
// sets it, so that stopping stays quick), finishes its calls and exits. StartConsumer runs cmd/consumer with its HTTP endpoint on a free
// 127.0.0.1 port and waits for READY; the returned Consumer drives it over
// HTTP: Do (one call, returns the serving port), Ports (n calls), Explain
// (the routing trace, without calling) and WaitExplain (poll until a
// condition on the trace holds, with a deadline). Consumers use
// loadbalance: gray and retries 0 by default, so a call is attempted exactly
// once and the serving port is the routed one.
//
// # Rules in ZooKeeper
//
// Rules wraps a plain github.com/go-zookeeper/zk connection and writes rules
// where Dubbo Admin writes them, /dubbo/config/dubbo/<key> (persistent
// nodes, open ACL, parents created as needed, the raw YAML as data):
// Put, Delete, Get. Providers lists the raw provider URLs registered under
// /dubbo/<interface>/providers, decoded.
//
// # Waiting
//
// Nothing here sleeps for a fixed time to let something happen: every wait
// polls with a deadline (Eventually, WaitLine, WaitExplain) and reports what
// it last saw when the deadline passes.
package harness
