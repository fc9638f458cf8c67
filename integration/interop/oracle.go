package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/dubboroute/dubboroute/internal/cli"
)

// JavaDir is integration/java, found from this source file.
func JavaDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "java")
}

// Jar returns the path of the built Java interop jar, or an error saying how
// to build it.
func Jar() (string, error) {
	jar := filepath.Join(JavaDir(), "target", "dubboroute-java-it.jar")
	if _, err := os.Stat(jar); err != nil {
		return "", fmt.Errorf("java interop jar %s missing: run `make test` or `bash integration/java/build.sh` first: %w", jar, err)
	}
	if _, err := os.Stat(filepath.Join(JavaDir(), "target", "lib")); err != nil {
		return "", fmt.Errorf("java interop dependencies missing: run `make test` or `bash integration/java/build.sh` first: %w", err)
	}
	return jar, nil
}

// RunOracle streams cases through one JVM running the Java oracle (Dubbo's
// own routers) and returns its answer lines, in input order.
func RunOracle(ctx context.Context, cases []Case) ([]json.RawMessage, error) {
	return RunOracleArgs(ctx, cases)
}

// RunOracleArgs is RunOracle with more oracle arguments (e.g.
// --client-attachments).
func RunOracleArgs(ctx context.Context, cases []Case, extra ...string) ([]json.RawMessage, error) {
	jar, err := Jar()
	if err != nil {
		return nil, err
	}
	args := append([]string{"-Xmx512m", "-XX:+UseSerialGC", "-cp", jar,
		"io.github.dubboroute.it.Oracle", "--destinations", "--log", "off"}, extra...)
	cmd := exec.CommandContext(ctx, "java", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("oracle stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("oracle stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start java oracle: %w", err)
	}
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(stdin)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range cases {
			if err := enc.Encode(&cases[i]); err != nil {
				werr <- fmt.Errorf("write case %s: %w", cases[i].ID, err)
				stdin.Close()
				return
			}
		}
		if err := w.Flush(); err != nil {
			werr <- fmt.Errorf("write cases: %w", err)
		}
		werr <- stdin.Close()
	}()
	out, rerr := readLines(stdout)
	if err := <-werr; err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("java oracle: %w (stderr: %s)", err, tail(stderr.String()))
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("java oracle: %w (stderr: %s)", err, tail(stderr.String()))
	}
	if rerr != nil {
		return nil, fmt.Errorf("read java oracle output: %w", rerr)
	}
	if len(out) != len(cases) {
		return nil, fmt.Errorf("java oracle answered %d of %d cases (stderr: %s)", len(out), len(cases), tail(stderr.String()))
	}
	return out, nil
}

// routeArgs are the arguments of the route command both RunRoute and
// RunRouteBinary run: the batch contract shared with the Java oracle.
var routeArgs = []string{"route", "--batch", "--destinations", "--no-trace"}

// RunRoute evaluates cases with `dubboroute route --batch --destinations`,
// in process, and returns its answer lines in input order.
func RunRoute(ctx context.Context, cases []Case) ([]json.RawMessage, error) {
	in, err := encodeCases(cases)
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	code := cli.Run(ctx, routeArgs, cli.Stdio{In: in, Out: &out, Err: &errb})
	return routeLines(&out, len(cases), fmt.Sprintf("exit %d", code), errb.String())
}

// RunRouteBinary is RunRoute through a built dubboroute command (bin): the
// same cli.Run, in a process of its own, so that a test binary built with
// -race can evaluate thousands of cases without the race detector's cost.
func RunRouteBinary(ctx context.Context, bin string, cases []Case) ([]json.RawMessage, error) {
	in, err := encodeCases(cases)
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, routeArgs...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &out, &errb
	status := "exit 0"
	if err := cmd.Run(); err != nil {
		status = err.Error()
	}
	return routeLines(&out, len(cases), status, errb.String())
}

func encodeCases(cases []Case) (*bytes.Buffer, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.SetEscapeHTML(false)
	for i := range cases {
		if err := enc.Encode(&cases[i]); err != nil {
			return nil, fmt.Errorf("encode case %s: %w", cases[i].ID, err)
		}
	}
	return &in, nil
}

func routeLines(out io.Reader, n int, status, stderr string) ([]json.RawMessage, error) {
	lines, err := readLines(out)
	if err != nil {
		return nil, fmt.Errorf("read route output: %w", err)
	}
	if len(lines) != n {
		return nil, fmt.Errorf("dubboroute route answered %d of %d cases (%s, stderr: %s)", len(lines), n, status, tail(stderr))
	}
	return lines, nil
}

