package fault

import (
	"encoding/json"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/interop"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// javaSideConsumer is Java Dubbo 3.3.6's BookConsumer (integration/java)
// calling queryAll in a loop with retries 0 beside the Go consumer, so a
// test prints what a Java consumer of the same fleet lost in the same run.
// It pauses 4 ms after each call (about 200 calls/s, twice the Go
// consumer's load): back to back it made ~1,100 calls/s, which loaded the
// race-built Go providers and the 2-core machine more than the test is
// about.
type javaSideConsumer struct{ p *harness.Proc }

// javaOK is one successful call line of BookConsumer's output.
var javaOK = regexp.MustCompile(`"ok":true`)

// startJavaConsumer starts it on registry addr, a ZooKeeper host:port or
// nacos://host:port (application demo-consumer2), and waits until its
// first call succeeded. The jar is built by integration/java/build.sh
// (make test does it first).
func startJavaConsumer(t *testing.T, addr string) *javaSideConsumer {
	t.Helper()
	jar, err := interop.Jar()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms32m", "-Xmx256m", "-Djava.net.preferIPv4Stack=true",
		"-cp", jar, "io.github.dubboroute.it.BookConsumer"}
	args = append(args, javaRegistryArgs(addr)...)
	args = append(args, "--app", "demo-consumer2", "--calls", "10000000", "--retries", "0", "--timeout", "3000", "--wait-ms", "1500", "--pause-ms", "4", "--log", "warning")
	p := harness.Start(t, harness.ProcOptions{Name: "java-consumer", Path: "java", Args: args})
	if _, err := p.WaitLine(javaOK, harness.ReadyTimeout); err != nil {
		t.Fatalf("java consumer: %v", err)
	}
	return &javaSideConsumer{p: p}
}

// counts stops the Java consumer and counts its calls and failures by
// kind. Calls that failed because the consumer itself was stopping (its
// directory destroyed) are not counted.
func (j *javaSideConsumer) counts(t *testing.T) (calls, failed int, kinds map[string]int) {
	t.Helper()
	if err := j.p.Stop(10 * time.Second); err != nil {
		t.Errorf("java consumer: %v", err)
	}
	kinds = map[string]int{}
	for _, line := range strings.Split(j.p.Log(), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var c struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &c) != nil {
			continue // the last line, cut by the stop
		}
		if !c.OK && strings.Contains(c.Error, "already destroyed") {
			continue // its own shutdown
		}
		calls++
		if c.OK {
			continue
		}
		failed++
		kind := "other"
		switch {
		case strings.Contains(c.Error, "No provider available"):
			kind = "no provider available"
		case strings.Contains(c.Error, "Tried 1 times of the providers"):
			kind = "failed on the provider picked"
		}
		kinds[kind]++
	}
	return calls, failed, kinds
}

// javaRegistryArgs are the Java programs' registry flags for addr: a
// ZooKeeper host:port (--zk), or nacos://host:port (--nacos).
func javaRegistryArgs(addr string) []string {
	if hp, ok := strings.CutPrefix(addr, "nacos://"); ok {
		return []string{"--nacos", hp}
	}
	return []string{"--zk", addr}
}

// startJavaProvider starts Java Dubbo 3.3.6's BookProvider (the sample's
// interface, application demo-provider, interface-level registration) on
// ZooKeeper zkAddr and port, registering 127.0.0.1, with Dubbo's
// graceful shutdown wait (dubbo.service.shutdown.wait) set to wait, and
// waits until it is exported and registered.
func startJavaProvider(t *testing.T, zkAddr string, port int, wait time.Duration) *harness.Provider {
	t.Helper()
	jar, err := interop.Jar()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms32m", "-Xmx256m", "-Djava.net.preferIPv4Stack=true",
		"-Ddubbo.service.shutdown.wait=" + strconv.FormatInt(wait.Milliseconds(), 10),
		"-cp", jar, "io.github.dubboroute.it.BookProvider", "--zk", zkAddr, "--port", strconv.Itoa(port),
		"--app", api.ProviderApp, "--register-host", harness.Host, "--log", "warning"}
	p := harness.Start(t, harness.ProcOptions{Name: "java-provider:" + strconv.Itoa(port), Path: "java", Args: args})
	if _, err := p.WaitLine(regexp.MustCompile(`(?m)^READY \d+$`), 2*harness.ReadyTimeout); err != nil {
		t.Fatalf("java provider: %v", err)
	}
	// Stopped before the test's ZooKeeper (cleanups run last-in first-out).
	t.Cleanup(func() { _ = p.Stop(10 * time.Second) })
	return &harness.Provider{Proc: p, Port: port, Addr: net.JoinHostPort(harness.Host, strconv.Itoa(port))}
}
