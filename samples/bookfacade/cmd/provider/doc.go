// Command provider runs one BookFacade provider (dubbo protocol, hessian2,
// application demo-provider) until interrupted.
//
//	go run ./samples/bookfacade/cmd/provider -port 20880 -registry zookeeper://127.0.0.1:2181
//	go run ./samples/bookfacade/cmd/provider -port 20882 -registry zookeeper://127.0.0.1:2181 -param status=gray
//	go run ./samples/bookfacade/cmd/provider -port 20883 -registry zookeeper://127.0.0.1:2181 -tag gray
//
// The in-process memory registry is not linked here (only the demo, cmd/demo,
// and tests link directory/memory). -host 127.0.0.1 makes the provider listen on and register that
// address (default: dubbo-go's choice, the first non-loopback IPv4).
//
// Once exported (and registered) it prints one line to stdout,
//
//	READY <port> (<app>, registry <registry>, tag "<tag>", params map[...])
//
// and serves until SIGINT or SIGTERM, on which it unregisters and exits 0.
package main
