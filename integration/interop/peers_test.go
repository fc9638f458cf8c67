package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

func TestMain(m *testing.M) { harness.Main(m) }

// BookIface is the seeds' interface, shared by the Java and Go peers.
const BookIface = "com.muke.dubbocourse.common.api.BookFacade"

const serviceKey = BookIface + "::.condition-router"

// javaPeerOpts favour JVM start-up and stop time for the short-lived Java
// peers. Dubbo's graceful shutdown wait (dubbo.service.shutdown.wait,
// default 10 s) only delays a test's teardown, when nothing is in flight:
// a Java provider took 6 s to stop with it and 2 s with 500 ms, still
// unregistering first (measured).
var javaPeerOpts = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms32m", "-Xmx256m", "-Djava.net.preferIPv4Stack=true",
	"-Ddubbo.service.shutdown.wait=500"}

// javaProvider starts a Java BookProvider registering 127.0.0.1 (loopback
// only: --register-host) and waits for its READY line.
func javaProvider(t *testing.T, zkAddr, app, tag string, params ...string) int {
	t.Helper()
	return javaProviderMode(t, zkAddr, "interface", app, tag, params...)
}

// javaProviderMode is javaProvider with Java's register mode (interface,
// instance or all).
func javaProviderMode(t *testing.T, zkAddr, mode, app, tag string, params ...string) int {
	t.Helper()
	port, _ := javaProviderProto(t, zkAddr, mode, "dubbo", app, tag, nil, params...)
	return port
}

// javaProviderProto is javaProviderMode exporting over protocol: dubbo,
// tri, or dubbo,tri (both; triPort is then the triple port, else 0), with
// extra BookProvider arguments (a later option replaces an earlier one).
// The provider signs its books with port.
func javaProviderProto(t *testing.T, zkAddr, mode, protocol, app, tag string, extra []string, params ...string) (port, triPort int) {
	t.Helper()
	jar, err := Jar()
	if err != nil {
		t.Fatal(err)
	}
	port, err = harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args := append(append(append([]string(nil), javaPeerOpts...), "-cp", jar, "io.github.dubboroute.it.BookProvider"), javaRegistryArgs(zkAddr)...)
	args = append(args,
		"--port", strconv.Itoa(port), "--app", app, "--register-host", "127.0.0.1", "--register-mode", mode,
		"--protocol", protocol)
	if protocol == "dubbo,tri" {
		for triPort == 0 || triPort == port {
			if triPort, err = harness.FreePort(); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "--tri-port", strconv.Itoa(triPort))
	}
	if tag != "" {
		args = append(args, "--tag", tag)
	}
	for _, p := range params {
		args = append(args, "--param", p)
	}
	args = append(args, extra...)
	p := harness.Start(t, harness.ProcOptions{Name: "java-provider:" + strconv.Itoa(port), Path: "java", Args: args})
	if _, err := p.WaitLine(regexp.MustCompile(`(?m)^READY \d+$`), 120*time.Second); err != nil {
		t.Fatal(err)
	}
	// Stop Java providers before their ZooKeeper (cleanups run last-in first-out).
	t.Cleanup(func() { _ = p.Stop(10 * time.Second) })
	return port, triPort
}

// javaRegistryArgs are the Java programs' registry flags for addr: a
// ZooKeeper host:port (--zk), or "nacos://host:port" (--nacos).
func javaRegistryArgs(addr string) []string {
	if hp, ok := strings.CutPrefix(addr, "nacos://"); ok {
		return []string{"--nacos", hp}
	}
	return []string{"--zk", addr}
}

// javaCall is one line of BookConsumer's output.
type javaCall struct {
	// Scenario is the index of the --scenario the call belongs to (0
	// without any).
	Scenario int `json:"scenario"`
	Call     int `json:"call"`
	// Name is the returned Book's name.
	Name     string `json:"name"`
	OK       bool   `json:"ok"`
	ServedBy string `json:"served_by"`
	Error    string `json:"error"`
}

