package quickstart

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

func TestMain(m *testing.M) { harness.Main(m) }

// The README's own address; the test swaps in its private ZooKeeper's.
const readmeZK = "127.0.0.1:2181"

// calls is how many queryAll calls the README's program makes.
const calls = 10

// readme returns the fenced block that follows the marker comment
// `<!-- quickstart:<name>` in the README.
func readme(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- quickstart:"+name)
	if i < 0 {
		t.Fatalf("README.md has no <!-- quickstart:%s marker", name)
	}
	s = s[i:]
	open := strings.Index(s, "```"+name+"\n")
	if open < 0 {
		t.Fatalf("README.md: no ```%s block after the quickstart:%s marker", name, name)
	}
	s = s[open+len("```"+name+"\n"):]
	end := strings.Index(s, "\n```")
	if end < 0 {
		t.Fatalf("README.md: the quickstart %s block is not closed", name)
	}
	return s[:end+1]
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// buildQuickstart writes the README's program into a module of its own
// (its go.mod requires dubboroute, replaced by this checkout, with this
// checkout's requirements so that the build needs no download) and builds
// it once with -race.
func buildQuickstart(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root := repoRoot(t)
		dir, err := os.MkdirTemp("", "dubboroute-quickstart-")
		if err != nil {
			buildErr = err
			return
		}
		harness.RemoveAtExit(dir)
		gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err != nil {
			buildErr = err
			return
		}
		mod := strings.Replace(string(gomod), "module github.com/dubboroute/dubboroute", "module quickstart", 1) +
			"\nrequire github.com/dubboroute/dubboroute v0.0.0\n\nreplace github.com/dubboroute/dubboroute => " + root + "\n"
		gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
		if err != nil {
			buildErr = err
			return
		}
		for name, content := range map[string]string{"go.mod": mod, "go.sum": string(gosum), "main.go": readme(t, "go")} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				buildErr = err
				return
			}
		}
		bin := filepath.Join(dir, "quickstart")
		cmd := exec.Command("go", "build", "-race", "-o", bin, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build of the README's quickstart program: %w\n%s", err, out)
			return
		}
		built = bin
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// run runs the quickstart program with yaml as its dubbogo.yaml and
// returns its output.
func run(t *testing.T, bin, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "dubbogo.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quickstart program: %v\n%s", err, out)
	}
	return string(out)
}

// result is what the README's program printed.
type result struct {
	served   []int    // the serving port of every successful queryAll
	errs     []string // the error of every failed queryAll
	explains []string // one trace per binding
	routed   []string // every "routed to" address
}

var servedRe = regexp.MustCompile(`served-by-(\d+)`)

func parse(out string) result {
	var r result
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "queryAll:"):
			if strings.HasSuffix(line, " <nil>") {
				if m := servedRe.FindStringSubmatch(line); m != nil {
					p, _ := strconv.Atoi(m[1])
					r.served = append(r.served, p)
					continue
				}
			}
			r.errs = append(r.errs, line)
		case strings.HasPrefix(line, "explain:"):
			r.explains = append(r.explains, strings.TrimPrefix(line, "explain: "))
		case strings.HasPrefix(line, "  routed to "):
			r.routed = append(r.routed, strings.TrimPrefix(line, "  routed to "))
		}
	}
	return r
}

// TestQuickstartRegistryModes follows the README's quickstart against two
// real providers on a private ZooKeeper with the seeds' service rule
// (`method=queryAll => address=*:<port of p1>`, force) in force:
//
//   - with registry-type interface and all, every call reaches p1, and the
//     explain trace of every binding routes real provider addresses only (with
//     all, dubbo-go joins one invoker per registry; the chain must not route
//     that list, whose addresses are ZooKeeper's);
//   - with the reference's protocol line removed (dubbo-go's default tri),
//     every call fails with an error that names both providers as dropped
//     before routing and why;
//   - with a group the providers do not have, every call fails with an error
//     that says which group, version and protocol the registry delivered no
//     provider of (dubbo-go's registry drops the others before any listener).
//
// fixture is a private ZooKeeper with two interface-level providers (the
// sample's, as Java 2.x providers register) and the seeds' service rule
// routing queryAll to p1 only (force), plus the built quickstart program and
// the README's YAML pointed at that ZooKeeper.
type fixture struct {
	server *zk.Server
	bin    string
	p1, p2 *harness.Provider
	yaml   string
}

