package zkconn

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/dubbogo/gost/log/logger"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
)

// relays are the TLS relays of dubbo-go's clients, one per server and TLS
// settings, kept for the process's lifetime. Package state because
// dubbo-go pools its ZooKeeper clients process-wide, by location, and
// creates them inside factories its extension registry calls with no
// context.
var relays = struct {
	sync.Mutex
	m map[string]*relay
}{m: map[string]*relay{}}

// relay accepts plain connections on a loopback port and forwards each
// over a new TLS connection to one ZooKeeper server.
type relay struct {
	ln     net.Listener
	target string
	cfg    *tls.Config
}

// relaysFor returns the loopback addresses relaying to each of servers
// with TLS cfg, starting the relays not running yet.
func relaysFor(servers []string, cfg *tls.Config) ([]string, error) {
	relays.Lock()
	defer relays.Unlock()
	out := make([]string, 0, len(servers))
	for _, s := range servers {
		id := fmt.Sprintf("%s|%p", s, cfg)
		r, ok := relays.m[id]
		if !ok {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return nil, fmt.Errorf("tls relay for %s: %w", s, err)
			}
			r = &relay{ln: ln, target: s, cfg: cfg}
			relays.m[id] = r
			go r.serve()
			logger.Infof("[dubboroute] zookeeper %s: dubbo-go's client connects with TLS through the relay %s", s, ln.Addr())
		}
		out = append(out, r.ln.Addr().String())
	}
	return out, nil
}

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			logger.Warnf("[dubboroute] zookeeper tls relay %s: %v; stopped", r.ln.Addr(), err)
			return
		}
		go r.forward(c)
	}
}

// forward relays one accepted connection; connections from another user's
// sockets are refused (they would use this process's TLS identity).
func (r *relay) forward(c net.Conn) {
	if ok, why := sameUser(c); !ok {
		logger.Warnf("[dubboroute] zookeeper tls relay %s: refused a connection from %s: %s", r.ln.Addr(), c.RemoteAddr(), why)
		c.Close()
		return
	}
	up, err := dzk.DialTLS(r.cfg, "tcp", r.target, 10*time.Second)
	if err != nil {
		logger.Warnf("[dubboroute] zookeeper tls relay: %s: %v", r.target, err)
		c.Close()
		return
	}
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	<-done
}