// javaConsumer runs the Java BookConsumer (Java Dubbo's own routers read
// the rules from ZooKeeper) and returns its calls.
func javaConsumer(t *testing.T, zkAddr string, args ...string) []javaCall {
	t.Helper()
	jar, err := Jar()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	full := append(append(append([]string(nil), javaPeerOpts...), "-cp", jar, "io.github.dubboroute.it.BookConsumer"),
		javaRegistryArgs(zkAddr)...)
	full = append(full, "--wait-ms", "1500")
	cmd := exec.CommandContext(ctx, "java", append(full, args...)...)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = tail(string(ee.Stderr))
		}
		t.Fatalf("java consumer %v: %v\n%s", args, err, stderr)
	}
	var calls []javaCall
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var c javaCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("java consumer output %q: %v", sc.Text(), err)
		}
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		t.Fatalf("java consumer %v printed no calls", args)
	}
	return calls
}

// servedSet is the sorted set of ports that served calls ("none" for a
// failed call).
func servedSet(calls []javaCall) []string {
	set := map[string]bool{}
	for _, c := range calls {
		if c.OK {
			set[c.ServedBy] = true
		} else {
			set["none"] = true
		}
	}
	return sortedKeys(set)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkRegistered reads /dubbo/<iface>/providers raw and requires exactly
// dubbo://127.0.0.1:<port> for every given port: nothing registers the
// machine's other addresses.
func checkRegistered(t *testing.T, rules *harness.Rules, ports ...int) {
	t.Helper()
	want := map[string]bool{}
	for _, p := range ports {
		want["127.0.0.1:"+strconv.Itoa(p)] = true
	}
	var got map[string]bool
	err := harness.Eventually(30*time.Second, func() error {
		regs, err := rules.Providers(BookIface)
		if err != nil {
			return err
		}
		got = map[string]bool{}
		for _, r := range regs {
			if r.URL.Scheme != "dubbo" {
				return fmt.Errorf("provider %s registered with scheme %q", r.Addr(), r.URL.Scheme)
			}
			got[r.Addr()] = true
		}
		if fmt.Sprint(sortedKeys(got)) != fmt.Sprint(sortedKeys(want)) {
			return fmt.Errorf("registered %v, want %v", sortedKeys(got), sortedKeys(want))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("raw read of /dubbo/%s/providers: %v", BookIface, err)
	}
}

// bookCall makes one call through the Go consumer's HTTP endpoint and
// returns the decoded answer (HTTP status and body).
func bookCall(t *testing.T, c *harness.Consumer, method, tag string, force bool) (int, httpapi.Response) {
	t.Helper()
	return bookCallAs(t, c, method, tag, force, "")
}

// bookCallAs is bookCall with the attachment userId set when user is not "".
func bookCallAs(t *testing.T, c *harness.Consumer, method, tag string, force bool, user string) (int, httpapi.Response) {
	t.Helper()
	q := url.Values{}
	if user != "" {
		q.Set("userId", user)
	}
	if method == "queryByName" {
		q.Set("name", "Go in Action")
	}
	if tag != "" {
		q.Set("tag", tag)
	}
	if force {
		q.Set("force", "true")
	}
	resp, err := http.Get(c.BaseURL + "/books?" + q.Encode())
	if err != nil {
		t.Fatalf("GET /books: %v", err)
	}
	defer resp.Body.Close()
	var r httpapi.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("decode /books answer: %v", err)
	}
	return resp.StatusCode, r
}

// noProvider reports whether an RPC error is "no provider available"
// (dubbo-go's "No provider", dubboroute's "no provider").
func noProvider(msg string) bool { return strings.Contains(strings.ToLower(msg), "no provider") }

func routedPorts(ex httpapi.Explain) []string {
	set := map[string]bool{}
	for _, a := range ex.Routed {
		_, port, _ := strings.Cut(a, ":")
		set[port] = true
	}
	if len(set) == 0 {
		set["none"] = true
	}
	return sortedKeys(set)
}

func seedServiceRule(p1, p2 int) string {
	return fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n  - method=queryByName => address=*:%d\n", BookIface, p1, p2)
}

// TestGoConsumerJavaProviders: two Java providers (demo-provider), a Go
// consumer with dubboroute (samples/bookfacade/cmd/consumer); the seed rules
// in ZooKeeper route real calls, and Java's Book values decode in Go.
func TestGoConsumerJavaProviders(t *testing.T) {
	f := newFleet(t)
	srv, rules := f.srv, f.rules
	p1 := javaProvider(t, srv.Addr(), "demo-provider", "")
	p2 := javaProvider(t, srv.Addr(), "demo-provider", "")
	checkRegistered(t, rules, p1, p2)

	c := f.goConsumer(t, harness.ConsumerOptions{App: "demo-consumer1"})
	both := []string{strconv.Itoa(p1), strconv.Itoa(p2)}
	sort.Strings(both)
	if _, err := c.WaitExplain(harness.Call{Method: "queryAll"}, 60*time.Second, func(ex httpapi.Explain) bool {
		return fmt.Sprint(routedPorts(ex)) == fmt.Sprint(both)
	}); err != nil {
		t.Fatal(err)
	}

	// The seed service rule: queryAll -> p1, queryByName -> p2 (force).
	if err := rules.Put(serviceKey, seedServiceRule(p1, p2)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitExplain(harness.Call{Method: "queryAll"}, 30*time.Second, func(ex httpapi.Explain) bool {
		return fmt.Sprint(routedPorts(ex)) == fmt.Sprint([]string{strconv.Itoa(p1)})
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		queryAllFromJava(t, c, p1)
		for _, tc := range []struct {
			method string
			port   int
		}{{"queryByName", p2}} {
			status, r := bookCall(t, c, tc.method, "", false)
			if status != http.StatusOK || r.Port != tc.port || len(r.Books) == 0 {
				t.Fatalf("%s: HTTP %d %+v, want served by %d", tc.method, status, r, tc.port)
			}
			for _, b := range r.Books {
				if b.Author != "served-by-"+strconv.Itoa(tc.port) || b.Name == "" {
					t.Fatalf("%s: Book %+v decoded from Java, want author served-by-%d and a name", tc.method, b, tc.port)
				}
			}
			if tc.method == "queryByName" && r.Books[0].Name != "Go in Action" {
				t.Fatalf("queryByName: Book name %q, want the argument echoed", r.Books[0].Name)
			}
		}
	}

	// The seed's application rule (consumer-app, force) on top: demo-consumer1
	// -> p1 only. queryAll still reaches p1; queryByName (p2 by the service
	// rule) is left with nobody, as Java chains service then app with fail-fast.
	appRule := fmt.Sprintf("scope: application\nforce: true\nenabled: true\nkey: demo-consumer1\nconditions:\n  - application=demo-consumer1 => address=*:%d\n", p1)
	if err := rules.Put("demo-consumer1.condition-router", appRule); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitExplain(harness.Call{Method: "queryByName"}, 30*time.Second, func(ex httpapi.Explain) bool {
		return len(ex.Routed) == 0
	}); err != nil {
		t.Fatal(err)
	}
	queryAllFromJava(t, c, p1)
	if status, r := bookCall(t, c, "queryByName", "", false); status == http.StatusOK || !noProvider(r.Error) {
		t.Fatalf("queryByName with the app rule: HTTP %d %+v, want No provider available", status, r)
	}
}

// queryAllFromJava calls queryAll, which the service rule routes to the
// Java provider on port: the call must succeed and the Java List<Book> must
// decode in Go into books signed by that provider.
func queryAllFromJava(t *testing.T, c *harness.Consumer, port int) {
	t.Helper()
	status, r := bookCall(t, c, "queryAll", "", false)
	if status != http.StatusOK || r.Port != port || len(r.Books) == 0 {
		t.Fatalf("queryAll: HTTP %d %+v, want books from Java provider %d", status, r, port)
	}
	for _, b := range r.Books {
		if b.Author != "served-by-"+strconv.Itoa(port) || b.Name == "" {
			t.Fatalf("queryAll: Book %+v decoded from Java, want author served-by-%d and a name", b, port)
		}
	}
}

// TestJavaConsumerGoProviders: a Java consumer (Java's own routers) calls
// dubboroute's sample Go providers; the tags and parameters the Go
// providers publish are honoured.
func TestJavaConsumerGoProviders(t *testing.T) {
	f := newFleet(t)
	srv, rules := f.srv, f.rules
	g1 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", Params: map[string]string{"status": "gray"}})
	g2 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", Tag: "gray"})
	checkRegistered(t, rules, g1.Port, g2.Port)
	regs, err := rules.Providers(BookIface)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		if r.Addr() == g2.Addr && r.Param("dubbo.tag") != "gray" {
			t.Fatalf("Go provider %s registered dubbo.tag=%q, want gray", r.Addr(), r.Param("dubbo.tag"))
		}
		if r.Addr() == g1.Addr && r.Param("status") != "gray" {
			t.Fatalf("Go provider %s registered status=%q, want gray", r.Addr(), r.Param("status"))
		}
	}
	s1, s2 := strconv.Itoa(g1.Port), strconv.Itoa(g2.Port)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no tag: untagged Go provider", nil, []string{s1}},
		{"tag gray: the Go provider tagged gray", []string{"--attach", "dubbo.tag=gray"}, []string{s2}},
		{"tag red: falls back to untagged", []string{"--attach", "dubbo.tag=red"}, []string{s1}},
		{"tag red + force: no provider", []string{"--attach", "dubbo.tag=red", "--attach", "dubbo.force.tag=true"}, []string{"none"}},
		{"queryByName decodes", []string{"--method", "queryByName", "--arg", "Go"}, []string{s1}},
	} {
		calls := javaConsumer(t, srv.Addr(), append([]string{"--calls", "4"}, tc.args...)...)
		if got := servedSet(calls); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: served by %v, want %v (%+v)", tc.name, got, tc.want, calls)
		}
	}
	// A parameter published by a Go provider, used by a Java condition rule.
	if err := rules.Put(serviceKey, "force: true\nconditions:\n  - => status=gray\n"); err != nil {
		t.Fatal(err)
	}
	calls := javaConsumer(t, srv.Addr(), "--calls", "4", "--attach", "dubbo.tag=gray")
	if got := servedSet(calls); fmt.Sprint(got) != fmt.Sprint([]string{"none"}) {
		t.Errorf("tag gray + rule status=gray (force): served by %v, want none (the gray-tagged provider lacks status=gray)", got)
	}
	calls = javaConsumer(t, srv.Addr(), "--calls", "4")
	if got := servedSet(calls); fmt.Sprint(got) != fmt.Sprint([]string{s1}) {
		t.Errorf("rule status=gray: served by %v, want %v", got, []string{s1})
	}
}

// TestMixedFleetParity: Java and Go providers in one registry, the same
// rules in ZooKeeper; for every deterministic scenario the Java consumer's
// serving ports (over repeated calls) equal the Go consumer's eligible set
// (explain) and its serving ports.
func TestMixedFleetParity(t *testing.T) {
	f := newFleet(t)
	srv, rules := f.srv, f.rules
	j1 := javaProvider(t, srv.Addr(), "demo-provider", "")
	j2 := javaProvider(t, srv.Addr(), "demo-provider", "gray", "status=gray")
	g1 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", Params: map[string]string{"status": "gray"}})
	g2 := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", Tag: "blue"})
	checkRegistered(t, rules, j1, j2, g1.Port, g2.Port)
	goPorts := map[string]bool{strconv.Itoa(g1.Port): true, strconv.Itoa(g2.Port): true}
	regs, err := rules.Providers(BookIface)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		if goPorts[r.URL.Port()] && r.Param("weight") != "100" {
			t.Errorf("Go provider %s registers weight=%q, want Java's default 100 (the parity check below expects Java to reach every eligible provider)", r.Addr(), r.Param("weight"))
		}
	}

	// Rules: the service rule sends queryByName to status=gray providers
	// (no force), the consumer-app rule keeps demo-consumer1 off g2's port
	// for queryAll (force).
	if err := rules.Put(serviceKey, "force: false\nconditions:\n  - method=queryByName => status=gray\n"); err != nil {
		t.Fatal(err)
	}
	appRule := fmt.Sprintf("force: true\nconditions:\n  - application=demo-consumer1&method=queryAll => port!=%d\n", g2.Port)
	if err := rules.Put("demo-consumer1.condition-router", appRule); err != nil {
		t.Fatal(err)
	}
	c := f.goConsumer(t, harness.ConsumerOptions{App: "demo-consumer1"})
	if _, err := c.WaitExplain(harness.Call{Method: "queryAll"}, 60*time.Second, func(ex httpapi.Explain) bool {
		return len(ex.Providers) == 4 && len(ex.Rules) >= 2
	}); err != nil {
		t.Fatal(err)
	}
	checkParity(t, srv.Addr(), c, parityScenarios)
}