func newFixture(t *testing.T) *fixture { return newFixtureOf(t, "interface") }

// newFixtureOf is newFixture with providers of the given registry-type.
func newFixtureOf(t *testing.T, registryType string) *fixture {
	t.Helper()
	f := &fixture{server: zk.Start(t)}
	registry := "zookeeper://" + f.server.Addr()
	bins := harness.SampleBinaries(t)
	f.bin = buildQuickstart(t)
	rules := harness.DialRules(t, f.server.Addr())
	f.p1 = harness.StartProvider(t, bins, harness.ProviderOptions{Registry: registry, RegistryType: registryType})
	f.p2 = harness.StartProvider(t, bins, harness.ProviderOptions{Registry: registry, RegistryType: registryType})
	rule := "scope: service\nforce: true\nenabled: true\nkey: " + api.Interface + "\nconditions:\n" +
		"  - method=queryAll => address=*:" + strconv.Itoa(f.p1.Port) + "\n"
	if err := rules.Put(api.ServiceRuleKey, rule); err != nil {
		t.Fatal(err)
	}
	base := readme(t, "yaml")
	if !strings.Contains(base, readmeZK) || !strings.Contains(base, "registry-type: interface") || !strings.Contains(base, "protocol: dubbo") {
		t.Fatalf("the README's quickstart YAML no longer has the address, registry-type or protocol lines this test edits:\n%s", base)
	}
	f.yaml = strings.ReplaceAll(base, readmeZK, f.server.Addr())
	return f
}

// expectRouted checks that every call was served by p1, that the program
// printed bindings explain lines, and that every routed address is p1's.
func (f *fixture) expectRouted(t *testing.T, out string, bindings int) {
	t.Helper()
	r := parse(out)
	if len(r.errs) > 0 || len(r.served) != calls {
		t.Fatalf("want %d calls served, got %d served and errors %q\n%s", calls, len(r.served), r.errs, out)
	}
	for _, p := range r.served {
		if p != f.p1.Port {
			t.Fatalf("a queryAll was served by :%d; the rule sends every one to :%d\n%s", p, f.p1.Port, out)
		}
	}
	if len(r.explains) != bindings {
		t.Fatalf("want %d routed provider lists (bindings), got %d: %q\n%s", bindings, len(r.explains), r.explains, out)
	}
	if len(r.routed) == 0 {
		t.Fatalf("no binding routed queryAll anywhere\n%s", out)
	}
	for _, a := range r.routed {
		if a != f.p1.Addr {
			t.Fatalf("a binding routed queryAll to %s (ZooKeeper is %s, p1 %s, p2 %s): only provider p1 may be routed\n%s",
				a, f.server.Addr(), f.p1.Addr, f.p2.Addr, out)
		}
	}
	for _, e := range r.explains {
		if strings.Contains(e, f.server.Addr()) {
			t.Fatalf("a trace names the registry %s: %s", f.server.Addr(), e)
		}
	}
}

