package httpapi

import (
	"encoding/json"
	"time"

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
	// Ejected are the providers outlier ejection keeps from the load
	// balancer now (opt-in, docs/resilience.md), with why and until when;
	// a call whose routed providers are all ejected still uses them.
	Ejected []Ejected `json:"ejected,omitempty"`
	// Error is set when nothing could be explained (no binding yet).
	Error string `json:"error,omitempty"`
}

// Ejected is one provider outlier ejection keeps out.
type Ejected struct {
	Address string    `json:"address"`
	Reason  string    `json:"reason"`
	Since   time.Time `json:"since"`
	Until   time.Time `json:"until"`
}

// Load is the JSON body of /load: a run of calls made inside the consumer
// process (so a test can drive hundreds of calls per second without an HTTP
// round trip per call), with the serving port of every call and the routing
// snapshot it ran against.
//
//	GET /load?method=M[&name=X&userId=N&tag=T&force=true]
//	         [&calls=N][&duration=D][&rate=R][&concurrency=C][&results=1]
//
// method is queryAll (default), queryByName or testUser (queryByName as
// user N); the run stops after calls calls or duration (a Go duration),
// whichever comes first (neither: 100 calls); rate paces the calls open-loop
// at R per second (0 or absent: as fast as the workers go); concurrency is
// the number of workers (default 8); results=1 lists every call.
type Load struct {
	// Call is the RPC method.
	Call string `json:"call"`
	// Started is when the run began (Unix nanoseconds, the consumer's
	// clock); Seconds how long it took; Rate the achieved calls per second.
	Started int64   `json:"started"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"`
	// Calls were made, Failed of them returned an error.
	Calls  int `json:"calls"`
	Failed int `json:"failed"`
	// Ports counts the successful calls per serving port.
	Ports map[int]int `json:"ports"`
	// Errors counts the failures per error text (truncated).
	Errors map[string]int `json:"errors,omitempty"`
	// Routed maps every snapshot generation a call saw (before or after it)
	// to the ports that snapshot routes the call to (dubboroute's chain,
	// before the load balancer).
	Routed map[uint64][]int `json:"routed,omitempty"`
	// Results lists every call in the order they ended (results=1 only).
	Results []LoadCall `json:"results,omitempty"`
	// Error is set when the request was invalid (HTTP 400).
	Error string `json:"error,omitempty"`
}

// LoadCall is one call of a /load run.
type LoadCall struct {
	// Port served the call; 0 when it failed.
	Port   int  `json:"p"`
	Failed bool `json:"f,omitempty"`
	// Gen0 and Gen1 are the routing snapshot generations read just before
	// and just after the call: when equal, the call was routed on that
	// snapshot.
	Gen0 uint64 `json:"g0"`
	Gen1 uint64 `json:"g1"`
	// At is when the call began and Took how long it took, in microseconds
	// since Load.Started.
	At   int64 `json:"at"`
	Took int64 `json:"took"`
	// Error is the failure (truncated).
	Error string `json:"e,omitempty"`
}

// Goroutines is the JSON body of /debug/goroutines (with ?stacks=1 the
// endpoint answers the goroutine stacks as text instead).
type Goroutines struct {
	Count int `json:"goroutines"`
}
