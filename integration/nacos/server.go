package nacos

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/internal/serverproc"
)

// Version is the rnacos release the tests are written against.
const Version = "0.8.8"

// GRPCOffset is how far above the HTTP port rnacos (like Apache Nacos 2.x)
// serves gRPC; clients dial HTTP port + GRPCOffset.
const GRPCOffset = 1000

// ErrNotInstalled reports that no rnacos binary was found.
var ErrNotInstalled = errors.New("rnacos is not installed: run `make test` (scripts/lib.sh ensure_rnacos runs `cargo install rnacos --version " + Version + " --locked`), or set RNACOS_BIN")

// Options configure a private server. The zero value is usable.
type Options struct {
	// Bin is the rnacos binary. Default: $RNACOS_BIN, ~/.cargo/bin/rnacos,
	// else rnacos on PATH.
	Bin string
	// Dir is the working directory, holding data/ and server.log. Default:
	// a new temporary directory, removed by Close.
	Dir string
	// Env adds RNACOS_* settings, e.g. RNACOS_ENABLE_OPEN_API_AUTH=true.
	Env []string
	// StartTimeout bounds each start. Default 60s.
	StartTimeout time.Duration
}

// Server is a private rnacos process. Its methods are safe for concurrent
// use.
type Server struct {
	opts      Options
	bin       string
	dir       string
	removeDir func() error // removes dir if StartServer made it
	logPath   string
	port      int

	mu        sync.Mutex
	proc      *serverproc.Process // the last run of rnacos
	lastStart time.Duration
	starts    int
}

// Start starts a private server for t, fails t if it cannot, and stops it
// and removes its files when t ends (logging the end of its log if t
// failed).
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with options.
func StartWith(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := StartServer(opts)
	if err != nil {
		t.Fatalf("start private rnacos: %v", err)
	}
	t.Logf("private rnacos serving on %s (gRPC %s, started in %v)", s.Addr(), s.GRPCAddr(), s.LastStartDuration().Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("end of rnacos log %s:\n%s", s.logPath, s.LogTail(40))
		}
		if err := s.Close(); err != nil {
			t.Errorf("stop private rnacos: %v", err)
		}
	})
	return s
}

// StartServer starts a private server and waits until it serves. The
// caller must Close it.
func StartServer(opts Options) (*Server, error) {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	bin, err := FindBinary(opts.Bin)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, bin: bin}
	if s.dir, s.removeDir, err = serverproc.MakeDir("rnacos", opts.Dir, "dubboroute-rnacos-", "data"); err != nil {
		return nil, err
	}
	s.logPath = filepath.Join(s.dir, "server.log")
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if s.port, err = freePortPair(); err != nil {
			s.removeDir()
			return nil, err
		}
		s.mu.Lock()
		lastErr = s.startLocked()
		s.mu.Unlock()
		if lastErr == nil {
			return s, nil
		}
		if !strings.Contains(strings.ToLower(s.LogTail(20)), "address already in use") {
			break
		}
	}
	s.removeDir()
	return nil, lastErr
}

// FindBinary locates rnacos: bin if given, $RNACOS_BIN, ~/.cargo/bin/rnacos,
// else rnacos on PATH.
func FindBinary(bin string) (string, error) {
	if bin == "" {
		bin = os.Getenv("RNACOS_BIN")
	}
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("%w: %v", ErrNotInstalled, err)
		}
		return bin, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cargo", "bin", "rnacos")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("rnacos"); err == nil {
		return p, nil
	}
	return "", ErrNotInstalled
}

// Addr is the HTTP (OpenAPI) address, 127.0.0.1:<port>; it does not change
// across restarts.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port is the HTTP port.
func (s *Server) Port() int { return s.port }

// GRPCAddr is the gRPC address: the HTTP port + GRPCOffset.
func (s *Server) GRPCAddr() string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port+GRPCOffset))
}

// Dir is the working directory (data/ and server.log).
func (s *Server) Dir() string { return s.dir }

// LogPath is the server's log file (all runs appended).
func (s *Server) LogPath() string { return s.logPath }

// LastStartDuration is how long the last start took, launch to serving.
func (s *Server) LastStartDuration() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastStart
}

// Running reports whether the server process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc.Running()
}

// Stop stops the server (SIGTERM, SIGKILL after 10s) and waits for it to
// exit; ports and data are kept for Restart.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked(syscall.SIGTERM, 10*time.Second)
}

// Kill kills the server with SIGKILL, as a crash would.
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked(syscall.SIGKILL, 0)
}

// Start starts a stopped server again on the same ports and data and waits
// until it serves.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startLocked()
}

// Restart stops the server if it runs and starts it again on the same
// ports and data.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stopLocked(syscall.SIGTERM, 10*time.Second); err != nil {
		return err
	}
	return s.startLocked()
}

// Close kills the server and removes its directory when Start made it.
func (s *Server) Close() error {
	s.mu.Lock()
	err := s.stopLocked(syscall.SIGKILL, 0)
	s.mu.Unlock()
	if rmErr := s.removeDir(); rmErr != nil && err == nil {
		err = rmErr
	}
	return err
}

// LogTail returns the last n lines of the server log.
func (s *Server) LogTail(n int) string { return serverproc.LogTail(s.logPath, n) }

