// Package bookfacade is the seeds' BookFacade sample in Go on dubbo-go with
// dubboroute: api (the Java-compatible contract), provider, consumer,
// httpapi (the JSON of the consumer's HTTP endpoints, free of dubbo-go),
// cmd/provider, cmd/consumer, cmd/demo (the embedded demo, `make demo`),
// cmd/zkserver (a private ZooKeeper for real mode) and rules/ (rule files
// exactly as Dubbo Admin stores them). README.md gives the real-mode
// commands: separate processes on ZooKeeper, rules pushed where Dubbo Admin
// writes them.
package bookfacade
