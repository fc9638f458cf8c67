// Package tcpproxy is a loopback TCP forwarder that a fault test can cut:
// each of its listeners forwards to one target, and Cut drops every
// connection and refuses new ones until Restore, so a client loses its
// server while the server keeps running. integration/zk and
// integration/nacos wrap it as their Proxy.
package tcpproxy

import (
	"errors"
	"io"
	"net"
	"sync"
)

// Route forwards the connections accepted on Listener to Target.
type Route struct {
	Listener net.Listener
	Target   string
}

// Proxy forwards its routes. Its methods are safe for concurrent use.
type Proxy struct {
	routes []Route

	mu     sync.Mutex
	cut    bool
	closed bool
	conns  map[net.Conn]bool // true: accepted from a client; false: dialled upstream
	wg     sync.WaitGroup
}

// New starts forwarding routes; the proxy owns their listeners and Close
// closes them.
func New(routes ...Route) *Proxy {
	p := &Proxy{routes: routes, conns: map[net.Conn]bool{}}
	for _, r := range routes {
		p.wg.Add(1)
		go p.accept(r.Listener, r.Target)
	}
	return p
}

// Addr is the address of route i's listener, which clients dial.
func (p *Proxy) Addr(i int) string { return p.routes[i].Listener.Addr().String() }

// Active is the number of client connections the proxy forwards now.
func (p *Proxy) Active() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, client := range p.conns {
		if client {
			n++
		}
	}
	return n
}

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

// Close stops the proxy, closes every connection and waits until its
// goroutines end. It returns the first listener's close error; closing
// again does nothing.
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
	for _, r := range p.routes {
		if e := r.Listener.Close(); e != nil && err == nil {
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
			p.conns[c] = true
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
	p.conns[server] = false
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
