// Package serverproc runs the external servers of the integration tests
// (ZooKeeper's JVM, rnacos) as child processes: it starts a process from a
// locked OS thread so the parent-death signal holds, appends its output to
// a log file kept across runs, waits until it is ready, stops it with a
// bounded wait, and reads the end of its log. Errors are prefixed with the
// server's name ("zookeeper: …", "rnacos: …").
package serverproc
