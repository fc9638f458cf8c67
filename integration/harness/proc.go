package harness

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/internal/serverproc"
)

// ProcOptions describe a child process.
type ProcOptions struct {
	// Name labels the process in logs and errors, e.g. "provider:20880".
	Name string
	// Path is the binary; Args its arguments.
	Path string
	Args []string
	// Env is added to the test's environment (KEY=VALUE).
	Env []string
	// LogDir holds the log file <Name>-*.log; default: $DUBBOROUTE_HARNESS_LOGDIR
	// if set (kept after the test, for debugging), else the OS temp dir
	// (Start: t.TempDir(), removed after the test).
	LogDir string
}

// LogDirEnv names a directory for process logs that outlives the test.
const LogDirEnv = "DUBBOROUTE_HARNESS_LOGDIR"

// Proc is a running (or ended) child process. Its methods are safe for
// concurrent use.
type Proc struct {
	name    string
	proc    *serverproc.Process
	logPath string

	mu      sync.Mutex
	stopped bool // Stop/Kill was called: the exit is expected
}

// StartProc starts a child process without a test: the caller must Stop or
// Kill it. Start is the usual entry point.
func StartProc(opts ProcOptions) (*Proc, error) {
	if opts.Name == "" {
		opts.Name = filepath.Base(opts.Path)
	}
	logf, err := os.CreateTemp(opts.LogDir, safeName(opts.Name)+"-*.log")
	if err != nil {
		return nil, fmt.Errorf("harness: %s: create log: %w", opts.Name, err)
	}
	cmd := exec.Command(opts.Path, opts.Args...)
	cmd.Env = append(os.Environ(), opts.Env...)
	// One file for both streams: the child writes straight into it (no
	// copying goroutine to lose output when it is killed), in order.
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	proc, err := serverproc.Start("harness: "+opts.Name, cmd)
	logf.Close() // the child holds its own descriptor
	if err != nil {
		return nil, fmt.Errorf("harness: start %s (%s): %w", opts.Name, opts.Path, err)
	}
	p := &Proc{name: opts.Name, proc: proc, logPath: logf.Name()}
	return p, nil
}

// Start starts a child process for t, fails t if it cannot, and ends it
// when t ends: SIGTERM to its process group, SIGKILL after 10 s. At that
// point it also checks the log for race reports (see the package doc) and,
// if t failed, prints the end of the log.
func Start(t testing.TB, opts ProcOptions) *Proc {
	t.Helper()
	if opts.LogDir == "" {
		opts.LogDir = os.Getenv(LogDirEnv)
	}
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	p, err := StartProc(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.finish(t) })
	return p
}

// finish stops p, checks its log for races and prints the log on failure.
func (p *Proc) finish(t testing.TB) {
	t.Helper()
	if p.Exited() && !p.wasStopped() {
		t.Errorf("%s (pid %d) exited by itself during the test (%s)", p.name, p.Pid(), p.ExitStatus())
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Errorf("%v", err)
	}
	ours, others := p.Races()
	if len(others) > 0 {
		var where []string
		for _, r := range others {
			where = append(where, raceWhere(r))
		}
		t.Logf("%s: %d data race(s) inside third-party code, tolerated (see the integration/harness doc; full reports in %s): %s",
			p.name, len(others), p.logPath, strings.Join(where, "; "))
	}
	for _, r := range ours {
		t.Errorf("%s: DATA RACE involving dubboroute code:\n%s", p.name, r)
	}
	if t.Failed() {
		t.Logf("---- end of %s log (%s, pid %d, %s):\n%s", p.name, p.logPath, p.Pid(), p.ExitStatus(), p.LogTail(60))
	}
}

// Name is the label given at start.
func (p *Proc) Name() string { return p.name }

// Pid is the process id.
func (p *Proc) Pid() int { return p.proc.Pid() }

// LogPath is the file holding the process's stdout and stderr.
func (p *Proc) LogPath() string { return p.logPath }

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.proc.Done() }

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool { return p.proc.Exited() }

// ExitStatus describes how the process ended ("running" while it runs).
func (p *Proc) ExitStatus() string {
	if !p.Exited() {
		return "running"
	}
	if err := p.proc.Err(); err != nil {
		return err.Error()
	}
	return "exit status 0"
}

// Log returns everything the process has written so far.
func (p *Proc) Log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// LogContains reports whether the log contains every one of subs on one
// line.
func (p *Proc) LogContains(subs ...string) bool {
	return p.logLine(subs) != ""
}

func (p *Proc) logLine(subs []string) string {
	sc := bufio.NewScanner(strings.NewReader(p.Log()))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		all := true
		for _, s := range subs {
			if !strings.Contains(line, s) {
				all = false
				break
			}
		}
		if all {
			return line
		}
	}
	return ""
}

// LogTail returns the last n lines of the log.
func (p *Proc) LogTail(n int) string { return serverproc.Tail(p.Log(), n) }

