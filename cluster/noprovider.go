package cluster

import (
	"context"
	"fmt"
	"strings"

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
	// Dropped are providers the registry delivered that never reached the
	// chain, with why (see Options.Dropped).
	Dropped []Dropped
	// Wanted is what the reference asked the registry for (group, version,
	// protocol), named when no provider reached the chain at all: dubbo-go's
	// registries drop providers of other groups and versions before any
	// listener sees them.
	Wanted string
}

// Dropped is a provider that was dropped before routing.
type Dropped struct {
	// Address is the provider's host:port.
	Address string
	// Reason says why, e.g. `protocol "dubbo", the reference wants "tri"`.
	Reason string
}

// maxDroppedShown bounds how many dropped providers an error lists.
const maxDroppedShown = 5

// Error implements error.
func (e *NoProviderError) Error() string {
	msg := fmt.Sprintf("dubboroute: no provider available for %s.%s after routing %d providers (snapshot %d): %s",
		e.Service, e.Method, e.Providers, e.Generation, e.Trace.String())
	if len(e.Dropped) == 0 {
		if e.Providers == 0 && e.Wanted != "" {
			msg += "; the registry delivered no provider of " + e.Wanted
		}
		return msg
	}
	var b strings.Builder
	b.WriteString(msg)
	fmt.Fprintf(&b, "; %d provider(s) dropped before routing:", len(e.Dropped))
	for i, d := range e.Dropped {
		if i == maxDroppedShown {
			fmt.Fprintf(&b, " and %d more", len(e.Dropped)-i)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s (%s)", d.Address, d.Reason)
	}
	return b.String()
}

// noProviderInvoker stands in for the empty routed list so that the
// cluster invoker calls it and the application gets the error with the trace.
type noProviderInvoker struct {
	url *common.URL
	err *NoProviderError
}

func newNoProviderInvoker(s *Snapshot, err *NoProviderError) *noProviderInvoker {
	var u *common.URL
	if len(s.Invokers) > 0 {
		u = s.Invokers[0].GetURL()
	}
	if u == nil {
		u = common.NewURLWithOptions(common.WithProtocol("dubboroute-no-provider"), common.WithPath(err.Service))
	}
	return &noProviderInvoker{url: u, err: err}
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

// wanted describes the providers a consumer subscribes to: interface,
// group, version and protocol as its URL says.
func wanted(c *router.URL) string {
	if c == nil {
		return ""
	}
	proto := c.Param("protocol")
	if proto == "" {
		proto = "any"
	}
	return fmt.Sprintf("%s with group %q, version %q, protocol %s", c.Interface(), c.Param("group"), c.Param("version"), proto)
}
