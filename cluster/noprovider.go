package cluster

import (
	"context"
	"fmt"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"

	"github.com/dubboroute/dubboroute/router"
)

// NoProviderError says that routing left no provider for a call, and why.
type NoProviderError struct {
	// Service is the chain's name (usually the interface).
	Service string
	// Method is the method as routed.
	Method string
	// Providers is the number of providers before routing.
	Providers int
	// Generation is the snapshot the call was routed against.
	Generation uint64
	// Trace is the routing decision, router by router.
	Trace *router.Trace
}

// Error implements error.
func (e *NoProviderError) Error() string {
	return fmt.Sprintf("dubboroute: no provider available for %s.%s after routing %d providers (snapshot %d): %s",
		e.Service, e.Method, e.Providers, e.Generation, e.Trace.String())
}

// noProviderInvoker stands in for the empty routed list so that the
// cluster invoker calls it and the application gets the error with the trace.
type noProviderInvoker struct {
	url *common.URL
	err *NoProviderError
}

func newNoProviderInvoker(name string, s *Snapshot, method string, trace *router.Trace) *noProviderInvoker {
	var u *common.URL
	if len(s.Invokers) > 0 {
		u = s.Invokers[0].GetURL()
	}
	if u == nil {
		u = common.NewURLWithOptions(common.WithProtocol("dubboroute-no-provider"), common.WithPath(name))
	}
	return &noProviderInvoker{url: u, err: &NoProviderError{
		Service: name, Method: method, Providers: len(s.Invokers), Generation: s.Generation, Trace: trace,
	}}
}

// GetURL implements common.Node.
func (n *noProviderInvoker) GetURL() *common.URL { return n.url }

// IsAvailable implements common.Node: true, so cluster invokers select it.
func (n *noProviderInvoker) IsAvailable() bool { return true }

// Destroy implements common.Node.
func (n *noProviderInvoker) Destroy() {}

// Invoke fails with the NoProviderError.
func (n *noProviderInvoker) Invoke(context.Context, base.Invocation) result.Result {
	return &result.RPCResult{Err: n.err}
}

// AsNoProvider reports whether invokers is List's "no provider" answer and
// returns its error.
func AsNoProvider(invokers []base.Invoker) (*NoProviderError, bool) {
	if len(invokers) != 1 {
		return nil, false
	}
	n, ok := invokers[0].(*noProviderInvoker)
	if !ok {
		return nil, false
	}
	return n.err, true
}
