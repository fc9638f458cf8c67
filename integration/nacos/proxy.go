package nacos

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
)

// Proxy is a cuttable loopback hop in front of a Server's two ports: it
// listens on a port Q (forwarded to the HTTP port) and Q+GRPCOffset
// (forwarded to the gRPC port), so a Nacos 2.x client given Addr dials its
// gRPC port through the proxy too. Cut drops every connection and refuses
// new ones until Restore: the client loses the server while it keeps
// running (and can be written to directly).
type Proxy struct {
	lns     [2]net.Listener
	targets [2]string

	mu     sync.Mutex
	cut    bool
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
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
	p := &Proxy{targets: [2]string{httpAddr, grpcAddr}, conns: map[net.Conn]struct{}{}}
	for i := 0; i < 50 && p.lns[0] == nil; i++ {
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
		p.lns = [2]net.Listener{l, l2}
	}
	if p.lns[0] == nil {
		return nil, errors.New("proxy: no free port pair Q, Q+1000")
	}
	for i := range p.lns {
		p.wg.Add(1)
		go p.accept(p.lns[i], p.targets[i])
	}
	return p, nil
}

// Addr is the HTTP address clients should be given (gRPC: its port + 1000).
func (p *Proxy) Addr() string { return p.lns[0].Addr().String() }

// Cut closes every forwarded connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Restore lets new connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = false
}

// Close stops the proxy.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	var err error
	for _, l := range p.lns {
		if e := l.Close(); e != nil && err == nil {
			err = e
		}
	}
	p.wg.Wait()
	return err
}

func (p *Proxy) accept(ln net.Listener, target string) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		p.mu.Lock()
		refuse := p.cut || p.closed
		if !refuse {
			p.conns[c] = struct{}{}
			p.wg.Add(1)
		}
		p.mu.Unlock()
		if refuse {
			c.Close()
			continue
		}
		go p.forward(c, target)
	}
}

func (p *Proxy) forward(client net.Conn, target string) {
	defer p.wg.Done()
	server, err := net.Dial("tcp", target)
	if err != nil {
		p.drop(client)
		return
	}
	p.mu.Lock()
	if p.cut || p.closed {
		p.mu.Unlock()
		server.Close()
		p.drop(client)
		return
	}
	p.conns[server] = struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(server, client)
	go pipe(client, server)
	<-done
	p.drop(client)
	p.drop(server)
	<-done
}

func (p *Proxy) drop(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}
