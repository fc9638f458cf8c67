package harness

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// A dubbo-go race as the sample consumer reports it on shutdown (trimmed).
const theirRace = `==================
WARNING: DATA RACE
Read at 0x00c000176288 by goroutine 219:
  reflect.typedmemmove()
      /usr/local/go/src/runtime/mbarrier.go:213 +0x0
  github.com/pkg/errors.Errorf()
      /root/go/pkg/mod/github.com/pkg/errors@v0.9.1/errors.go:111 +0x6f
  dubbo.apache.org/dubbo-go/v3/remoting/getty.(*gettyRPCClient).close()
      /root/go/pkg/mod/dubbo.apache.org/dubbo-go/v3@v3.3.2/remoting/getty/pool.go:255 +0x1c4

Previous write at 0x00c000176288 by goroutine 45:
  dubbo.apache.org/dubbo-go/v3/remoting/getty.(*gettyRPCClient).addSession()
      /root/go/pkg/mod/dubbo.apache.org/dubbo-go/v3@v3.3.2/remoting/getty/pool.go:180 +0x2a4

Goroutine 45 (running) created at:
  github.com/dubboroute/dubboroute/samples/bookfacade/provider.Start()
      /work/main/samples/bookfacade/provider/provider.go:193 +0x194a
==================
`

// A race with one of our functions under a standard-library frame.
const ourRace = `==================
WARNING: DATA RACE
Write at 0x00c0001c8420 by goroutine 7:
  runtime.mapassign_faststr()
      /usr/local/go/src/internal/runtime/maps/runtime_faststr.go:263 +0x0
  github.com/dubboroute/dubboroute/extension.(*Binding).setInvokers()
      /work/main/extension/binding.go:160 +0x44

Previous read at 0x00c0001c8420 by goroutine 9:
  dubbo.apache.org/dubbo-go/v3/registry/directory.(*RegistryDirectory).List()
      /root/go/pkg/mod/dubbo.apache.org/dubbo-go/v3@v3.3.2/registry/directory/directory.go:10 +0x1

Goroutine 7 (running) created at:
  main.main()
      /work/main/samples/bookfacade/cmd/provider/main.go:54 +0x427
==================
`

func TestSplitRaces(t *testing.T) {
	log := "some output\n" + theirRace + "more output\n" + ourRace + theirRace
	ours, others := SplitRaces(log)
	if len(ours) != 1 || !strings.Contains(ours[0], "setInvokers") {
		t.Errorf("ours = %d reports %q, want the setInvokers one", len(ours), ours)
	}
	if len(others) != 2 {
		t.Errorf("others = %d reports, want 2", len(others))
	}
	if o, th := SplitRaces("no races here\n"); o != nil || th != nil {
		t.Errorf("clean log: %v %v", o, th)
	}
}

func TestIsStdlib(t *testing.T) {
	for frame, want := range map[string]bool{
		"reflect.typedmemmove()":                    true,
		"internal/sync.(*HashTrieMap).iter()":       true,
		"main.main()":                               false,
		"github.com/pkg/errors.Errorf()":            false,
		"dubbo.apache.org/dubbo-go/v3/remoting.X()": false,
	} {
		if got := isStdlib(frame); got != want {
			t.Errorf("isStdlib(%q) = %v, want %v", frame, got, want)
		}
	}
}

// TestProc runs a shell as a child: its output is captured, WaitLine and
// WaitLog find lines, Stop ends it with SIGTERM, and an exit is reported.
func TestProc(t *testing.T) {
	p := Start(t, ProcOptions{Name: "sh", Path: "/bin/sh", Args: []string{"-c", `echo "READY 42 x"; echo oops >&2; trap 'echo bye; exit 3' TERM; while :; do sleep 0.05; done`}})
	m, err := p.WaitLine(regexp.MustCompile(`(?m)^READY (\d+) `), 10*time.Second)
	if err != nil || m[1] != "42" {
		t.Fatalf("WaitLine = %v, %v", m, err)
	}
	if _, err := p.WaitLog(5*time.Second, "oops"); err != nil {
		t.Fatal(err)
	}
	if p.Exited() {
		t.Fatal("exited early")
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.Exited() || !strings.Contains(p.ExitStatus(), "3") || !p.LogContains("bye") {
		t.Errorf("after Stop: exited %v, %s, log %q", p.Exited(), p.ExitStatus(), p.Log())
	}
	if _, err := p.WaitLine(regexp.MustCompile(`never`), 5*time.Second); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("WaitLine on an exited process: %v", err)
	}
}

func TestRaceWhere(t *testing.T) {
	got := raceWhere(theirRace)
	want := "github.com/pkg/errors.Errorf() vs dubbo.apache.org/dubbo-go/v3/remoting/getty.(*gettyRPCClient).addSession()"
	if got != want {
		t.Errorf("raceWhere = %q, want %q", got, want)
	}
}
