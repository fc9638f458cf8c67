package serverproc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// killBound is how long Stop waits for a process to be reaped after
// SIGKILL.
const killBound = 30 * time.Second

// pollInterval is how often WaitReady asks whether the server is ready.
const pollInterval = 50 * time.Millisecond

// Process is a started child process. Its methods are safe for concurrent
// use; a nil *Process is a process that never ran.
type Process struct {
	name    string // prefixes errors
	addr    string // where the server serves, for errors
	logPath string
	cmd     *exec.Cmd
	began   time.Time
	done    chan struct{} // closed once the process is reaped
	err     error         // Wait's result, valid after done
}

// Start starts cmd and reaps it in the background. It forks from a locked
// OS thread that lives until the child is reaped, because a parent-death
// signal (SysProcAttr.Pdeathsig) fires when the forking thread exits. The
// error is cmd.Start's, unwrapped. name prefixes Stop's errors.
func Start(name string, cmd *exec.Cmd) (*Process, error) {
	p := &Process{name: name, cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(p.done)
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	p.began = time.Now()
	return p, nil
}

// Launch starts the server cmd for start number n on addr: it appends a
// StartMark line to logPath, sends the process's stdout and stderr there
// and ties the process to this one with a parent-death signal where the
// platform has one.
func Launch(name, addr, logPath string, n int, cmd *exec.Cmd) (*Process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: open log %s: %w", name, logPath, err)
	}
	// The child holds its own descriptor; ours closes once it has started.
	defer logf.Close()
	fmt.Fprintf(logf, "%son %s at %s\n", StartMark(n), addr, time.Now().Format(time.RFC3339Nano))
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = sysProcAttr()
	p, err := Start(name, cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: launch %s: %w", name, cmd.Args[0], err)
	}
	p.addr, p.logPath = addr, logPath
	return p, nil
}

// StartMark begins the line Launch writes to the log before start number
// n; the output of that run follows it.
func StartMark(n int) string {
	return fmt.Sprintf("==== dubboroute harness: start #%d ", n)
}

// Done is closed when the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Running reports whether p is a process that has not exited.
func (p *Process) Running() bool { return p != nil && !p.Exited() }

// Err is the process's exit (Wait's result); valid once Done is closed.
func (p *Process) Err() error { return p.err }

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Began is when the process started.
func (p *Process) Began() time.Time { return p.began }

// Stop sends sig to the process and waits until it is reaped, sending
// SIGKILL after grace when grace is positive; it gives up 30 s after the
// SIGKILL (or after sig, when grace is 0 and sig is SIGKILL). Stopping a
// process that has exited, or a nil one, does nothing.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) error {
	if !p.Running() {
		return nil
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !p.Exited() {
		return fmt.Errorf("%s: signal %v to pid %d: %w", p.name, sig, p.Pid(), err)
	}
	if grace > 0 {
		select {
		case <-p.done:
			return nil
		case <-time.After(grace):
		}
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(killBound):
		return fmt.Errorf("%s: pid %d did not exit %v after SIGKILL", p.name, p.Pid(), killBound)
	}
}

// WaitReady waits until ready reports true, polling every 50 ms and when
// the process exits. It fails when the process exits first, when ready
// returns an error (returned as is), and after timeout, when it kills the
// process; the failures name the server's address and end with the last
// 20 lines of its log. state says what ready checks, for the timeout error
// ("serving", "healthy").
func (p *Process) WaitReady(timeout time.Duration, state string, ready func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		if p.Exited() {
			return fmt.Errorf("%s: server on %s exited during start (%v); end of %s:\n%s", p.name, p.addr, p.err, p.logPath, LogTail(p.logPath, 20))
		}
		ok, err := ready()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			_ = p.Stop(syscall.SIGKILL, 0)
			return fmt.Errorf("%s: server on %s not %s within %v; end of %s:\n%s", p.name, p.addr, state, timeout, p.logPath, LogTail(p.logPath, 20))
		}
		select {
		case <-p.done:
		case <-time.After(pollInterval):
		}
	}
}

// LogTail returns the last n lines of the log file at path, or says why it
// cannot be read.
func LogTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return Tail(string(b), n)
}

// Tail returns the last n lines of text.
func Tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// MakeDir prepares a server's working directory: dir if given, else a new
// temporary directory (os.MkdirTemp with pattern), with subdirs made inside
// it. remove deletes the directory when MakeDir created it and does nothing
// for a given one; MakeDir calls it itself when it fails.
func MakeDir(name, dir, pattern string, subdirs ...string) (path string, remove func() error, err error) {
	remove = func() error { return nil }
	if dir == "" {
		if dir, err = os.MkdirTemp("", pattern); err != nil {
			return "", nil, fmt.Errorf("%s: create temp dir: %w", name, err)
		}
		remove = func() error {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("%s: remove %s: %w", name, dir, err)
			}
			return nil
		}
	}
	for _, d := range subdirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			_ = remove()
			return "", nil, fmt.Errorf("%s: create %s dir in %s: %w", name, d, dir, err)
		}
	}
	return dir, remove, nil
}
