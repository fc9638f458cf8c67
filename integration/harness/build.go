package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Package paths of the sample commands SampleBinaries builds.
const (
	ProviderPkg = "github.com/dubboroute/dubboroute/samples/bookfacade/cmd/provider"
	ConsumerPkg = "github.com/dubboroute/dubboroute/samples/bookfacade/cmd/consumer"
)

// RaceEnv is the environment variable that turns -race off for the built
// binaries ("0"); by default they are built with -race.
const RaceEnv = "DUBBOROUTE_HARNESS_RACE"

// Binaries are the built sample commands.
type Binaries struct {
	// Dir holds the binaries; removed by Main.
	Dir string
	// Provider and Consumer are the paths of cmd/provider and cmd/consumer.
	Provider, Consumer string
	// Race reports whether they were built with -race.
	Race bool
	// BuildTime is how long the build took.
	BuildTime time.Duration
}

var (
	buildOnce sync.Once
	built     *Binaries
	buildErr  error
	buildDirs struct {
		sync.Mutex
		dirs []string
	}
)

// SampleBinaries builds the sample provider and consumer once per test
// binary (later calls return the same binaries) and fails t if that fails.
func SampleBinaries(t testing.TB) *Binaries {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dubboroute-harness-bin-")
		if err != nil {
			buildErr = fmt.Errorf("harness: build dir: %w", err)
			return
		}
		rememberDir(dir)
		race := os.Getenv(RaceEnv) != "0"
		begin := time.Now()
		if err := Build(dir, race, ProviderPkg, ConsumerPkg); err != nil {
			buildErr = err
			return
		}
		built = &Binaries{
			Dir: dir, Race: race, BuildTime: time.Since(begin),
			Provider: filepath.Join(dir, "provider"),
			Consumer: filepath.Join(dir, "consumer"),
		}
	})
	if buildErr != nil {
		t.Fatalf("build sample binaries: %v", buildErr)
	}
	return built
}

// Build runs `go build [-race] -o dir/ pkgs...` from the current directory
// (a test's package directory, inside the module). Each package's binary is
// dir/<last path element>.
func Build(dir string, race bool, pkgs ...string) error {
	goBin, err := goTool()
	if err != nil {
		return err
	}
	args := []string{"build"}
	if race {
		args = append(args, "-race")
	}
	args = append(args, "-o", dir+string(os.PathSeparator))
	args = append(args, pkgs...)
	cmd := exec.Command(goBin, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("harness: %s %s: %w\n%s", goBin, strings.Join(args, " "), err, out)
	}
	return nil
}

// goTool finds the go command on PATH (the one `go test` was run with, in
// the usual setup).
func goTool() (string, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("harness: go command not found on PATH: %w", err)
	}
	return p, nil
}

// RemoveAtExit makes Main remove dir after the tests ran (for build
// outputs that several tests of a binary share).
func RemoveAtExit(dir string) { rememberDir(dir) }

func rememberDir(dir string) {
	buildDirs.Lock()
	buildDirs.dirs = append(buildDirs.dirs, dir)
	buildDirs.Unlock()
}

// Main runs the tests and then removes the binaries SampleBinaries built.
// Use it as the whole TestMain:
//
//	func TestMain(m *testing.M) { harness.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	buildDirs.Lock()
	for _, d := range buildDirs.dirs {
		_ = os.RemoveAll(d)
	}
	buildDirs.Unlock()
	os.Exit(code)
}