// env is the process environment: the test's, without RNACOS_* settings
// of its own, plus ours and Options.Env.
func (s *Server) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RNACOS_") && !strings.HasPrefix(kv, "RUST_LOG=") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"RNACOS_HTTP_PORT="+strconv.Itoa(s.port),
		"RNACOS_GRPC_PORT="+strconv.Itoa(s.port+GRPCOffset),
		"RNACOS_HTTP_CONSOLE_PORT=0", // console off
		"RNACOS_SDK_HOST=127.0.0.1",
		"RNACOS_CONSOLE_HOST=127.0.0.1",
		"RNACOS_DATA_DIR="+filepath.Join(s.dir, "data"),
		"RNACOS_RAFT_NODE_ADDR=127.0.0.1:"+strconv.Itoa(s.port+GRPCOffset),
		"RNACOS_HTTP_WORKERS=2",
		"RNACOS_ENABLE_METRICS=false",
		"RUST_LOG=warn",
	)
	return append(env, s.opts.Env...)
}

// maxLaunches bounds the launches of one start: rnacos 0.8.8 has a startup
// race (its raft state-apply actor can receive the first entry before its
// dependencies are injected, panics at raftapply.rs:421, and from then on
// accepts writes it never applies); seen in about one start of three on a
// loaded 2-core machine. A start counts only once a write reads back.
const maxLaunches = 6

// startLocked launches the process and waits until it serves, launching
// again (fresh data when the server is new, the same data on a restart)
// while a launch hits rnacos's startup race. s.mu is held.
func (s *Server) startLocked() error {
	fresh := s.starts == 0
	var err error
	for i := 0; i < maxLaunches; i++ {
		if err = s.launchLocked(); err == nil {
			return nil
		}
		if !errors.Is(err, errRace) {
			return err
		}
		_ = s.stopLocked(syscall.SIGKILL, 0)
		if fresh {
			data := filepath.Join(s.dir, "data")
			if rmErr := os.RemoveAll(data); rmErr != nil {
				return fmt.Errorf("rnacos: reset %s: %w", data, rmErr)
			}
			if mkErr := os.MkdirAll(data, 0o755); mkErr != nil {
				return fmt.Errorf("rnacos: reset %s: %w", data, mkErr)
			}
		}
	}
	return fmt.Errorf("rnacos: %d launches on %s hit rnacos's startup race: %w", maxLaunches, s.Addr(), err)
}

// errRace marks a launch that hit rnacos's startup race.
var errRace = errors.New("rnacos's raft state apply panicked at startup (writes are not applied)")

// launchLocked launches the process once and waits until it serves and a
// write reads back. s.mu is held.
func (s *Server) launchLocked() error {
	if s.proc.Running() {
		return fmt.Errorf("rnacos: already running on %s", s.Addr())
	}
	s.starts++
	cmd := exec.Command(s.bin)
	cmd.Dir = s.dir // rnacos reads .env from its working directory: there is none here
	cmd.Env = s.env()
	p, err := serverproc.Launch("rnacos", s.Addr(), s.logPath, s.starts, cmd)
	if err != nil {
		return err
	}
	s.proc = p
	err = p.WaitReady(s.opts.StartTimeout, "healthy", func() (bool, error) {
		if !healthy(s.Addr()) || !listening(s.GRPCAddr()) {
			return false, nil
		}
		return true, s.probe()
	})
	if err != nil {
		return err
	}
	s.lastStart = time.Since(p.Began())
	return nil
}

func (s *Server) stopLocked(sig syscall.Signal, grace time.Duration) error {
	return s.proc.Stop(sig, grace)
}

// probe writes a config and reads it back (rnacos answers a write before
// it applies it), failing with errRace when this run's log shows the
// startup panic or the write does not read back within 5 s.
func (s *Server) probe() error {
	c := http.Client{Timeout: 2 * time.Second}
	val := fmt.Sprintf("start %d at %d", s.starts, time.Now().UnixNano())
	form := url.Values{"dataId": {"dubboroute.harness.probe"}, "group": {"dubboroute"}, "content": {val}}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if s.panicked() {
			return errRace
		}
		resp, err := c.PostForm("http://"+s.Addr()+"/nacos/v1/cs/configs", form)
		if err == nil {
			resp.Body.Close()
			r, err := c.Get("http://" + s.Addr() + "/nacos/v1/cs/configs?dataId=dubboroute.harness.probe&group=dubboroute")
			if err == nil {
				b, _ := io.ReadAll(io.LimitReader(r.Body, 1024))
				r.Body.Close()
				if string(b) == val {
					return nil
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errRace
}

// panicked reports whether the log of the current run shows a panic.
func (s *Server) panicked() bool {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return false
	}
	mark := serverproc.StartMark(s.starts)
	i := strings.LastIndex(string(b), mark)
	return i >= 0 && strings.Contains(string(b[i:]), "panicked")
}

// healthy asks GET /health, which answers 200 "success" once the server
// (and its single-node raft) is up.
func healthy(addr string) bool {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + "/health")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return resp.StatusCode == http.StatusOK && strings.Contains(string(b), "success")
}

func listening(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// freePortPair finds a free loopback port P with P+GRPCOffset free too.
func freePortPair() (int, error) {
	for i := 0; i < 50; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("rnacos: find a free loopback port: %w", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		if p+GRPCOffset > 65535 {
			l.Close()
			continue
		}
		l2, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+GRPCOffset)))
		l.Close()
		if err != nil {
			continue
		}
		l2.Close()
		return p, nil
	}
	return 0, errors.New("rnacos: no free loopback port P with P+1000 free after 50 tries")
}
