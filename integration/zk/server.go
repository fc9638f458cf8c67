package zk

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
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

// DefaultHome is where Debian's zookeeper package installs ZooKeeper.
const DefaultHome = "/usr/share/zookeeper"

// debianJar is the server jar of Debian's package; its manifest Class-Path
// lists every dependency in /usr/share/java.
const debianJar = "/usr/share/java/zookeeper.jar"

// debianSLF4JBinding gives the server's slf4j logging somewhere to go (the
// Debian jar depends on slf4j-api only, which would log nothing).
const debianSLF4JBinding = "/usr/share/java/slf4j-simple.jar"

// ErrNotInstalled reports that no ZooKeeper installation was found.
var ErrNotInstalled = errors.New("ZooKeeper is not installed: run `make test`, which installs the Debian package zookeeper, or set ZOOKEEPER_HOME to an Apache ZooKeeper distribution")

// Options configure a private server. The zero value is usable.
type Options struct {
	// Home is the ZooKeeper installation: a Debian install (bin/zkServer.sh
	// with the jars in /usr/share/java) or an Apache tarball (lib/*.jar).
	// Default: $ZOOKEEPER_HOME, else DefaultHome.
	Home string
	// Java is the java binary. Default: $JAVA_HOME/bin/java, else java on PATH.
	Java string
	// Dir holds conf/, data/ and server.log. Default: a new temporary
	// directory, removed by Close. A given Dir is left in place.
	Dir string
	// TickTime is ZooKeeper's basic time unit; session expiry is checked
	// once per tick. Default 100ms.
	TickTime time.Duration
	// MinSessionTimeout and MaxSessionTimeout bound the session timeouts the
	// server grants. Defaults: 2 ticks and 60s.
	MinSessionTimeout, MaxSessionTimeout time.Duration
	// StartTimeout bounds each start, JVM launch to serving. Default 60s
	// (the JVM is slow on a loaded machine; it normally takes about a second).
	StartTimeout time.Duration
	// TLS adds a TLS client port (secureClientPort, served by Netty) with a
	// self-signed certificate for 127.0.0.1 made at start (see TLSAddr,
	// CAFile). The plain client port stays open for the harness.
	TLS bool

	// Ensemble membership (set by StartEnsemble): the client port, this
	// server's id and the server.N lines of every member. Zero for a
	// standalone server.
	port    int
	myID    int
	members []string
}

// Server is a private ZooKeeper server run as a child process. Its methods
// are safe for concurrent use.
type Server struct {
	opts      Options
	dir       string
	removeDir func() error // removes dir if StartServer made it
	cfgPath   string
	logPath   string
	classpath string
	port      int
	tlsPort   int

	mu        sync.Mutex
	proc      *serverproc.Process // the last run of the server JVM
	lastStart time.Duration
	starts    int
}

// Start starts a private server for t, fails t if it cannot, and stops the
// server and removes its files when t ends. When t fails, the end of the
// server log is logged.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with options.
func StartWith(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := StartServer(opts)
	if err != nil {
		t.Fatalf("start private ZooKeeper: %v", err)
	}
	t.Logf("private ZooKeeper serving on %s (started in %v)", s.Addr(), s.LastStartDuration().Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("end of ZooKeeper log %s:\n%s", s.logPath, s.LogTail(40))
		}
		if err := s.Close(); err != nil {
			t.Errorf("stop private ZooKeeper: %v", err)
		}
	})
	return s
}

// StartServer starts a private server and waits until it serves requests.
// The caller must Close it.
func StartServer(opts Options) (*Server, error) {
	return startServer(opts, true)
}