// WaitLine waits until a log line matches re and returns the line's
// submatches (index 0 is the whole match). It fails early when the process
// exits, and after timeout, with the end of the log in the error.
func (p *Proc) WaitLine(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.Now().Add(timeout)
	for {
		exited := p.Exited() // read before the log: a final line is not missed
		if m := re.FindStringSubmatch(p.Log()); m != nil {
			return m, nil
		}
		if exited {
			return nil, fmt.Errorf("harness: %s exited (%s) before printing a line matching %q; end of log %s:\n%s",
				p.name, p.ExitStatus(), re, p.logPath, p.LogTail(30))
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("harness: %s printed no line matching %q within %v; end of log %s:\n%s",
				p.name, re, timeout, p.logPath, p.LogTail(30))
		}
		select {
		case <-p.proc.Done():
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// WaitLog waits until one log line contains every one of subs and returns
// that line.
func (p *Proc) WaitLog(timeout time.Duration, subs ...string) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if line := p.logLine(subs); line != "" {
			return line, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("harness: %s logged no line containing %q within %v; end of log %s:\n%s",
				p.name, subs, timeout, p.logPath, p.LogTail(20))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Signal sends sig to the process group.
func (p *Proc) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return nil
	}
	if err := syscall.Kill(-p.Pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("harness: signal %v to %s (pgid %d): %w", sig, p.name, p.Pid(), err)
	}
	return nil
}

// Stop ends the process gracefully: SIGTERM to its group, SIGKILL after
// grace. It returns once the process is reaped (an error if it cannot be).
// A provider stopped this way unregisters from ZooKeeper before it exits.
func (p *Proc) Stop(grace time.Duration) error {
	p.markStopped()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-p.proc.Done():
		return nil
	case <-time.After(grace):
	}
	return p.Kill()
}

// Kill ends the process at once (SIGKILL to its group) and waits until it is
// reaped. A provider killed this way stays registered until its ZooKeeper
// session expires.
func (p *Proc) Kill() error {
	p.markStopped()
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	select {
	case <-p.proc.Done():
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("harness: %s (pid %d) not reaped 30s after SIGKILL", p.name, p.Pid())
	}
}

func (p *Proc) wasStopped() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopped
}

func (p *Proc) markStopped() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

// Uptime is how long the process has been running (until now, or until it
// exited if it has).
func (p *Proc) Uptime() time.Duration { return time.Since(p.proc.Began()) }

// Races returns the race detector's reports in the log, split into those
// with a dubboroute frame on top of an accessing stack (ours) and the rest.
func (p *Proc) Races() (ours, others []string) {
	return SplitRaces(p.Log())
}

const (
	raceBanner = "WARNING: DATA RACE"
	raceEnd    = "=================="
	ourModule  = "github.com/dubboroute/dubboroute/"
)

// SplitRaces extracts the race reports from a log and classifies them: a
// report is ours when, in any access section ("Read at", "Write at",
// "Previous read at", "Previous write at", with or without "atomic"), the
// first frame outside the standard library is a dubboroute function or the
// command's package main. (The
// "created at" sections do not count: every goroutine of a sample binary
// descends from dubboroute's main.)
func SplitRaces(log string) (ours, others []string) {
	for {
		i := strings.Index(log, raceBanner)
		if i < 0 {
			return ours, others
		}
		log = log[i:]
		end := strings.Index(log[len(raceBanner):], raceEnd)
		var rep string
		if end < 0 {
			rep, log = log, ""
		} else {
			rep, log = log[:len(raceBanner)+end], log[len(raceBanner)+end:]
		}
		if raceIsOurs(rep) {
			ours = append(ours, rep)
		} else {
			others = append(others, rep)
		}
	}
}

var accessRE = regexp.MustCompile(`^(Previous )?(atomic )?(read|write|Read|Write) at 0x[0-9a-f]+ by (goroutine \d+|main goroutine):$`)

func raceIsOurs(rep string) bool {
	inAccess, decided := false, false
	for _, line := range strings.Split(rep, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case accessRE.MatchString(trimmed):
			inAccess, decided = true, false
		case trimmed == "" || !strings.HasPrefix(line, " "):
			inAccess = false
		case inAccess && !decided && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   "):
			// a function frame (file lines are indented further)
			if isStdlib(trimmed) {
				continue
			}
			if strings.HasPrefix(trimmed, ourModule) || strings.HasPrefix(trimmed, "main.") {
				return true
			}
			decided = true
		}
	}
	return false
}

// isStdlib reports whether a frame's function belongs to the standard
// library (its import path has no dot before the first slash).
func isStdlib(frame string) bool {
	if strings.HasPrefix(frame, "main.") {
		return false // the sample command's own package
	}
	first, _, found := strings.Cut(frame, "/")
	return !found || !strings.Contains(first, ".")
}

// raceWhere names the first non-standard-library function of each access
// section of a race report, e.g. "A() vs B()".
func raceWhere(rep string) string {
	var fns []string
	inAccess, decided := false, false
	for _, line := range strings.Split(rep, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case accessRE.MatchString(trimmed):
			inAccess, decided = true, false
		case trimmed == "" || !strings.HasPrefix(line, " "):
			inAccess = false
		case inAccess && !decided && strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && !isStdlib(trimmed):
			fns = append(fns, trimmed)
			decided = true
		}
	}
	return strings.Join(fns, " vs ")
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == ' ' || r == os.PathSeparator {
			return '_'
		}
		return r
	}, s)
}