// TestQuickstartDefaultRegistryType is the README's quickstart with the
// registry-type line removed: dubbo-go's default is application-level
// discovery, which alone finds none of these interface-level providers.
// dubboroute does what a Java 3 consumer does by default (APPLICATION_FIRST):
// it subscribes both levels and calls through the interface-level providers
// while no application-level one exists, routed by the seed rule.
func TestQuickstartDefaultRegistryType(t *testing.T) {
	f := newFixture(t)
	var kept []string
	for _, l := range strings.Split(f.yaml, "\n") {
		if !strings.Contains(l, "registry-type:") {
			kept = append(kept, l)
		}
	}
	out := run(t, f.bin, strings.Join(kept, "\n"))
	f.expectRouted(t, out, 2)

	t.Run("FORCE_APPLICATION", func(t *testing.T) {
		// migration.step FORCE_APPLICATION is dubbo-go's own behaviour:
		// no provider, and the error says what was asked for.
		yaml := strings.Replace(strings.Join(kept, "\n"), "loadbalance: gray", "loadbalance: gray\n        params: { migration.step: FORCE_APPLICATION }", 1)
		r := parse(run(t, f.bin, yaml))
		if len(r.served) != 0 || len(r.errs) != calls {
			t.Fatalf("FORCE_APPLICATION against interface-level providers: want %d failed calls, got %d served, %d failed", calls, len(r.served), len(r.errs))
		}
		if !strings.Contains(r.errs[0], "the registry delivered no provider of "+api.Interface) {
			t.Fatalf("the no-provider error does not say what was asked for: %s", r.errs[0])
		}
	})
}

// TestQuickstartApplicationLevel: providers registered application-level
// only (registry-type service), the README's consumer with its
// registry-type line removed: the application-level providers are found and
// routed by the seed rule.
func TestQuickstartApplicationLevel(t *testing.T) {
	f := newFixtureOf(t, "service")
	var kept []string
	for _, l := range strings.Split(f.yaml, "\n") {
		if !strings.Contains(l, "registry-type:") {
			kept = append(kept, l)
		}
	}
	out := run(t, f.bin, strings.Join(kept, "\n"))
	f.expectRouted(t, out, 2)
}

func TestQuickstartRegistryModes(t *testing.T) {
	f := newFixture(t)
	bin, p1, p2, base := f.bin, f.p1, f.p2, f.yaml

	for _, mode := range []struct {
		registryType string
		bindings     int // directories dubbo-go builds: one per registry kind
	}{{"interface", 1}, {"all", 2}} {
		t.Run("registry-type="+mode.registryType, func(t *testing.T) {
			yaml := strings.Replace(base, "registry-type: interface", "registry-type: "+mode.registryType, 1)
			f.expectRouted(t, run(t, bin, yaml), mode.bindings)
		})
	}

	t.Run("protocol-line-removed", func(t *testing.T) {
		lines := strings.Split(base, "\n")
		kept := lines[:0]
		for _, l := range lines {
			if !strings.Contains(l, "protocol: dubbo") {
				kept = append(kept, l)
			}
		}
		out := run(t, bin, strings.Join(kept, "\n"))
		r := parse(out)
		if len(r.served) != 0 || len(r.errs) != calls {
			t.Fatalf("with the reference on tri, want %d failed calls, got %d served and %d failed\n%s", calls, len(r.served), len(r.errs), out)
		}
		for _, e := range r.errs {
			for _, want := range []string{
				"2 provider(s) dropped before routing",
				p1.Addr + ` (protocol "dubbo", the reference wants "tri")`,
				p2.Addr + ` (protocol "dubbo", the reference wants "tri")`,
			} {
				if !strings.Contains(e, want) {
					t.Fatalf("the no-provider error does not say %q:\n%s", want, e)
				}
			}
		}
	})

	t.Run("group-mismatch", func(t *testing.T) {
		yaml := strings.Replace(base, "protocol: dubbo", "protocol: dubbo\n        group: canary", 1)
		out := run(t, bin, yaml)
		r := parse(out)
		if len(r.served) != 0 || len(r.errs) != calls {
			t.Fatalf("with group canary, want %d failed calls, got %d served and %d failed\n%s", calls, len(r.served), len(r.errs), out)
		}
		want := "the registry delivered no provider of " + api.Interface + ` with group "canary", version "", protocol dubbo`
		for _, e := range r.errs {
			if !strings.Contains(e, want) {
				t.Fatalf("the no-provider error does not say %q:\n%s", want, e)
			}
		}
	})
}
