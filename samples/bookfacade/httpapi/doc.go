// Package httpapi is the JSON contract of the sample consumer's HTTP
// endpoints (samples/bookfacade/consumer), shared by the consumer and by the
// programs that drive it over HTTP (the integration harness). It imports
// nothing from dubbo-go, so a test process can decode the consumer's answers
// without linking dubbo-go.
//
// Endpoints (query parameters in brackets are optional):
//
//	GET /testUser?userId=N[&tag=T&force=true]   queryByName as user N (attachment userId) -> Response
//	GET /books[?tag=T&force=true&userId=N]       queryAll -> Response
//	GET /books?name=X[&tag=...]                  queryByName(X) -> Response
//	GET /explain?method=M[&tag=T&force=true&userId=N]  route without calling -> Explain
//	GET /healthz                                 200 "ok" once the consumer is built
//	GET /load?method=M&calls=N&rate=R...         calls made inside the consumer -> Load
//	GET /debug/goroutines[?stacks=1]             goroutine count -> Goroutines (stacks: text)
//
// tag sets the attachment dubbo.tag, force sets dubbo.force.tag, userId
// sets userId.
package httpapi
