// Package consumer calls the BookFacade through dubbo-go (dubbo protocol,
// hessian2) and serves the seeds' HTTP endpoints:
//
//	GET /testUser?userId=7    queryByName as user 7 (attachment userId=7), like seed 002's controller
//	GET /books                queryAll
//	GET /books?name=Go        queryByName("Go")
//	GET /explain?method=queryAll   how the call would be routed now (trace, gray decision), without calling
//	GET /healthz              "ok"
//	GET /load?method=queryAll&calls=1000&rate=500   calls made in the consumer, with a summary (load.go)
//	GET /debug/goroutines     the goroutine count
//
// Every response names the provider port that served the call. A request may
// carry a tag with ?tag=gray (attachment dubbo.tag), &force=true
// (dubbo.force.tag) and &userId=N (userId). The JSON shapes are in package
// httpapi.
package consumer
