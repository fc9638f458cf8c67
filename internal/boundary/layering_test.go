package boundary

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The import layering of the module, enforced (as CockroachDB's
// VerifyNoImports does for its packages). Module paths below are relative
// to the module path.
//
// Across the module, from the bottom up:
//
//	logic      router/..., rules/..., cluster/..., configurator/..., loadbalance/...,
//	           internal/enum, internal/javastr, internal/javayaml, internal/number, internal/outcome, lanetrust
//	directory  directory/...: standalone clients of ZooKeeper and Nacos (and the
//	           in-process memory registry), over router's URL at most
//	extension  extension/...: the dubbo-go glue
//	apps       console, internal/cli, cmd/..., samples/..., integration/...
//
// A layer imports only the layers below it (logic: none of the others).
//
// Inside extension/, each package has a rank (extensionRank) and imports
// only extension packages of a lower rank: the seams and shared state at
// the bottom, the sources that implement the seams above them, then the
// rule store and lanes, the registry side, the consumer and provider sides,
// and the package applications import on top.
//
// Two seams more: the consumer side and the rule store read every rule and
// configurator through extension/source (they import no config-center or
// registry client, nor a source's implementation), and directory/memory is
// linked only by the demo and by tests (no other package depends on it).
const module = "github.com/dubboroute/dubboroute/"

// layers are the module's layers by path prefix, lowest first.
var layers = []struct {
	name     string
	prefixes []string
}{
	{"logic", []string{"router", "rules", "cluster", "configurator", "loadbalance", "internal/enum", "internal/javastr", "internal/javayaml", "internal/number", "internal/outcome", "lanetrust"}},
	{"directory", []string{"directory"}},
	{"extension", []string{"extension"}},
	{"apps", []string{"console", "internal/cli", "internal/boundary", "cmd", "samples", "integration"}},
}

// extensionRank is the rank of every package under extension/ (a new
// package must be given one). Equal ranks do not import each other.
var extensionRank = map[string]int{
	// Seams and shared state: what the sources plug into, the ZooKeeper
	// clients, the gray balancer, metrics, the balancers.
	"extension/source":            0,
	"extension/internal/shared":   0,
	"extension/internal/zkclient": 0,
	"extension/internal/metrics":  0,
	"extension/balancers":         0,
	// The sources (ZooKeeper's, Nacos's), ZooKeeper connection settings,
	// the strategies over the balancers.
	"extension/zookeeper":   1,
	"extension/nacosrules":  1,
	"extension/nacosfollow": 1,
	"extension/zkconn":      1,
	"extension/strategies":  1,
	// The rule store (over extension/source) and lanes.
	"extension/internal/rulestore": 2,
	"extension/lane":               2,
	// The registry side.
	"extension/discovery": 3,
	// The consumer and provider sides.
	"extension/consumer": 4,
	"extension/provider": 4,
	// What applications import.
	"extension": 5,
}

// throughSource are the packages that read rules and configurators, and the
// import prefixes they must not use: they read through extension/source.
var throughSource = map[string][]string{
	"extension/consumer":           {"directory/", "extension/internal/zkclient", "extension/zookeeper", "extension/nacosrules", "extension/nacosfollow", "extension/zkconn"},
	"extension/internal/rulestore": {"directory/", "extension/internal/zkclient", "extension/zookeeper", "extension/nacosrules", "extension/nacosfollow", "extension/zkconn"},
}

// memoryUsers may depend on directory/memory (besides tests).
func memoryUser(pkg string) bool {
	return pkg == "directory/memory" || pkg == "samples/bookfacade/cmd/demo" || strings.HasPrefix(pkg, "integration/")
}

type pkgInfo struct {
	imports, deps []string // module-relative, module packages only
}

// modulePackages lists every package of the module (tests excluded) with
// its direct imports and transitive dependencies inside the module.
func modulePackages(t *testing.T) map[string]pkgInfo {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list imports: %v", err)
	}
	root := run(t, ".", goTool, "list", "-m", "-f", "{{.Dir}}")
	if len(root) != 1 {
		t.Fatalf("module root: %v", root)
	}
	lines := run(t, root[0], goTool, "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...")
	own := func(list string) []string {
		var out []string
		for _, p := range strings.Fields(list) {
			if strings.HasPrefix(p, module) {
				out = append(out, strings.TrimPrefix(p, module))
			}
		}
		return out
	}
	pkgs := map[string]pkgInfo{}
	for _, l := range lines {
		f := strings.SplitN(l, "|", 3)
		if len(f) != 3 {
			t.Fatalf("go list line %q", l)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(f[0], module), strings.TrimSuffix(module, "/"))
		if name == "" {
			name = "."
		}
		pkgs[name] = pkgInfo{imports: own(f[1]), deps: own(f[2])}
	}
	return pkgs
}

// layerOf is the index of pkg's layer, -1 if none.
func layerOf(pkg string) int {
	for i, l := range layers {
		for _, p := range l.prefixes {
			if pkg == p || strings.HasPrefix(pkg, p+"/") {
				return i
			}
		}
	}
	return -1
}

// TestLayering checks the module's layers, the ranks inside extension/,
// the rule reads through extension/source and who links directory/memory.
func TestLayering(t *testing.T) {
	pkgs := modulePackages(t)
	if len(pkgs) < 40 || len(pkgs["extension/consumer"].imports) == 0 {
		t.Fatalf("go list found %d packages (extension/consumer imports %v)", len(pkgs), pkgs["extension/consumer"].imports)
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		info := pkgs[p]
		lp := layerOf(p)
		if lp < 0 {
			t.Errorf("%s is in no layer: add it to layers in %s", p, "internal/boundary/layering_test.go")
			continue
		}
		for _, imp := range info.imports {
			if li := layerOf(imp); li > lp {
				t.Errorf("%s (%s) imports %s (%s): a layer imports only the layers below it", p, layers[lp].name, imp, layers[li].name)
			}
		}
		if layers[lp].name == "extension" {
			rp, ok := extensionRank[p]
			if !ok {
				t.Errorf("%s has no rank in extensionRank: place it in the layering", p)
				continue
			}
			for _, imp := range info.imports {
				ri, ok := extensionRank[imp]
				if ok && ri >= rp {
					t.Errorf("%s (rank %d) imports %s (rank %d): an extension package imports only lower ranks", p, rp, imp, ri)
				}
			}
		}
		for _, forbidden := range throughSource[p] {
			for _, imp := range info.imports {
				if imp == forbidden || strings.HasPrefix(imp, forbidden) {
					t.Errorf("%s imports %s: it reads rules and configurators through extension/source only", p, imp)
				}
			}
		}
		if !memoryUser(p) {
			for _, d := range info.deps {
				if d == "directory/memory" {
					t.Errorf("%s depends on directory/memory: only the demo and tests may link it", p)
				}
			}
		}
	}
	for p := range extensionRank {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("extensionRank names %s, which go list did not find", p)
		}
	}
	for p := range throughSource {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("throughSource names %s, which go list did not find", p)
		}
	}
	if !contains(pkgs["samples/bookfacade/cmd/demo"].deps, "directory/memory") {
		t.Error("the demo does not link directory/memory: the memoryUser rule checks nothing")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
