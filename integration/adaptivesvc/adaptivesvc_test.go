package adaptivesvc

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/adaptivesvc/internal/capfleet"
	"github.com/dubboroute/dubboroute/integration/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

const pkg = "github.com/dubboroute/dubboroute/integration/adaptivesvc/internal/"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds the provider and both consumers once per test binary.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "dubboroute-adaptivesvc-bin-")
		if buildErr != nil {
			return
		}
		harness.RemoveAtExit(binDir)
		buildErr = harness.Build(binDir, os.Getenv(harness.RaceEnv) != "0", pkg+"capprovider", pkg+"capconsumer", pkg+"capconsumerdr")
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return binDir
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

var countsRE = regexp.MustCompile(`(?m)^COUNTS (.*)$`)

// consume runs one consumer binary to its end and returns its counts.
func consume(t *testing.T, bin, url string, n int) capfleet.Counts {
	t.Helper()
	p := harness.Start(t, harness.ProcOptions{Name: filepath.Base(bin), Path: bin, Args: []string{"-url", url, "-n", strconv.Itoa(n)}})
	m, err := p.WaitLine(countsRE, 3*time.Minute)
	if err != nil {
		t.Fatalf("%s: %v\n%s", p.Name(), err, p.LogTail(20))
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c, err := capfleet.ParseCounts(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAdaptiveServiceKept: cluster adaptiveService with p2c routes by the
// providers' reported capacity with the dubboroute import as with dubbo-go
// alone. Two providers report 100 and 1; dubbo-go's p2c sends a call to a
// provider it has no capacity for yet, then always to the larger capacity:
// of n calls the low-capacity provider serves exactly one, in either order
// of the provider list. (Before the import kept dubbo-go's p2c, it ran
// Java's adaptive, which reads no capacity: 21 and 19 of 40, measured.)
func TestAdaptiveServiceKept(t *testing.T) {
	dir := binaries(t)
	high, low := freePort(t), freePort(t)
	for _, pv := range []struct{ port, capacity int }{{high, 100}, {low, 1}} {
		p := harness.Start(t, harness.ProcOptions{Name: "capprovider:" + strconv.Itoa(pv.port), Path: filepath.Join(dir, "capprovider"),
			Args: []string{"-port", strconv.Itoa(pv.port), "-capacity", strconv.Itoa(pv.capacity)}})
		if _, err := p.WaitLog(60*time.Second, "READY"); err != nil {
			t.Fatalf("%s: %v\n%s", p.Name(), err, p.LogTail(20))
		}
	}
	const n = 40
	hk, lk := strconv.Itoa(high), strconv.Itoa(low)
	for _, order := range [][2]int{{high, low}, {low, high}} {
		url := fmt.Sprintf("dubbo://127.0.0.1:%d;dubbo://127.0.0.1:%d", order[0], order[1])
		alone := consume(t, filepath.Join(dir, "capconsumer"), url, n)
		with := consume(t, filepath.Join(dir, "capconsumerdr"), url, n)
		t.Logf("%s: dubbo-go alone %v, with dubboroute %v", url, alone, with)
		if alone[lk] != 1 || alone[hk] != n-1 || alone["err"] != 0 {
			t.Errorf("%s: dubbo-go alone served %v; want %s=1 (the probe), %s=%d", url, alone, lk, hk, n-1)
		}
		if with.String() != alone.String() {
			t.Errorf("%s: with dubboroute %v, dubbo-go alone %v", url, with, alone)
		}
	}
}
