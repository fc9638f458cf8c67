package boundary

import (
	"bufio"
	"bytes"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The routing logic — router/..., rules/..., cluster/..., configurator/...
// and loadbalance/... (except each balancer's dubbo-go adapter, which is the
// glue) — decides eligible providers, picks and downgrades the way Java
// Dubbo does, and is proven on its own and through the Java oracle. It must
// not depend on how dubbo-go finds providers (registry), reads rules
// (config_center), talks to peers (protocol implementations, remoting) or
// is configured (config, global): those live in extension/... and
// directory/....
//
// The packages below, with everything they import transitively (tests
// excluded), may use exactly these dubbo-go packages: the URL and constants
// (common, common/constant, common/dubboutil) and the invoker, invocation
// and result interfaces (protocol/base, protocol/result). Nothing else;
// note that protocol/invocation is not allowed: it pulls in the triple
// protocol. A package that needs more belongs in extension/.
var (
	// logic are the package patterns checked.
	logic = []string{"./router/...", "./rules/...", "./cluster/...", "./configurator/...", "./loadbalance/..."}
	// glue are the packages among them that adapt to dubbo-go: not checked.
	glue = map[string]bool{
		"github.com/dubboroute/dubboroute/loadbalance/gray/dubbogo": true,
	}
	// allowed are the dubbo-go packages the logic may depend on.
	allowed = map[string]bool{
		"dubbo.apache.org/dubbo-go/v3/common":           true,
		"dubbo.apache.org/dubbo-go/v3/common/constant":  true,
		"dubbo.apache.org/dubbo-go/v3/common/dubboutil": true,
		"dubbo.apache.org/dubbo-go/v3/protocol/base":    true,
		"dubbo.apache.org/dubbo-go/v3/protocol/result":  true,
	}
	// forbidden are dubbo-go package prefixes named in the failure message
	// (the allowlist decides; this says which boundary was crossed).
	forbidden = []string{"registry", "config_center", "protocol", "remoting", "config", "global", "metadata", "cluster", "proxy", "filter"}
)

const dubbogo = "dubbo.apache.org/dubbo-go/v3"

// TestLogicDoesNotImportDubboGoPlumbing lists every logic package's
// transitive dependencies with go list and fails on a dubbo-go package
// outside the allowlist, naming the package that depends on it.
func TestLogicDoesNotImportDubboGoPlumbing(t *testing.T) {
	deps := logicDeps(t)
	if len(deps) < 8 {
		t.Fatalf("go list %v found %d packages: %v", logic, len(deps), deps)
	}
	for p, ds := range deps {
		for _, dep := range ds {
			if !strings.HasPrefix(dep, dubbogo+"/") || allowed[dep] {
				continue
			}
			area := strings.SplitN(strings.TrimPrefix(dep, dubbogo+"/"), "/", 2)[0]
			kind := "a dubbo-go package outside the allowlist"
			for _, f := range forbidden {
				if area == f {
					kind = "dubbo-go's " + f + " packages"
				}
			}
			t.Errorf("%s depends on %s (%s): routing logic must not; move the dependency into extension/", p, dep, kind)
		}
	}
}

// TestAllowlistIsUsed keeps the allowlist honest: every allowed package is
// in fact used by the logic (an unused entry would widen the boundary for
// nothing).
func TestAllowlistIsUsed(t *testing.T) {
	used := map[string]bool{}
	for _, ds := range logicDeps(t) {
		for _, dep := range ds {
			used[dep] = true
		}
	}
	var unused []string
	for a := range allowed {
		if !used[a] {
			unused = append(unused, a)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("allowed but not used by the logic (remove them from the allowlist): %v", unused)
	}
}

// logicDeps maps every checked logic package (glue excluded) to its
// transitive dependencies, from one go list run at the module root.
func logicDeps(t *testing.T) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list dependencies: %v", err)
	}
	root := run(t, ".", goTool, "list", "-m", "-f", "{{.Dir}}")
	if len(root) != 1 {
		t.Fatalf("module root: %v", root)
	}
	args := append([]string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}, logic...)
	out := map[string][]string{}
	for _, line := range run(t, root[0], goTool, args...) {
		f := strings.Fields(line)
		if glue[f[0]] {
			continue
		}
		out[f[0]] = f[1:]
	}
	return out
}

// run runs the go tool in dir and returns its output lines.
func run(t *testing.T, dir, goTool string, args ...string) []string {
	t.Helper()
	cmd := exec.Command(goTool, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
