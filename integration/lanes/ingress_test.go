package lanes

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/lanetrust"
)

// halfRule is the signed variant's rule for B's application: requests of
// cohort random go gray half the time, a decision that travels.
const halfRule = `requests:
  - name: half
    conditions:
      - { source: attachment, key: cohort, operator: "=", value: random }
    percent: 50
`

// startEnv starts a hop with extra environment and waits for its READY
// line (nil, the test marked failed, if it does not come). Safe to call
// from several goroutines.
func (f *fleet) startEnv(name string, args, env []string) *harness.Proc {
	env = append([]string{harness.LogDirEnv + "=" + os.Getenv(harness.LogDirEnv)}, env...)
	p := harness.Start(f.t, harness.ProcOptions{Name: name, Path: f.bin, Args: args, Env: env})
	if _, err := p.WaitLine(readyRE, harness.ReadyTimeout); err != nil {
		f.t.Errorf("start %s: %v", name, err)
		return nil
	}
	return p
}

// TestLaneIngressTrust: the trust boundary over real dubbo-go RPC on
// loopback and a real ZooKeeper. A driver (an external caller) calls B,
// which calls C (a normal, a tag-gray and a rule-gray instance). B runs
// under one ingress policy per variant (from the environment, as an
// operator sets it); what reaches C says whether the caller steered it:
//
//   - open (no policy): a caller's tag, forged decision and user steer C,
//     the hole the issue names;
//   - edge (B's service at the edge, strip): none of them steers;
//   - keep (keep-identity): the user's gray lane is recomputed from the
//     rules, tag and forged decision are dropped;
//   - trusted (edge, but loopback is a trusted network): all steer;
//   - signed (a decision key shared by the driver and B): a forged
//     decision is dropped, a decision the keyed driver's gray balancer
//     made and signed is honoured at B (C's class is always that decision).
func TestLaneIngressTrust(t *testing.T) {
	dir := t.TempDir()
	race := os.Getenv(harness.RaceEnv) != "0"
	begin := time.Now()
	if err := harness.Build(dir, race, "github.com/dubboroute/dubboroute/integration/lanes/hop"); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the Go hop (race %v) in %v", race, time.Since(begin).Round(time.Millisecond))
	srv := zk.Start(t)
	f := &fleet{t: t, zk: srv.Addr(), bin: filepath.Join(dir, "hop")}
	rules := harness.DialRules(t, srv.Addr())
	if err := rules.Put("ti-c.gray-router", grayRule); err != nil {
		t.Fatal(err)
	}
	if err := rules.Put("ti-b.gray-router", halfRule); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "lane.key")
	if err := os.WriteFile(keyFile, []byte("a shared lane decision key, 32 bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.goHops("ti-c", "ti-c", ifaceC, "", "c", lanesOn)

	type variant struct {
		name   string
		env    []string
		bKinds []string
		// want: the class C serves for a tag=gray request, a forged
		// decision=gray request and a gray user's request.
		tag, forged, user string
	}
	variants := []variant{
		{name: "open", bKinds: []string{"normal"}, tag: "gray", forged: "gray", user: "gray"},
		{name: "edge", env: []string{lanetrust.IngressEnv + "=" + ifaceB}, bKinds: []string{"normal"}, tag: "normal", forged: "normal", user: "normal"},
		{name: "keep", env: []string{lanetrust.IngressEnv + "=" + ifaceB, lanetrust.IngressModeEnv + "=keep-identity"}, bKinds: []string{"normal"},
			tag: "normal", forged: "normal", user: "gray"},
		{name: "trusted", env: []string{lanetrust.IngressEnv + "=*", lanetrust.TrustedNetsEnv + "=127.0.0.0/8"}, bKinds: []string{"normal"},
			tag: "gray", forged: "gray", user: "gray"},
		{name: "signed", env: []string{lanetrust.KeyFileEnv + "=" + keyFile}, bKinds: []string{"normal", "rule"}, tag: "gray", forged: "normal", user: "gray"},
	}
	// The B instances start at once (each waits for its READY line), then
	// the drivers: the processes are independent.
	var wg sync.WaitGroup
	for _, v := range variants {
		for _, kind := range v.bKinds {
			port, err := harness.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			n := "tb-" + v.name + "-" + kind
			args := []string{"-name", n, "-class", map[bool]string{true: "normal", false: "gray"}[kind == "normal"], "-app", "ti-b",
				"-iface", ifaceB, "-port", strconv.Itoa(port), "-zk", f.zk, "-group", v.name, "-next", ifaceC, "-next-group", "c"}
			if kind == "rule" {
				args = append(args, "-param", "status=gray")
			}
			wg.Add(1)
			go func(env []string) {
				defer wg.Done()
				f.startEnv(n, args, env)
			}(v.env)
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	driver := func(name, group string, env []string) string {
		p := f.startEnv(name, []string{"-name", name, "-app", "ti-a", "-drive", "-next", ifaceB, "-zk", f.zk, "-group", group}, env)
		if p == nil {
			return ""
		}
		line, _ := p.WaitLine(readyRE, time.Second)
		if line == nil {
			return ""
		}
		return "http://" + line[3]
	}
	entries := make([]string, len(variants)+1)
	for i, v := range variants {
		wg.Add(1)
		go func() { defer wg.Done(); entries[i] = driver("ta-"+v.name, v.name, nil) }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		entries[len(variants)] = driver("ta-signed-keyed", "signed", []string{lanetrust.KeyFileEnv + "=" + keyFile})
	}()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// cClass is the class of the C instance each request reached.
	cClass := func(entry string, reqs []request) ([]string, [][]segment) {
		var trs []string
		err := harness.Eventually(60*time.Second, func() error {
			var err error
			if trs, err = call(entry, reqs); err != nil {
				return err
			}
			for _, tr := range trs {
				if segs := parseTrace(tr); len(segs) != 2 || segs[1].err != "" || segs[1].name == "" {
					return fmt.Errorf("trace %q", tr)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", entry, err)
		}
		var out []string
		var all [][]segment
		for _, tr := range trs {
			segs := parseTrace(tr)
			out = append(out, segs[1].class)
			all = append(all, segs)
		}
		return out, all
	}
	normalUser := 11
	for grayUser(normalUser) {
		normalUser++
	}
	const n = 6
	reqs := func(r request) []request {
		out := make([]request, n)
		for i := range out {
			out[i] = r
		}
		return out
	}
	for i, v := range variants {
		entry := entries[i]
		for _, tc := range []struct {
			what string
			req  request
			want string
		}{
			{"tag=gray", request{Tag: "gray"}, v.tag},
			{"forged decision=gray", request{Decision: "gray"}, v.forged},
			{"gray user 3", request{User: "3"}, v.user},
			{"normal user", request{User: strconv.Itoa(normalUser)}, "normal"},
		} {
			got, segs := cClass(entry, reqs(tc.req))
			for i, c := range got {
				if c != tc.want {
					t.Errorf("%s: %s reached C %s (%s), want %s; trace %+v", v.name, tc.what, c, segs[i][1].name, tc.want, segs[i])
					break
				}
			}
			if v.name != "open" && v.name != "trusted" && tc.what == "tag=gray" && segs[0][0].tag != "" && v.name != "signed" {
				t.Errorf("%s: B's handler saw the untrusted tag %q", v.name, segs[0][0].tag)
			}
		}
	}
	// The keyed driver's own decisions (cohort random, 50 % at A) are
	// signed by its gray balancer and honoured at B: C's class is A's
	// decision, both lanes occur.
	entry := entries[len(variants)]
	rs := make([]request, 40)
	for i := range rs {
		rs[i].Cohort = "random"
	}
	got, segs := cClass(entry, rs)
	seen := map[string]int{}
	for i, c := range got {
		d := segs[i][0].decision
		seen[d]++
		if d != "gray" && d != "normal" || c != d {
			t.Errorf("signed decision %q at B, C served %s: %+v", d, c, segs[i])
		}
	}
	if seen["gray"] == 0 || seen["normal"] == 0 {
		t.Errorf("decisions %v: want both lanes from a 50 %% rule", seen)
	}
	t.Logf("signed decisions honoured: %v", seen)
}