func readLines(r io.Reader) ([]json.RawMessage, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []json.RawMessage
	for sc.Scan() {
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		out = append(out, append(json.RawMessage(nil), t...))
	}
	return out, sc.Err()
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// Answer is what the comparison looks at, in a form both sides reduce to:
// the distribution of results (provider ids joined by ",", "" for none ->
// Java's exact probability), the rules rejected (indexes) and the keys not
// read (indexes); Error is set when the case could not be evaluated.
type Answer struct {
	Dist     map[string]string `json:"dist"`
	Rejected []int             `json:"rejected"`
	Unread   []int             `json:"unread"`
	Error    bool              `json:"error,omitempty"`
	// Weights and Disabled are reported for cases with configurators:
	// each provider's effective weight for the call, and the providers the
	// directory kept out (ids, sorted).
	Weights  map[string]string `json:"weights,omitempty"`
	Disabled []string          `json:"disabled,omitempty"`
	// FollowedApp and FollowedBefore are dubboroute's report that
	// configurators changed the first provider's application (route's
	// "followed"); not compared, Java has no such report.
	FollowedApp, FollowedBefore string `json:"-"`
}

type rawAnswer struct {
	Destinations []struct {
		Result []string `json:"result"`
		P      string   `json:"p"`
	} `json:"destinations"`
	Rejected []struct {
		Rule int `json:"rule"`
	} `json:"rejected"`
	Unread []struct {
		Rule int `json:"rule"`
	} `json:"unread"`
	Weights  map[string]string `json:"weights"`
	Followed *struct {
		Application string `json:"application"`
		Before      string `json:"before"`
	} `json:"followed"`
	Disabled []struct {
		ID string `json:"id"`
	} `json:"disabled"`
	Error string `json:"error"`
}

// Normalize reduces an answer line of either side to an Answer. Both sides
// carry the exact probability of each destination leaf as p (dubboroute
// draws weighted picks as Java does).
func Normalize(line json.RawMessage) (Answer, error) {
	var r rawAnswer
	if err := json.Unmarshal(line, &r); err != nil {
		return Answer{}, fmt.Errorf("decode answer %s: %w", line, err)
	}
	a := Answer{Dist: map[string]string{}, Rejected: []int{}, Unread: []int{}, Error: r.Error != ""}
	sums := map[string]*big.Rat{}
	for _, d := range r.Destinations {
		ps := d.P
		p, ok := new(big.Rat).SetString(ps)
		if !ok {
			return Answer{}, fmt.Errorf("answer %s: bad probability %q", line, ps)
		}
		if p.Sign() == 0 {
			continue
		}
		k := strings.Join(d.Result, ",")
		if sums[k] == nil {
			sums[k] = new(big.Rat)
		}
		sums[k].Add(sums[k], p)
	}
	for k, p := range sums {
		a.Dist[k] = p.RatString()
	}
	for _, x := range r.Rejected {
		a.Rejected = append(a.Rejected, x.Rule)
	}
	for _, x := range r.Unread {
		a.Unread = append(a.Unread, x.Rule)
	}
	sort.Ints(a.Rejected)
	sort.Ints(a.Unread)
	if len(r.Weights) > 0 {
		a.Weights = r.Weights
	}
	for _, d := range r.Disabled {
		a.Disabled = append(a.Disabled, d.ID)
	}
	sort.Strings(a.Disabled)
	if r.Followed != nil {
		a.FollowedApp, a.FollowedBefore = r.Followed.Application, r.Followed.Before
	}
	return a, nil
}

// Diff describes how got differs from want ("" when they agree).
func Diff(want, got Answer) string {
	var d []string
	if want.Error != got.Error {
		d = append(d, fmt.Sprintf("error: java %v, go %v", want.Error, got.Error))
	}
	if !mapsEqual(want.Dist, got.Dist) {
		d = append(d, fmt.Sprintf("result: java %s, go %s", distString(want.Dist), distString(got.Dist)))
	}
	if fmt.Sprint(want.Rejected) != fmt.Sprint(got.Rejected) {
		d = append(d, fmt.Sprintf("rejected rules: java %v, go %v", want.Rejected, got.Rejected))
	}
	if fmt.Sprint(want.Unread) != fmt.Sprint(got.Unread) {
		d = append(d, fmt.Sprintf("unread rules: java %v, go %v", want.Unread, got.Unread))
	}
	if !mapsEqual(want.Weights, got.Weights) {
		d = append(d, fmt.Sprintf("weights: java %v, go %v", want.Weights, got.Weights))
	}
	if fmt.Sprint(want.Disabled) != fmt.Sprint(got.Disabled) {
		d = append(d, fmt.Sprintf("disabled: java %v, go %v", want.Disabled, got.Disabled))
	}
	return strings.Join(d, "; ")
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func distString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("[%s]@%s", k, m[k]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// Fixture is one case that disagreed once, with Java's answer: replayed by
// TestRegressionFixtures against dubboroute (and, in the oracle test,
// against Java again).
type Fixture struct {
	Case  Case   `json:"case"`
	Java  Answer `json:"java"`
	Found string `json:"found"`
	// Go is the answer dubboroute gave when the disagreement was found;
	// for known (unfixed, reported) divergences it is the answer expected
	// from dubboroute until the divergence is resolved.
	Go *Answer `json:"go,omitempty"`
}

// ReadFixtures reads a JSON Lines fixture file (a missing file is empty).
func ReadFixtures(path string) ([]Fixture, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read fixtures: %w", err)
	}
	var out []Fixture
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f Fixture
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// AppendFixtures appends fixtures to a JSON Lines file.
func AppendFixtures(path string, fs []Fixture) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open fixtures: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for i := range fs {
		if err := enc.Encode(&fs[i]); err != nil {
			f.Close()
			return fmt.Errorf("write fixture: %w", err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close fixtures: %w", err)
	}
	return nil
}
