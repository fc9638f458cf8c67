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
//
// tag sets the attachment dubbo.tag, force sets dubbo.force.tag, userId
// sets userId.
package httpapi

import (
	"encoding/json"

	"github.com/dubboroute/dubboroute/router"
)

// Response is the JSON body of /testUser and /books.
type Response struct {
	// Call names the RPC, e.g. "queryAll()" or "testUser(userId=3)".
	Call string `json:"call"`
	// Port is the dubbo port of the provider that served the call (from
	// the Book's "served-by-<port>" author); 0 on error.
	Port int `json:"port,omitempty"`
	// Books are the returned books.
	Books []Book `json:"books,omitempty"`
	// Error is the RPC error (HTTP status 503), e.g. "No provider available".
	Error string `json:"error,omitempty"`
}

// Book mirrors api.Book in JSON (field names as the consumer encodes them).
type Book struct {
	Name   string `json:"Name"`
	Author string `json:"Author"`
}

// Explain is the JSON body of /explain: how the consumer's dubboroute chain
// routes a call right now, without invoking anything.
type Explain struct {
	// Consumer is the consumer application.
	Consumer string `json:"consumer"`
	// ProviderApp is the provider application the rules are keyed by.
	ProviderApp string `json:"provider_app,omitempty"`
	// Generation counts the routing snapshots built so far (every provider
	// or rule change builds one).
	Generation uint64 `json:"generation"`
	// Providers are all provider addresses (host:port) the consumer knows.
	Providers []string `json:"providers"`
	// Rules maps the rule keys in force to their versions.
	Rules map[string]string `json:"rules,omitempty"`
	// Method and Attachments describe the explained call.
	Method      string            `json:"method"`
	Attachments map[string]string `json:"attachments,omitempty"`
	// Routed are the addresses left after routing, in registry order.
	Routed []string `json:"routed"`
	// Trace is what every router did (see router.Trace).
	Trace *router.Trace `json:"trace"`
	// TraceText is Trace in one line, as in logs and "no provider" errors.
	TraceText string `json:"trace_text"`
	// Gray is the gray load balancer's decision over Routed (only with
	// loadbalance: gray and a non-empty Routed), as JSON.
	Gray json.RawMessage `json:"gray,omitempty"`
	// Error is set when nothing could be explained (no binding yet).
	Error string `json:"error,omitempty"`
}
