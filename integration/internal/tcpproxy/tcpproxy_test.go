package tcpproxy

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo serves a line echo on a loopback port until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// roundTrip dials addr and echoes one line; it reports whether the line
// came back.
func roundTrip(t *testing.T, addr string) (net.Conn, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, false
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		c.Close()
		return nil, false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "ping\n" {
		c.Close()
		return nil, false
	}
	return c, true
}

func waitActive(t *testing.T, p *Proxy, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.Active() != want {
		if time.Now().After(deadline) {
			t.Fatalf("Active() = %d, want %d", p.Active(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCutRestoreClose(t *testing.T) {
	p := New(Route{listen(t), echo(t)}, Route{listen(t), echo(t)})
	defer p.Close()
	var conns []net.Conn
	for i := 0; i < 2; i++ {
		c, ok := roundTrip(t, p.Addr(i))
		if !ok {
			t.Fatalf("route %d does not forward", i)
		}
		conns = append(conns, c)
	}
	waitActive(t, p, 2)

	p.Cut()
	for i, c := range conns {
		if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
			t.Errorf("route %d: connection still open after Cut", i)
		}
		c.Close()
	}
	waitActive(t, p, 0)
	if c, ok := roundTrip(t, p.Addr(0)); ok {
		c.Close()
		t.Error("a new connection goes through while cut")
	}

	p.Restore()
	c, ok := roundTrip(t, p.Addr(1))
	if !ok {
		t.Fatal("no connection after Restore")
	}
	defer c.Close()
	waitActive(t, p, 1)

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if c, err := net.Dial("tcp", p.Addr(0)); err == nil {
		c.Close()
		t.Error("the listener still accepts after Close")
	}
}
