// Package bookfacade is the seeds' BookFacade sample in Go on dubbo-go with
// dubboroute: api (the Java-compatible contract), provider, consumer,
// cmd/provider, cmd/consumer, cmd/demo (the embedded demo, `make demo`) and
// rules/ (rule files exactly as Dubbo Admin stores them).
package bookfacade
