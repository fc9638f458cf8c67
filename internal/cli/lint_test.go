package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusFiles lists the rule files of one corpus directory (providers.txt
// is the provider list for that directory, not a rule).
func corpusFiles(t *testing.T, dir string) (rules []string, providers string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "golden.txt":
		case "providers.txt":
			providers = filepath.Join(dir, e.Name())
		default:
			rules = append(rules, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(rules)
	return rules, providers
}

// TestLintGolden lints every corpus directory (one per finding code, plus
// good/) and compares the human output and exit status with golden.txt.
func TestLintGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/lint/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no lint corpus: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rules, providers := corpusFiles(t, dir)
			args := append([]string{"lint"}, rules...)
			if providers != "" {
				args = append(args, "--providers", providers)
			}
			out, errOut, code := run(t, "", args...)
			if errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
			golden(t, filepath.Join(dir, "golden.txt"), fmt.Sprintf("%sexit %d\n", out, code))
		})
	}
}

// TestLintCorpusCoversCodes: every finding code has a corpus directory that
// produces it, with the exit status its severity implies; good/ is clean.
func TestLintCorpusCoversCodes(t *testing.T) {
	// DR199 is the fallback for a future router/condition finding code;
	// DR201 needs a hostname pattern that fails to resolve (DNS).
	unreachable := map[string]bool{"DR199": true, "DR201": true}
	for _, c := range Codes() {
		if unreachable[c.ID] {
			continue
		}
		dir := filepath.Join("testdata/lint", c.ID)
		rules, providers := corpusFiles(t, dir)
		args := append([]string{"lint", "--json"}, rules...)
		if providers != "" {
			args = append(args, "--providers", providers)
		}
		out, _, code := run(t, "", args...)
		var res struct {
			Files []LintResult `json:"files"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: lint --json output is not JSON: %v\n%s", c.ID, err, out)
		}
		found := false
		for _, f := range res.Files {
			for _, fd := range f.Findings {
				if fd.Code == c.ID {
					found = true
					if fd.Severity != c.Severity || fd.Hint != c.Hint || fd.Name != c.Name {
						t.Errorf("%s: finding %+v does not carry the code's severity/name/hint", c.ID, fd)
					}
					if fd.File == "" || fd.Message == "" {
						t.Errorf("%s: finding without file or message: %+v", c.ID, fd)
					}
				}
			}
		}
		if !found {
			t.Errorf("%s: corpus %s does not produce it:\n%s", c.ID, dir, out)
		}
		wantCode := ExitFail
		if c.Severity == SevInfo {
			wantCode = ExitOK
		}
		if code != wantCode {
			t.Errorf("%s (%s): exit %d, want %d", c.ID, c.Severity, code, wantCode)
		}
	}
	rules, _ := corpusFiles(t, "testdata/lint/good")
	out, _, code := run(t, "", append([]string{"lint"}, rules...)...)
	if code != ExitOK || strings.Contains(out, " DR") {
		t.Fatalf("good rules: exit %d, output:\n%s", code, out)
	}
}

func TestLintLinesAndHints(t *testing.T) {
	out, _, code := run(t, "", "lint", "testdata/lint/DR104/demo-consumer.condition-router")
	if code != ExitFail {
		t.Fatalf("exit %d, want 1", code)
	}
	want := "testdata/lint/DR104/demo-consumer.condition-router:2: warning DR104 whitespace-separator: condition #0:"
	if !strings.HasPrefix(out, want) {
		t.Fatalf("first line does not start with %q:\n%s", want, out)
	}
	if !strings.Contains(out, "\n    fix: join a key and its value with '='") {
		t.Fatalf("no fix hint line:\n%s", out)
	}
}

func TestLintStdinAndKey(t *testing.T) {
	rule := "conditions:\n  - => host = 1.2.3.4\n"
	_, errOut, code := run(t, rule, "lint", "-")
	if code != ExitFail || !strings.Contains(errOut, "stdin: no key: pass --key") {
		t.Fatalf("stdin without --key: exit %d, stderr %q", code, errOut)
	}
	out, _, code := run(t, rule, "lint", "--key", "com.foo.Bar::.condition-router", "-")
	if code != ExitOK || !strings.HasPrefix(out, "<stdin>: ok (condition rule v3.0") {
		t.Fatalf("stdin with --key: exit %d, out %q", code, out)
	}
	// The key decides the kind: the same text as a tag rule is a tag rule
	// without tags.
	out, _, code = run(t, rule, "lint", "--key", "demo-provider.tag-router", "-")
	if code != ExitFail || !strings.Contains(out, "DR202") {
		t.Fatalf("as a tag rule: exit %d, out %q", code, out)
	}
}

func TestLintBadInput(t *testing.T) {
	_, errOut, code := run(t, "", "lint", "testdata/does-not-exist.condition-router")
	if code != ExitFail || !strings.Contains(errOut, "does-not-exist.condition-router") || strings.Count(errOut, "\n") != 1 {
		t.Fatalf("missing file: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code = run(t, "", "lint"); code != ExitUsage || !strings.Contains(errOut, "no rule file") {
		t.Fatalf("no file: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code = run(t, "", "lint", "--bogus", "x"); code != ExitUsage || !strings.Contains(errOut, "bogus") {
		t.Fatalf("bad flag: exit %d, stderr %q", code, errOut)
	}
	if _, _, code = run(t, "", "lint", "--providers", "testdata/nope.txt", "testdata/lint/good/demo-provider.tag-router"); code != ExitFail {
		t.Fatalf("missing providers file: exit %d", code)
	}
}

func TestHelpEverywhere(t *testing.T) {
	out, _, code := run(t, "", "--help")
	if code != ExitOK || !strings.Contains(out, "Commands:") {
		t.Fatalf("--help: exit %d, %q", code, out)
	}
	for _, c := range commands() {
		out, errOut, code := run(t, "", c.name, "--help")
		if code != ExitOK || !strings.HasPrefix(out, "Usage: dubboroute "+c.name) || errOut != "" {
			t.Errorf("%s --help: exit %d, out %q, err %q", c.name, code, out, errOut)
		}
	}
	if _, errOut, code := run(t, "", "frobnicate"); code != ExitUsage || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Fatalf("unknown command: exit %d, %q", code, errOut)
	}
	if _, _, code := run(t, ""); code != ExitUsage {
		t.Fatalf("no command: exit %d", code)
	}
}

func TestLintCodesList(t *testing.T) {
	out, _, code := run(t, "", "lint", "--codes", "--json")
	var cs []Code
	if code != ExitOK || json.Unmarshal([]byte(out), &cs) != nil || len(cs) != len(codes) {
		t.Fatalf("--codes --json: exit %d, %d codes, out %q", code, len(cs), out)
	}
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.ID] || seen[c.Name] {
			t.Errorf("duplicate code or name %s %s", c.ID, c.Name)
		}
		seen[c.ID], seen[c.Name] = true, true
		if c.Hint == "" || (c.Severity != SevError && c.Severity != SevWarning && c.Severity != SevInfo) {
			t.Errorf("code %+v lacks a hint or a severity", c)
		}
	}
}
