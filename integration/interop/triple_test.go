package interop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// TestTripleInterop: a Java and a Go provider exporting BookFacade over
// triple only (a non-IDL interface: hessian2 inside triple's protobuf
// wrapper), a Go consumer with dubboroute and a Java consumer, both on tri.
// The seed service rule and a dynamic tag rule route both consumers'
// calls, Go to Java and Java to Go, and the attachments dubbo.tag and
// userId arrive at the provider under those names (each provider answers
// queryByName("attachments") with what it received).
func TestTripleInterop(t *testing.T) {
	f := newFleet(t)
	srv, rules := f.srv, f.rules
	// The Java provider registers 127.0.0.2 (it listens on every address):
	// the tag rule below tells the providers apart by host, in the one
	// address form Java matches against a loopback host, CIDR (a pattern
	// with a port never matches a loopback provider in Java: see
	// known-loopback-tag-address in testdata/known-divergences.jsonl).
	jPort, _ := javaProviderProto(t, srv.Addr(), "interface", "tri", "demo-provider", "", []string{"--register-host", javaHost})
	g := f.goProvider(t, harness.ProviderOptions{App: "demo-provider", Protocol: "tri"})
	j, gp := strconv.Itoa(jPort), strconv.Itoa(g.Port)
	regs, err := rules.Providers(BookIface)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regs {
		if r.URL.Scheme != "tri" {
			t.Errorf("provider %s registered %s://, want tri://", r.Addr(), r.URL.Scheme)
		}
	}
	c := f.goConsumer(t, harness.ConsumerOptions{App: "demo-consumer1", Protocol: "tri"})
	if _, err := c.WaitExplain(harness.QueryAll, 60*time.Second, func(ex httpapi.Explain) bool {
		return harness.Same(ex.Providers, javaHost+":"+j, harness.Host+":"+gp)
	}); err != nil {
		t.Fatalf("%v\n%s", err, warnings(c.Log(), 30))
	}

	// The seed service rule: queryAll to the Java provider, queryByName to
	// the Go one (force).
	if err := rules.Put(serviceKey, seedServiceRule(jPort, g.Port)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitExplain(harness.QueryAll, 30*time.Second, func(ex httpapi.Explain) bool {
		return fmt.Sprint(routedPorts(ex)) == fmt.Sprint([]string{j})
	}); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		queryAllFromJava(t, c, jPort) // Java's List<Book> decodes over tri
		if _, r := bookCall(t, c, "queryByName", "", false); r.Port != g.Port || len(r.Books) != 1 || r.Books[0].Name != "Go in Action" {
			t.Fatalf("Go consumer queryByName over tri: %+v, want the argument echoed by Go provider %d", r, g.Port)
		}
	}
	calls := javaConsumer(t, srv.Addr(), "--protocol", "tri", "--calls", "6", "--arg", "Go in Action",
		"--scenario", "queryAll", "--scenario", "queryByName")
	for _, jc := range calls {
		want := []string{j, gp}[jc.Scenario]
		if !jc.OK || jc.ServedBy != want || (jc.Scenario == 1 && jc.Name != "Go in Action") {
			t.Errorf("Java consumer over tri, seed rule, scenario %d: %+v, want served by %s", jc.Scenario, jc, want)
		}
	}

	// A dynamic tag rule instead: tag java -> the Java provider, tag go ->
	// the Go one; every provider is tagged, so an untagged call finds none.
	if err := rules.Delete(serviceKey); err != nil {
		t.Fatal(err)
	}
	tagRule := fmt.Sprintf("force: false\nenabled: true\ntags:\n  - name: java\n    addresses: [\"%s/32\"]\n  - name: go\n    addresses: [\"%s/32\"]\n", javaHost, harness.Host)
	if err := rules.Put("demo-provider.tag-router", tagRule); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitExplain(harness.QueryAll, 30*time.Second, func(ex httpapi.Explain) bool {
		return len(ex.Routed) == 0 && len(ex.Rules) == 1
	}); err != nil {
		t.Fatal(err)
	}
	if _, r := bookCall(t, c, "queryAll", "", false); !noProvider(r.Error) {
		t.Errorf("Go consumer, untagged call, every provider tagged: %+v, want no provider", r)
	}
	type echo struct{ tag, port string }
	for _, e := range []echo{{"java", j}, {"go", gp}} {
		for range 3 {
			port, got := goEcho(t, c, e.tag, "7")
			if strconv.Itoa(port) != e.port {
				t.Errorf("Go consumer, tag %s: served by %d, want %s", e.tag, port, e.port)
			}
			checkEcho(t, "Go consumer -> provider "+e.port, got, e.tag, "7")
		}
	}
	calls = javaConsumer(t, srv.Addr(), "--protocol", "tri", "--calls", "3", "--arg", "attachments",
		"--scenario", "queryByName dubbo.tag=java userId=7", "--scenario", "queryByName dubbo.tag=go userId=7", "--scenario", "queryAll")
	for _, jc := range calls {
		if jc.Scenario == 2 {
			if jc.OK {
				t.Errorf("Java consumer, untagged call, every provider tagged: served by %s, want no provider", jc.ServedBy)
			}
			continue
		}
		e := []echo{{"java", j}, {"go", gp}}[jc.Scenario]
		if !jc.OK || jc.ServedBy != e.port {
			t.Errorf("Java consumer, tag %s: %+v, want served by %s", e.tag, jc, e.port)
			continue
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(jc.Name), &got); err != nil {
			t.Fatalf("Java consumer, tag %s: provider's answer %q: %v", e.tag, jc.Name, err)
		}
		checkEcho(t, "Java consumer -> provider "+e.port, got, e.tag, "7")
	}
}

// javaHost is the loopback address TestTripleInterop's Java provider
// registers.
const javaHost = "127.0.0.2"

// goEcho calls queryByName("attachments") through the Go consumer with the
// attachments dubbo.tag and userId, and returns the serving port and the
// attachments the provider received.
func goEcho(t *testing.T, c *harness.Consumer, tag, userID string) (int, map[string]string) {
	t.Helper()
	q := url.Values{"name": {"attachments"}, "tag": {tag}, "userId": {userID}}
	resp, err := http.Get(c.BaseURL + "/books?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r httpapi.Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Error != "" || len(r.Books) != 1 {
		t.Fatalf("Go consumer, echo with tag %s: %+v", tag, r)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(r.Books[0].Name), &got); err != nil {
		t.Fatalf("Go consumer, tag %s: provider's answer %q: %v", tag, r.Books[0].Name, err)
	}
	return r.Port, got
}

// checkEcho requires dubbo.tag and userId, spelled so, among the attachments
// a provider received, and no leftover of triple's key spelling.
func checkEcho(t *testing.T, who string, got map[string]string, tag, userID string) {
	t.Helper()
	if got["dubbo.tag"] != tag || got["userId"] != userID {
		t.Errorf("%s: the provider received dubbo.tag=%q userId=%q, want %q and %q (all: %v)", who, got["dubbo.tag"], got["userId"], tag, userID, got)
	}
	for _, k := range []string{"userid", "tri-header-convert"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s: the provider received %s (all: %v)", who, k, got)
		}
	}
}