// checkParity routes the deterministic tag and method scenarios with the Go
// consumer c (its eligible set from explain, and real calls) and with a Java
// BookConsumer (Java Dubbo's own routers, javaArgs added to its command
// line), and fails t where the Java consumer's served set differs from the
// Go consumer's eligible set, or the Go consumer is served outside it. One
// JVM runs every scenario (BookConsumer --scenario).
func checkParity(t *testing.T, zkAddr string, c *harness.Consumer, scenarios []parityScenario, javaArgs ...string) {
	t.Helper()
	checkParityAliased(t, zkAddr, c, scenarios, nil, javaArgs...)
}

// checkParityAliased is checkParity for providers that sign their books
// with another port than the one the consumer routes to (a provider
// exporting dubbo and tri signs with its first port): alias maps a routed
// port to the port its books are signed with.
func checkParityAliased(t *testing.T, zkAddr string, c *harness.Consumer, scenarios []parityScenario, alias map[string]string, javaArgs ...string) {
	t.Helper()
	const calls = 24
	goSets := make([][]string, len(scenarios))
	traces := make([]string, len(scenarios))
	served := make([]map[string]bool, len(scenarios))
	args := []string{"--calls", strconv.Itoa(calls), "--app", "demo-consumer1", "--arg", "Go in Action"}
	for i, sc := range scenarios {
		ex, err := c.Explain(harness.Call{Method: sc.method, Tag: sc.tag, Force: sc.force, UserID: sc.user})
		if err != nil {
			t.Fatal(err)
		}
		goSets[i], traces[i] = aliased(routedPorts(ex), alias), ex.TraceText
		served[i] = map[string]bool{}
		for range calls {
			_, r := bookCallAs(t, c, sc.method, sc.tag, sc.force, sc.user)
			switch {
			case r.Port != 0:
				served[i][strconv.Itoa(r.Port)] = true
			case noProvider(r.Error):
				served[i]["none"] = true
			}
		}
		args = append(args, "--scenario", sc.javaScenario())
	}
	javaCalls := javaConsumer(t, zkAddr, append(args, javaArgs...)...)
	for i, sc := range scenarios {
		var mine []javaCall
		for _, jc := range javaCalls {
			if jc.Scenario == i {
				mine = append(mine, jc)
			}
		}
		if len(mine) != calls {
			t.Errorf("%s: the Java consumer made %d calls, want %d", sc.name, len(mine), calls)
		}
		javaSet := servedSet(mine)
		// Java serves what it routes to: every eligible provider is reached
		// within the calls (the sample's Go providers publish Java's default
		// weight 100, so Java's RandomLoadBalance picks them like its own).
		goSet := goSets[i]
		t.Logf("%s: Go eligible %v, Go served %v, Java served %v", sc.name, goSet, sortedKeys(served[i]), javaSet)
		if fmt.Sprint(goSet) != fmt.Sprint(javaSet) {
			t.Errorf("%s: Go consumer's eligible set %v (Java should serve it) but the Java consumer served %v (trace: %s)", sc.name, goSet, javaSet, traces[i])
		}
		for p := range served[i] {
			if !slices.Contains(goSet, p) {
				t.Errorf("%s: Go consumer served by %s, not in its eligible set %v", sc.name, p, goSet)
			}
		}
	}
}

