package serverproc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLaunchLogsAndStops(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	p, err := Launch("demo", "127.0.0.1:1", log, 3, exec.Command("sh", "-c", "echo hello; exec sleep 60"))
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(10*time.Second, "serving", func() (bool, error) {
		return strings.Contains(LogTail(log, 1), "hello"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Running() {
		t.Fatal("Running() = false for a live process")
	}
	if !strings.HasPrefix(LogTail(log, 2), StartMark(3)+"on 127.0.0.1:1 at ") {
		t.Errorf("log does not begin with the start mark:\n%s", LogTail(log, 2))
	}
	if err := p.Stop(syscall.SIGTERM, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() || p.Err() == nil {
		t.Errorf("after Stop: Exited() = %v, Err() = %v; want true and the signal", p.Exited(), p.Err())
	}
	if err := p.Stop(syscall.SIGKILL, 0); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	var never *Process
	if never.Running() || never.Stop(syscall.SIGKILL, 0) != nil {
		t.Error("a nil Process runs or fails to stop")
	}
}

func TestWaitReadyFailures(t *testing.T) {
	dir := t.TempDir()
	notReady := func() (bool, error) { return false, nil }

	log := filepath.Join(dir, "exit.log")
	p, err := Launch("demo", "127.0.0.1:2", log, 1, exec.Command("sh", "-c", "echo bye; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(10*time.Second, "serving", notReady)
	if err == nil || !strings.HasPrefix(err.Error(), "demo: server on 127.0.0.1:2 exited during start (exit status 3)") || !strings.HasSuffix(err.Error(), "bye") {
		t.Errorf("exit during start: err = %v", err)
	}

	log = filepath.Join(dir, "slow.log")
	p, err = Launch("demo", "127.0.0.1:3", log, 1, exec.Command("sleep", "60"))
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitReady(200*time.Millisecond, "healthy", notReady)
	if err == nil || !strings.HasPrefix(err.Error(), "demo: server on 127.0.0.1:3 not healthy within 200ms") {
		t.Errorf("timeout: err = %v", err)
	}
	if !p.Exited() {
		t.Error("WaitReady left a process that timed out running")
	}

	p, err = Launch("demo", "127.0.0.1:4", filepath.Join(dir, "err.log"), 1, exec.Command("sleep", "60"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(syscall.SIGKILL, 0)
	bad := errors.New("probe failed")
	if err := p.WaitReady(10*time.Second, "serving", func() (bool, error) { return false, bad }); err != bad {
		t.Errorf("ready error: err = %v, want %v", err, bad)
	}

	if _, err := Launch("demo", "127.0.0.1:5", filepath.Join(dir, "x.log"), 1, exec.Command(filepath.Join(dir, "missing"))); err == nil || !strings.HasPrefix(err.Error(), "demo: launch ") {
		t.Errorf("missing binary: err = %v", err)
	}
}

func TestTail(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\nb", 5, "a\nb"},
		{"", 3, ""},
	} {
		if got := Tail(c.in, c.n); got != c.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	if got := LogTail(filepath.Join(t.TempDir(), "none"), 1); !strings.HasPrefix(got, "(cannot read ") {
		t.Errorf("LogTail of a missing file = %q", got)
	}
}

func TestMakeDir(t *testing.T) {
	given := filepath.Join(t.TempDir(), "given")
	dir, remove, err := MakeDir("demo", given, "unused-", "conf", "data")
	if err != nil || dir != given || !isDir(filepath.Join(given, "conf")) || !isDir(filepath.Join(given, "data")) {
		t.Fatalf("MakeDir(given) = %q, %v; want %q with conf/ and data/", dir, err, given)
	}
	if err := remove(); err != nil || !isDir(given) {
		t.Errorf("remove of a given dir: %v, still there: %v; want it kept", err, isDir(given))
	}
	dir, remove, err = MakeDir("demo", "", "serverproc-test-", "data")
	if err != nil || !strings.Contains(filepath.Base(dir), "serverproc-test-") || !isDir(filepath.Join(dir, "data")) {
		t.Fatalf("MakeDir(temp) = %q, %v", dir, err)
	}
	if err := remove(); err != nil || isDir(dir) {
		t.Errorf("remove of a temp dir: %v, still there: %v; want it gone", err, isDir(dir))
	}
	if _, _, err := MakeDir("demo", given, "", "conf\x00"); err == nil || !strings.HasPrefix(err.Error(), "demo: create conf") {
		t.Errorf("bad subdir: err = %v", err)
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
