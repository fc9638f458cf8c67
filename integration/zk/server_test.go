package zk_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/integration/zk"
)

// connect opens a client session and waits (bounded) until it is usable.
func connect(t *testing.T, addr string, timeout time.Duration) *gozk.Conn {
	t.Helper()
	conn, events, err := gozk.Connect([]string{addr}, timeout, gozk.WithLogInfo(false), gozk.WithLogger(quiet{}))
	if err != nil {
		t.Fatalf("connect %s: %v", addr, err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == gozk.StateHasSession {
				return conn
			}
		case <-deadline:
			t.Fatalf("no session with %s within 30s (state %v)", addr, conn.State())
		}
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

func TestServerSurvivesStopAndRestart(t *testing.T) {
	srv := zk.Start(t)
	if !strings.HasPrefix(srv.Addr(), "127.0.0.1:") || srv.Port() == 2181 {
		t.Fatalf("server address %s: want a private loopback port, never 2181", srv.Addr())
	}
	t.Logf("first start took %v", srv.LastStartDuration())

	conn := connect(t, srv.Addr(), 10*time.Second)
	if _, err := conn.Create("/harness", []byte("persisted"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("create /harness: %v", err)
	}
	conn.Close()

	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if srv.Running() {
		t.Fatal("server still running after Stop")
	}
	conn2, _, err := gozk.Connect([]string{srv.Addr()}, time.Second, gozk.WithLogger(quiet{}))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, _, err := conn2.Get("/harness"); err == nil {
		t.Fatal("read /harness succeeded while the server was stopped")
	}
	conn2.Close()

	port := srv.Port()
	if err := srv.Restart(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	t.Logf("restart took %v", srv.LastStartDuration())
	if srv.Port() != port {
		t.Fatalf("port changed across restart: %d -> %d", port, srv.Port())
	}
	conn3 := connect(t, srv.Addr(), 10*time.Second)
	data, _, err := conn3.Get("/harness")
	if err != nil {
		t.Fatalf("read /harness after restart: %v", err)
	}
	if string(data) != "persisted" {
		t.Fatalf("/harness after restart = %q, want %q", data, "persisted")
	}
}

func TestServerKillKeepsCommittedData(t *testing.T) {
	srv := zk.Start(t)
	conn := connect(t, srv.Addr(), 10*time.Second)
	if _, err := conn.Create("/crash", []byte("v1"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("create /crash: %v", err)
	}
	if err := srv.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if srv.Running() {
		t.Fatal("server still running after Kill")
	}
	if err := srv.Restart(); err != nil {
		t.Fatalf("restart after kill: %v", err)
	}
	conn2 := connect(t, srv.Addr(), 10*time.Second)
	data, _, err := conn2.Get("/crash")
	if err != nil || string(data) != "v1" {
		t.Fatalf("read /crash after kill and restart = %q, %v; want v1", data, err)
	}
}

func TestStartServerWithoutInstallationSaysRunMakeTest(t *testing.T) {
	_, err := zk.StartServer(zk.Options{Home: t.TempDir()})
	if !errors.Is(err, zk.ErrNotInstalled) {
		t.Fatalf("StartServer with an empty home: err = %v, want ErrNotInstalled", err)
	}
	if !strings.Contains(err.Error(), "make test") {
		t.Fatalf("error %q does not tell the user to run make test", err)
	}
}

func TestProxyCutAndRestore(t *testing.T) {
	srv := zk.Start(t)
	proxy := zk.StartProxy(t, srv.Addr())
	conn := connect(t, proxy.Addr(), 10*time.Second)
	if _, err := conn.Create("/via-proxy", []byte("x"), 0, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatalf("create through proxy: %v", err)
	}

	proxy.Cut()
	if _, _, err := conn.Get("/via-proxy"); err == nil {
		t.Fatal("read through a cut proxy succeeded")
	}
	proxy.Restore()

	// The client reconnects by itself; the first read after that succeeds.
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _, err := conn.Get("/via-proxy")
		if err == nil {
			if string(data) != "x" {
				t.Fatalf("read through restored proxy = %q, want x", data)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no successful read within 30s of Restore: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSessionAliveFollowsTheSession(t *testing.T) {
	srv := zk.Start(t)
	conn := connect(t, srv.Addr(), 2*time.Second)
	id := conn.SessionID()
	alive, err := srv.SessionAlive(id)
	if err != nil || !alive {
		t.Fatalf("SessionAlive(0x%x) of a connected client = %v, %v; want true", id, alive, err)
	}
	conn.Close() // closing ends the session on the server
	deadline := time.Now().Add(30 * time.Second)
	for {
		alive, err := srv.SessionAlive(id)
		if err != nil {
			t.Fatalf("SessionAlive: %v", err)
		}
		if !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("session 0x%x still tracked 30s after the client closed it", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
