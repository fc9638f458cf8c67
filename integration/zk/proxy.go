package zk

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy is a loopback TCP forwarder to a server that a test can cut: Cut
// drops every connection and refuses new ones until Restore. A client that
// connects through it loses the server while the server keeps running,
// which is how a test lets a client's session expire on the server.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cut    bool
	closed bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
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
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Active is the number of client connections the proxy forwards now.
func (p *Proxy) Active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for c := range p.conns {
		if c.LocalAddr().String() == p.ln.Addr().String() {
			n++ // accepted from a client (the upstream side dials out)
		}
	}
	return n
}

// Addr is the address clients should dial.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every forwarded connection and makes the proxy close new ones
// as soon as they are accepted.
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

// Close stops the proxy and closes every connection.
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
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
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
		go p.forward(c)
	}
}

func (p *Proxy) forward(client net.Conn) {
	defer p.wg.Done()
	server, err := net.Dial("tcp", p.target)
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
