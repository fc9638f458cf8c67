package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
)

// javaSession is one long-lived Java BookFacade consumer (BookConsumerSession:
// Java Dubbo 3.3.6's own registry directory, configurators and balancers)
// driven over its stdin: one JVM for a whole test instead of one per batch
// of calls.
type javaSession struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

// javaInvoker is one invoker of the Java consumer's directory: its port and
// the parameters its URL reads after the configurators.
type javaInvoker struct {
	Port   string            `json:"port"`
	Params map[string]string `json:"params"`
}

// startJavaSession starts the session consumer for application app and
// waits until its reference is built; it is stopped when t ends.
func startJavaSession(t *testing.T, zkAddr, app string) *javaSession {
	t.Helper()
	jar, err := Jar()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string(nil), javaPeerOpts...), "-cp", jar, "io.github.dubboroute.it.BookConsumerSession", "--zk", zkAddr, "--app", app)
	cmd := exec.Command("java", args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &javaSession{t: t, in: in, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		_, _ = io.WriteString(in, "quit\n")
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if l := s.next(120 * time.Second); l != `{"ready":true}` {
		t.Fatalf("java session: %q instead of ready\n%s", l, tail(stderr.String()))
	}
	return s
}

func (s *javaSession) next(timeout time.Duration) string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("java session ended")
		}
		return l
	case <-time.After(timeout):
		s.t.Fatalf("java session: no answer within %v", timeout)
	}
	return ""
}

func (s *javaSession) send(cmd string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, cmd+"\n"); err != nil {
		s.t.Fatalf("java session: %v", err)
	}
}

// state returns the Java consumer's invokers now.
func (s *javaSession) state() []javaInvoker {
	s.t.Helper()
	s.send("state")
	var st struct {
		Invokers []javaInvoker `json:"invokers"`
	}
	if l := s.next(30 * time.Second); json.Unmarshal([]byte(l), &st) != nil {
		s.t.Fatalf("java session state: %q", l)
	}
	return st.Invokers
}

// await waits until the Java consumer's invokers satisfy ok (a
// configurator change reaches its directory asynchronously).
func (s *javaSession) await(what string, ok func([]javaInvoker) bool) {
	s.t.Helper()
	var last []javaInvoker
	if err := harness.Eventually(30*time.Second, func() error {
		last = s.state()
		if ok(last) {
			return nil
		}
		return fmt.Errorf("java consumer's invokers %+v", last)
	}); err != nil {
		s.t.Fatalf("waiting for the Java consumer to see %s: %v", what, err)
	}
}

// calls makes n calls of method (queryAll, or queryByName with arg).
func (s *javaSession) calls(n int, method, arg string) []javaCall {
	s.t.Helper()
	if arg == "" {
		arg = "-"
	}
	s.send(fmt.Sprintf("calls %d %s %s", n, method, arg))
	out := make([]javaCall, 0, n)
	for {
		l := s.next(120 * time.Second)
		if l == `{"end":true}` {
			return out
		}
		var c javaCall
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			s.t.Fatalf("java session call line %q: %v", l, err)
		}
		out = append(out, c)
	}
}

// invokerPorts are the ports of invokers.
func invokerPorts(invs []javaInvoker) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, i := range invs {
		out[i.Port] = i.Params
	}
	return out
}
