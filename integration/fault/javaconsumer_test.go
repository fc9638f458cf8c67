package fault

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/interop"
)

// javaSideConsumer is Java Dubbo 3.3.6's BookConsumer (integration/java)
// calling queryAll in a loop with retries 0 beside the Go consumer, so a
// test prints what a Java consumer of the same fleet lost in the same run.
type javaSideConsumer struct{ p *harness.Proc }

// javaOK is one successful call line of BookConsumer's output.
var javaOK = regexp.MustCompile(`"ok":true`)

// startJavaConsumer starts it on ZooKeeper zkAddr (application
// demo-consumer2) and waits until its first call succeeded. The jar is
// built by integration/java/build.sh (make test does it first).
func startJavaConsumer(t *testing.T, zkAddr string) *javaSideConsumer {
	t.Helper()
	jar, err := interop.Jar()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms32m", "-Xmx256m", "-Djava.net.preferIPv4Stack=true",
		"-cp", jar, "io.github.dubboroute.it.BookConsumer", "--zk", zkAddr, "--app", "demo-consumer2",
		"--calls", "10000000", "--retries", "0", "--timeout", "3000", "--wait-ms", "1500", "--log", "warning"}
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
