package nacos

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/dubboroute/dubboroute/integration/internal/tcpproxy"
)

// Proxy is a cuttable loopback hop in front of a Server's two ports: it
// listens on a port Q (forwarded to the HTTP port) and Q+GRPCOffset
// (forwarded to the gRPC port), so a Nacos 2.x client given Addr dials its
// gRPC port through the proxy too. Cut drops every connection and refuses
// new ones until Restore: the client loses the server while it keeps
// running (and can be written to directly).
type Proxy struct {
	p *tcpproxy.Proxy
}

// StartProxy starts a proxy to s for t and closes it when t ends.
func StartProxy(t testing.TB, s *Server) *Proxy {
	t.Helper()
	p, err := NewProxy(s.Addr(), s.GRPCAddr())
	if err != nil {
		t.Fatalf("start proxy to rnacos %s: %v", s.Addr(), err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// NewProxy listens on free loopback ports Q and Q+GRPCOffset and forwards
// them to httpAddr and grpcAddr.
func NewProxy(httpAddr, grpcAddr string) (*Proxy, error) {
	for i := 0; i < 50; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("proxy: listen: %w", err)
		}
		q := l.Addr().(*net.TCPAddr).Port
		if q+GRPCOffset > 65535 {
			l.Close()
			continue
		}
		l2, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(q+GRPCOffset)))
		if err != nil {
			l.Close()
			continue
		}
		return &Proxy{p: tcpproxy.New(
			tcpproxy.Route{Listener: l, Target: httpAddr},
			tcpproxy.Route{Listener: l2, Target: grpcAddr},
		)}, nil
	}
	return nil, errors.New("proxy: no free port pair Q, Q+1000")
}

// Addr is the HTTP address clients should be given (gRPC: its port + 1000).
func (p *Proxy) Addr() string { return p.p.Addr(0) }

// Active is the number of client connections (HTTP and gRPC) the proxy
// forwards now.
func (p *Proxy) Active() int { return p.p.Active() }

// Cut closes every forwarded connection and refuses new ones.
func (p *Proxy) Cut() { p.p.Cut() }

// Restore lets new connections through again.
func (p *Proxy) Restore() { p.p.Restore() }

// Close stops the proxy.
func (p *Proxy) Close() error { return p.p.Close() }