// startServer starts the JVM and, if wait, waits until it serves (an
// ensemble member serves only once a quorum is up).
func startServer(opts Options, wait bool) (*Server, error) {
	if opts.TickTime <= 0 {
		opts.TickTime = 100 * time.Millisecond
	}
	if opts.MinSessionTimeout <= 0 {
		opts.MinSessionTimeout = 2 * opts.TickTime
	}
	if opts.MaxSessionTimeout <= 0 {
		opts.MaxSessionTimeout = 60 * time.Second
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	classpath, err := findClasspath(opts.Home)
	if err != nil {
		return nil, err
	}
	java, err := findJava(opts.Java)
	if err != nil {
		return nil, err
	}
	opts.Java = java

	s := &Server{opts: opts, classpath: classpath}
	if s.dir, s.removeDir, err = serverproc.MakeDir("zookeeper", opts.Dir, "dubboroute-zk-", "conf", "data"); err != nil {
		return nil, err
	}
	s.cfgPath = filepath.Join(s.dir, "conf", "zoo.cfg")
	s.logPath = filepath.Join(s.dir, "server.log")

	// A free port can be taken by someone else between our probe and the
	// JVM's bind; try a few.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s.port = opts.port
		if s.port == 0 {
			s.port, err = freePort()
			if err != nil {
				s.removeDir()
				return nil, err
			}
		}
		if opts.TLS && s.tlsPort == 0 {
			if s.tlsPort, err = freePort(); err != nil {
				s.removeDir()
				return nil, err
			}
			if err := s.makeKeys(); err != nil {
				s.removeDir()
				return nil, err
			}
		}
		if err := s.writeConfig(); err != nil {
			s.removeDir()
			return nil, err
		}
		s.mu.Lock()
		lastErr = s.launchLocked()
		if lastErr == nil && wait {
			lastErr = s.waitServingLocked()
		}
		s.mu.Unlock()
		if lastErr == nil {
			return s, nil
		}
		if opts.port != 0 || !strings.Contains(s.LogTail(20), "Address already in use") {
			break
		}
	}
	s.removeDir()
	return nil, lastErr
}

// Addr is the client address, 127.0.0.1:<port>. It does not change across
// restarts.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Port is the client port.
func (s *Server) Port() int { return s.port }

// Dir is the directory holding conf/zoo.cfg, data/ and server.log.
func (s *Server) Dir() string { return s.dir }

// LogPath is the server's log file (all runs appended).
func (s *Server) LogPath() string { return s.logPath }

// LastStartDuration is how long the last start took, from launching the JVM
// to the server answering as serving.
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

// Stop stops the server gracefully (SIGTERM, then SIGKILL after 10s) and
// waits for it to exit. The data directory and port are kept for Restart.
// Stopping a stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked(syscall.SIGTERM, 10*time.Second)
}

// Kill kills the server with SIGKILL, as a crash would, and waits for it to
// exit. The data directory and port are kept for Restart.
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked(syscall.SIGKILL, 0)
}

// Restart stops the server if it is running and starts it again on the same
// port with the same data directory, waiting until it serves. Sessions that
// clients re-establish within their timeout survive, as in production.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stopLocked(syscall.SIGTERM, 10*time.Second); err != nil {
		return err
	}
	return s.startLocked()
}

// Close kills the server and removes its directory when Start created it.
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

func (s *Server) writeConfig() error {
	ms := func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }
	cfg := strings.Join([]string{
		"tickTime=" + ms(s.opts.TickTime),
		"initLimit=10",
		"syncLimit=5",
		"dataDir=" + filepath.Join(s.dir, "data"),
		"clientPort=" + strconv.Itoa(s.port),
		"clientPortAddress=127.0.0.1",
		"minSessionTimeout=" + ms(s.opts.MinSessionTimeout),
		"maxSessionTimeout=" + ms(s.opts.MaxSessionTimeout),
		"maxClientCnxns=0",
		"admin.enableServer=false",
		"4lw.commands.whitelist=*",
		// Test data is disposable: skip fsync and the 64 MB log preallocation.
		"forceSync=no",
		"preAllocSize=1024",
		"",
	}, "\n")
	if s.opts.TLS {
		cfg += s.tlsConfig()
	}
	if len(s.opts.members) > 0 {
		cfg += strings.Join(s.opts.members, "\n") + "\n"
		myid := filepath.Join(s.dir, "data", "myid")
		if err := os.WriteFile(myid, []byte(strconv.Itoa(s.opts.myID)+"\n"), 0o644); err != nil {
			return fmt.Errorf("zookeeper: write %s: %w", myid, err)
		}
	}
	if err := os.WriteFile(s.cfgPath, []byte(cfg), 0o644); err != nil {
		return fmt.Errorf("zookeeper: write %s: %w", s.cfgPath, err)
	}
	return nil
}