// aliased maps every port of set through alias (ports without an alias
// stay), sorted and without duplicates.
func aliased(set []string, alias map[string]string) []string {
	if len(alias) == 0 {
		return set
	}
	m := map[string]bool{}
	for _, p := range set {
		if a, ok := alias[p]; ok {
			p = a
		}
		m[p] = true
	}
	return sortedKeys(m)
}

// parityScenario is one call shape checkParity compares.
type parityScenario struct {
	name   string
	method string
	tag    string
	force  bool
	user   string // the attachment userId, if set
}

// javaScenario is the scenario as BookConsumer's --scenario: the method,
// then the attachments.
func (sc parityScenario) javaScenario() string {
	s := sc.method
	if sc.tag != "" {
		s += " dubbo.tag=" + sc.tag
	}
	if sc.force {
		s += " dubbo.force.tag=true"
	}
	if sc.user != "" {
		s += " userId=" + sc.user
	}
	return s
}

// parityScenarios are the deterministic scenarios of the mixed fleet's rules
// (TestMixedFleetParity).
var parityScenarios = []parityScenario{
	{"queryAll, no tag", "queryAll", "", false, ""},
	{"queryByName, no tag", "queryByName", "", false, ""},
	{"queryAll, tag gray", "queryAll", "gray", false, ""},
	{"queryAll, tag blue (app rule excludes it)", "queryAll", "blue", false, ""},
	{"queryByName, tag blue", "queryByName", "blue", false, ""},
	{"queryAll, tag red (fallback)", "queryAll", "red", false, ""},
	{"queryAll, tag red + force", "queryAll", "red", true, ""},
}
