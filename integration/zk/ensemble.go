package zk

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Ensemble is a private ZooKeeper ensemble on loopback: every member a
// server process of its own (client, quorum and election ports all on
// 127.0.0.1), as users run ZooKeeper in production.
type Ensemble struct {
	// Servers are the members, Servers[i] has id i+1.
	Servers []*Server
}

// StartEnsemble starts an ensemble of n servers for t, waits until every
// member serves (a leader was elected and the followers synced), and
// closes it when t ends. When t fails, the end of every member's log is
// logged.
func StartEnsemble(t testing.TB, n int) *Ensemble {
	t.Helper()
	e, err := NewEnsemble(n, Options{})
	if err != nil {
		t.Fatalf("start private ZooKeeper ensemble: %v", err)
	}
	t.Logf("private ZooKeeper ensemble of %d serving on %s", n, e.Addrs())
	t.Cleanup(func() {
		if t.Failed() {
			for i, s := range e.Servers {
				t.Logf("end of ZooKeeper member %d log %s:\n%s", i+1, s.LogPath(), s.LogTail(25))
			}
		}
		if err := e.Close(); err != nil {
			t.Errorf("stop private ZooKeeper ensemble: %v", err)
		}
	})
	return e
}

// NewEnsemble starts an ensemble of n servers with opts (ports and
// directories are chosen per member) and waits until all serve. The caller
// must Close it.
func NewEnsemble(n int, opts Options) (*Ensemble, error) {
	if n < 1 {
		return nil, fmt.Errorf("zookeeper ensemble: %d members", n)
	}
	ports, err := freePorts(3 * n)
	if err != nil {
		return nil, err
	}
	var members []string
	for i := 0; i < n; i++ {
		members = append(members, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, ports[3*i+1], ports[3*i+2]))
	}
	e := &Ensemble{}
	for i := 0; i < n; i++ {
		o := opts
		o.port, o.myID, o.members = ports[3*i], i+1, members
		s, err := startServer(o, false)
		if err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("zookeeper ensemble member %d: %w", i+1, err)
		}
		e.Servers = append(e.Servers, s)
	}
	for i, s := range e.Servers {
		s.mu.Lock()
		err := s.waitServingLocked()
		s.mu.Unlock()
		if err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("zookeeper ensemble member %d: %w", i+1, err)
		}
	}
	return e, nil
}

// Addrs is the connection string of every member, "host:port,host:port,...".
func (e *Ensemble) Addrs() string {
	var a []string
	for _, s := range e.Servers {
		a = append(a, s.Addr())
	}
	return strings.Join(a, ",")
}

// Mode returns the member's mode as srvr reports it ("leader", "follower"),
// or "" when it does not serve (stopped, or no quorum).
func (s *Server) Mode() string {
	out, err := s.FourLetterWord("srvr")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(out, "\n") {
		if m, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(m)
		}
	}
	return ""
}

// Leader returns the index in Servers of the current leader, or -1.
func (e *Ensemble) Leader() int {
	for i, s := range e.Servers {
		if s.Mode() == "leader" {
			return i
		}
	}
	return -1
}

// WaitLeader waits until a leader serves, other than any index in not, and
// returns its index.
func (e *Ensemble) WaitLeader(timeout time.Duration, not ...int) (int, error) {
	deadline := time.Now().Add(timeout)
	for {
		if l := e.Leader(); l >= 0 && !contains(not, l) {
			return l, nil
		}
		if time.Now().After(deadline) {
			return -1, fmt.Errorf("zookeeper ensemble %s: no new leader within %v", e.Addrs(), timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Start starts a stopped member again on its ports and data directory and
// waits until it serves (which needs a quorum of running members).
func (e *Ensemble) Start(i int) error {
	s := e.Servers[i]
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.launchLocked(); err != nil {
		return err
	}
	return s.waitServingLocked()
}

// Launch starts a stopped member without waiting for it to serve (use when
// the quorum needs it to come back).
func (e *Ensemble) Launch(i int) error {
	s := e.Servers[i]
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.launchLocked()
}

// WaitServing waits until every running member serves.
func (e *Ensemble) WaitServing(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok := true
		for _, s := range e.Servers {
			if s.Running() && !serving(s.Addr()) {
				ok = false
			}
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("zookeeper ensemble %s: not every running member serves within %v", e.Addrs(), timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Close kills every member and removes their directories.
func (e *Ensemble) Close() error {
	var errs []error
	for _, s := range e.Servers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// freePorts returns n distinct free loopback ports (all held open until
// every one is found, so none repeats).
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("zookeeper: find %d free loopback ports: %w", n, err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// String names the member for logs.
func (s *Server) String() string {
	return "zookeeper " + s.Addr() + " (id " + strconv.Itoa(s.opts.myID) + ")"
}
