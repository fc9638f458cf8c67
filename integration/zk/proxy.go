package zk

import (
	"fmt"
	"net"
	"testing"

	"github.com/dubboroute/dubboroute/integration/internal/tcpproxy"
)

// Proxy is a loopback TCP forwarder to a server that a test can cut: Cut
// drops every connection and refuses new ones until Restore. A client that
// connects through it loses the server while the server keeps running,
// which is how a test lets a client's session expire on the server.
type Proxy struct {
	p *tcpproxy.Proxy
}

// StartProxy starts a proxy to target for t and closes it when t ends.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p, err := NewProxy(target)
	if err != nil {
		t.Fatalf("start proxy to %s: %v", target, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// NewProxy listens on a free loopback port and forwards to target.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy to %s: listen: %w", target, err)
	}
	return &Proxy{p: tcpproxy.New(tcpproxy.Route{Listener: ln, Target: target})}, nil
}

// Active is the number of client connections the proxy forwards now.
func (p *Proxy) Active() int { return p.p.Active() }

// Addr is the address clients should dial.
func (p *Proxy) Addr() string { return p.p.Addr(0) }

// Cut closes every forwarded connection and makes the proxy close new ones
// as soon as they are accepted.
func (p *Proxy) Cut() { p.p.Cut() }

// Restore lets new connections through again.
func (p *Proxy) Restore() { p.p.Restore() }

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() error { return p.p.Close() }