// startLocked launches the JVM and waits until it serves. s.mu is held.
func (s *Server) startLocked() error {
	if err := s.launchLocked(); err != nil {
		return err
	}
	return s.waitServingLocked()
}

// launchLocked launches the JVM. s.mu is held.
func (s *Server) launchLocked() error {
	if s.proc.Running() {
		return fmt.Errorf("zookeeper: already running on %s", s.Addr())
	}
	s.starts++
	args := []string{
		"-Xms16m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"-Djava.net.preferIPv4Stack=true",
		"-Dzookeeper.admin.enableServer=false",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-cp", s.classpath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", s.cfgPath,
	}
	cmd := exec.Command(s.opts.Java, args...)
	cmd.Dir = s.dir
	p, err := serverproc.Launch("zookeeper", s.Addr(), s.logPath, s.starts, cmd)
	if err != nil {
		return err
	}
	s.proc = p
	return nil
}

// waitServingLocked waits until the launched JVM serves. s.mu is held.
func (s *Server) waitServingLocked() error {
	p := s.proc
	err := p.WaitReady(s.opts.StartTimeout, "serving", func() (bool, error) {
		return serving(s.Addr()) && (s.tlsPort == 0 || s.tlsServing()), nil
	})
	if err != nil {
		return err
	}
	s.lastStart = time.Since(p.Began())
	return nil
}

// stopLocked signals the JVM and waits for it to exit; after grace it sends
// SIGKILL. s.mu is held.
func (s *Server) stopLocked(sig syscall.Signal, grace time.Duration) error {
	return s.proc.Stop(sig, grace)
}

// serving asks the server with the four-letter word srvr, which only
// reports a mode once the server accepts client requests (ruok answers
// imok earlier, while the database is still loading).
func serving(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("srvr")); err != nil {
		return false
	}
	b, _ := io.ReadAll(bufio.NewReader(c))
	return bytes.Contains(b, []byte("Mode: "))
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("zookeeper: find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// findClasspath locates the server jars of an Apache tarball (home/lib) or
// of Debian's package (/usr/share/java/zookeeper.jar).
func findClasspath(home string) (string, error) {
	if home == "" {
		home = os.Getenv("ZOOKEEPER_HOME")
	}
	if home == "" {
		home = DefaultHome
	}
	if jars, _ := filepath.Glob(filepath.Join(home, "lib", "zookeeper-3*.jar")); len(jars) > 0 {
		return filepath.Join(home, "lib", "*"), nil
	}
	if jars, _ := filepath.Glob(filepath.Join(home, "zookeeper-3*.jar")); len(jars) > 0 {
		return strings.Join(append(jars, filepath.Join(home, "lib", "*")), string(os.PathListSeparator)), nil
	}
	if _, err := os.Stat(filepath.Join(home, "bin", "zkServer.sh")); err == nil {
		if _, err := os.Stat(debianJar); err == nil {
			cp := debianJar
			if _, err := os.Stat(debianSLF4JBinding); err == nil {
				cp += string(os.PathListSeparator) + debianSLF4JBinding
			}
			for _, j := range debianNettyJars {
				if p := filepath.Join(filepath.Dir(debianJar), j); fileExists(p) {
					cp += string(os.PathListSeparator) + p
				}
			}
			return cp, nil
		}
	}
	return "", fmt.Errorf("%w (looked in ZOOKEEPER_HOME=%s and %s)", ErrNotInstalled, home, debianJar)
}

func findJava(java string) (string, error) {
	if java != "" {
		return java, nil
	}
	if jh := os.Getenv("JAVA_HOME"); jh != "" {
		if p := filepath.Join(jh, "bin", "java"); fileExists(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("zookeeper: no java found (JAVA_HOME unset or without bin/java, none on PATH); run `make test`, which installs ZooKeeper and its JRE: %w", err)
	}
	return p, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
