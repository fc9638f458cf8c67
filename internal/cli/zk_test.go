package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/zk"
)

const svcKey = bookFacade + "::.condition-router"

// TestZooKeeperCommands runs get, push, rm, watch and live explain against
// one private ZooKeeper server.
func TestZooKeeperCommands(t *testing.T) {
	srv := zk.Start(t)
	addr := srv.Addr()
	rule, err := os.ReadFile("testdata/lint/good/com.muke.dubbocourse.common.api.BookFacade%3A%3A.condition-router")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("mesh-key", func(t *testing.T) {
		const key = "demo-provider.MESHAPPRULE"
		mesh, err := os.ReadFile("testdata/lint/DR413/demo-provider.MESHAPPRULE")
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, string(mesh), "push", "--zk", addr, key, "-")
		if code != ExitOK || !strings.Contains(out, "pushed "+key+" to /dubbo/config/dubbo/"+key) {
			t.Fatalf("push mesh: exit %d, out %q, err %q", code, out, errOut)
		}
		if out, _, code = run(t, "", "get", "--zk", addr, key); code != ExitOK || out != string(mesh) {
			t.Fatalf("get mesh: exit %d, %q", code, out)
		}
		// A mesh value Java rejects (weight '5') is refused with its code.
		bad := strings.Replace(string(mesh), "weight: 10", "weight: '5'", 1)
		if _, errOut, code = run(t, bad, "push", "--zk", addr, key, "-"); code != ExitFail || !strings.Contains(errOut, "DR008") {
			t.Fatalf("push bad mesh: exit %d, err %q", code, errOut)
		}
		if out, _, code = run(t, "", "rm", "--zk", addr, key); code != ExitOK || !strings.HasPrefix(out, "deleted "+key) {
			t.Fatalf("rm mesh: exit %d, %q", code, out)
		}
	})

	t.Run("push-get-rm", func(t *testing.T) {
		out, errOut, code := run(t, string(rule), "push", "--zk", addr, svcKey)
		want := "pushed " + svcKey + " to /dubbo/config/dubbo/" + svcKey + " (data version 0)\n"
		if code != ExitOK || out != want || errOut != "" {
			t.Fatalf("push: exit %d, out %q, err %q", code, out, errOut)
		}
		out, _, code = run(t, "", "get", "--zk", addr, svcKey)
		if code != ExitOK || out != string(rule) {
			t.Fatalf("get: exit %d, out %q", code, out)
		}
		out, _, code = run(t, "", "get", "--zk", addr, "--json", svcKey)
		var g struct {
			Path    string `json:"path"`
			Version int    `json:"version"`
			Content string `json:"content"`
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &g) != nil || g.Path != "/dubbo/config/dubbo/"+svcKey || g.Content != string(rule) {
			t.Fatalf("get --json: exit %d, %q", code, out)
		}
		// A rule with lint errors is refused and the node keeps its content.
		bad := "conditions:\n  - a==b => host=1.2.3.4\n"
		_, errOut, code = run(t, bad, "push", "--zk", addr, svcKey, "-")
		if code != ExitFail || !strings.Contains(errOut, "DR001") || !strings.Contains(errOut, "refused to push") {
			t.Fatalf("push bad: exit %d, err %q", code, errOut)
		}
		if out, _, _ := run(t, "", "get", "--zk", addr, svcKey); out != string(rule) {
			t.Fatalf("refused push changed the node: %q", out)
		}
		// --force writes it anyway; get then reports the node is not a valid rule.
		if _, _, code = run(t, bad, "push", "--zk", addr, "--force", svcKey); code != ExitOK {
			t.Fatalf("push --force: exit %d", code)
		}
		out, errOut, code = run(t, "", "get", "--zk", addr, svcKey)
		if code != ExitFail || out != bad || !strings.Contains(errOut, "is not a valid rule: DR001") {
			t.Fatalf("get invalid: exit %d, out %q, err %q", code, out, errOut)
		}
		if out, _, code = run(t, "", "rm", "--zk", addr, svcKey); code != ExitOK || !strings.HasPrefix(out, "deleted "+svcKey) {
			t.Fatalf("rm: exit %d, %q", code, out)
		}
		if _, errOut, code = run(t, "", "get", "--zk", addr, svcKey); code != ExitFail || !strings.Contains(errOut, "no rule "+svcKey) {
			t.Fatalf("get after rm: exit %d, %q", code, errOut)
		}
		if _, errOut, code = run(t, "", "rm", "--zk", addr, svcKey); code != ExitFail || !strings.Contains(errOut, "does not exist") {
			t.Fatalf("rm again: exit %d, %q", code, errOut)
		}
		// Usage errors.
		if _, _, code = run(t, "", "get", svcKey); code != ExitUsage {
			t.Fatalf("get without --zk: exit %d", code)
		}
		if _, errOut, code = run(t, "", "get", "--zk", addr, "not-a-key"); code != ExitUsage || !strings.Contains(errOut, "not a rule key") {
			t.Fatalf("get bad key: exit %d, %q", code, errOut)
		}
	})

	t.Run("configurators", func(t *testing.T) {
		key := "org.apache.dubbo.demo.DemoService::.configurators"
		admin, err := os.ReadFile("../../configurator/testdata/admin/go-retries.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if out, errOut, code := run(t, string(admin), "push", "--zk", addr, key); code != ExitOK {
			t.Fatalf("push configurators: exit %d, out %q, err %q", code, out, errOut)
		}
		if out, _, code := run(t, "", "get", "--zk", addr, key); code != ExitOK || out != string(admin) {
			t.Fatalf("get configurators: exit %d, %q", code, out)
		}
		bad := "configVersion: v3.0\nkey: x\nconfigs:\n- side: consumer\n"
		if _, errOut, code := run(t, bad, "push", "--zk", addr, key, "-"); code != ExitFail || !strings.Contains(errOut, "DR014") || !strings.Contains(errOut, "line 4") {
			t.Fatalf("push bad configurators: exit %d, err %q", code, errOut)
		}
		if _, _, code := run(t, "", "rm", "--zk", addr, key); code != ExitOK {
			t.Fatalf("rm configurators: exit %d", code)
		}
	})

	t.Run("root-and-digest", func(t *testing.T) {
		key := "demo-provider.tag-router"
		tagRule := "tags:\n  - name: gray\n    addresses: [\"127.0.0.1:20881\"]\n"
		out, _, code := run(t, tagRule, "push", "--zk", addr, "--root", "/team/config", "--digest", "ops:secret", key)
		if code != ExitOK || !strings.Contains(out, "/team/config/dubbo/"+key) {
			t.Fatalf("push: exit %d, %q", code, out)
		}
		if out, _, code = run(t, "", "get", "--zk", addr, "--root", "/team/config", "--digest", "ops:secret", key); code != ExitOK || out != tagRule {
			t.Fatalf("get with digest: exit %d, %q", code, out)
		}
		// The node has Dubbo's creator-only ACL: without credentials it cannot be read.
		if _, errOut, code := run(t, "", "get", "--zk", addr, "--root", "/team/config", key); code != ExitFail || errOut == "" {
			t.Fatalf("get without digest: exit %d, %q", code, errOut)
		}
	})

	t.Run("acl-digest-file-env", func(t *testing.T) {
		key := "demo-provider.condition-router"
		rule := "conditions:\n  - => host=1.2.3.4\n"
		cred := filepath.Join(t.TempDir(), "zk-digest")
		if err := os.WriteFile(cred, []byte("admin:s3cret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		// Rules world-readable, writable by the admin identity only.
		out, errOut, code := run(t, rule, "push", "--zk", addr, "--root", "/acl/config", "--digest-file", cred, "--acl", "world:anyone:r,auth::cdrwa", key)
		if code != ExitOK {
			t.Fatalf("push --acl: exit %d, %q %q", code, out, errOut)
		}
		if got, _, code := run(t, "", "get", "--zk", addr, "--root", "/acl/config", key); code != ExitOK || got != rule {
			t.Fatalf("anonymous get of a world-readable rule: exit %d, %q", code, got)
		}
		_, errOut, code = run(t, "conditions:\n  - => host=6.6.6.6\n", "push", "--zk", addr, "--root", "/acl/config", key)
		if code != ExitFail || !strings.Contains(errOut, "NoAuth") || !strings.Contains(errOut, "/acl/config/dubbo/"+key) || !strings.Contains(errOut, "anonymous") {
			t.Fatalf("anonymous push over an admin rule: exit %d, %q; want a NoAuth error naming the node and the identity", code, errOut)
		}
		t.Setenv(DigestEnv, "admin:wrong")
		if _, errOut, code = run(t, rule, "rm", "--zk", addr, "--root", "/acl/config", key); code != ExitFail || !strings.Contains(errOut, "digest user \"admin\"") {
			t.Fatalf("rm with a wrong password from $%s: exit %d, %q", DigestEnv, code, errOut)
		}
		t.Setenv(DigestEnv, "admin:s3cret")
		if _, errOut, code = run(t, "", "rm", "--zk", addr, "--root", "/acl/config", key); code != ExitOK {
			t.Fatalf("rm with credentials from $%s: exit %d, %q", DigestEnv, code, errOut)
		}
		if _, errOut, code = run(t, rule, "push", "--zk", addr, "--acl", "world:anyone:q", key); code != ExitFail || !strings.Contains(errOut, "--acl") {
			t.Fatalf("push with a bad --acl: exit %d, %q", code, errOut)
		}
	})

	t.Run("watch", func(t *testing.T) {
		testWatchLifecycle(t, context.Background(), cliStore{flags: []string{"--zk", addr}})
	})

	// watch on a .configurators key (issue 13): each event is linted as a
	// configurators rule (DR501 for Admin's iface:: service key, DR014 for
	// content Java rejects, written past push's check), a delete ends it.
	t.Run("watch-configurators", func(t *testing.T) {
		key := bookFacade + "::.configurators"
		good := "configVersion: v3.0\nscope: service\nkey: " + bookFacade + "\nconfigs:\n- side: consumer\n  providerAddresses: [127.0.0.1:20880]\n  parameters: {disabled: \"true\"}\n"
		if _, errOut, code := run(t, good, "push", "--zk", addr, key, "-"); code != ExitOK {
			t.Fatalf("push initial: %s", errOut)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		w := startWatch(t, ctx, []string{"--zk", addr}, 4, key)
		next := w.next
		codes := func(ev WatchEvent) []string {
			var cs []string
			for _, f := range ev.Findings {
				cs = append(cs, f.Code)
			}
			return cs
		}
		if ev := next(); ev.Type != "add" || len(ev.Findings) != 0 || ev.Content != good {
			t.Fatalf("first event %+v, want the current content, clean", ev)
		}
		admin := "configs:\n- addresses:\n  - 127.0.0.1:20880\n  enabled: true\n  parameters:\n    weight: 50\n  side: consumer\n  type: weight\nenabled: false\nkey: '" + bookFacade + "::'\nscope: service\n"
		if _, errOut, code := run(t, admin, "push", "--zk", addr, key, "-"); code != ExitOK {
			t.Fatalf("push Admin's weight rule: %s", errOut)
		}
		if ev := next(); ev.Type != "update" || !slices.Contains(codes(ev), "DR501") {
			t.Fatalf("update event %+v, want a DR501 finding (Admin's iface:: key)", ev)
		}
		// Content Java rejects: push refuses it, so write it as Admin would.
		bad := "configVersion: v2.7\nscope: service\nkey: " + bookFacade + "\nconfigs:\n- side: consumer\n  parameters:\n    timeout: ~\n"
		if _, _, code := run(t, bad, "push", "--zk", addr, key, "-"); code != ExitFail {
			t.Fatalf("push of a rejected configurators rule: exit %d, want %d", code, ExitFail)
		}
		c, err := zookeeper.Dial([]string{addr})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.PutRule(ctx, key, bad); err != nil {
			t.Fatal(err)
		}
		if ev := next(); ev.Type != "update" || !slices.Contains(codes(ev), "DR014") {
			t.Fatalf("event %+v, want a DR014 finding", ev)
		}
		if _, _, code := run(t, "", "rm", "--zk", addr, key); code != ExitOK {
			t.Fatal("rm")
		}
		if ev := next(); ev.Type != "delete" || ev.Content != "" {
			t.Fatalf("delete event %+v", ev)
		}
		w.wait()
	})

	t.Run("explain-live", func(t *testing.T) {
		conn, _, err := gozk.Connect([]string{addr}, 10*time.Second, gozk.WithLogInfo(false))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		base := "/dubbo/" + zookeeper.EncodeComponent(bookFacade) + "/providers"
		for _, p := range []string{"/dubbo", "/dubbo/" + zookeeper.EncodeComponent(bookFacade), base} {
			if _, err := conn.Create(p, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil && err != gozk.ErrNodeExists {
				t.Fatal(err)
			}
		}
		for _, port := range []string{"20880", "20881"} {
			u := "dubbo://127.0.0.1:" + port + "/" + bookFacade + "?application=demo-provider&interface=" + bookFacade + "&methods=queryAll,queryByName"
			if _, err := conn.Create(base+"/"+zookeeper.EncodeComponent(u), nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, code := run(t, string(rule), "push", "--zk", addr, svcKey); code != ExitOK {
			t.Fatal("push")
		}
		for method, want := range map[string][]string{"queryAll": {"127.0.0.1:20880"}, "queryByName": {"127.0.0.1:20881"}, "addBook": {"127.0.0.1:20880", "127.0.0.1:20881"}} {
			out, errOut, code := run(t, "", "explain", "--zk", addr, "--service", bookFacade, "--app", "demo-consumer", "--method", method, "--json")
			var ex Explanation
			if code != ExitOK || json.Unmarshal([]byte(out), &ex) != nil {
				t.Fatalf("%s: exit %d, %q %q", method, code, out, errOut)
			}
			if !reflect.DeepEqual(ex.Eligible, want) || len(ex.Rules) != 1 || ex.Rules[0].Key != svcKey {
				t.Fatalf("%s: eligible %v, rules %+v; want %v", method, ex.Eligible, ex.Rules, want)
			}
		}
		if _, errOut, code := run(t, "", "explain", "--zk", addr, "--service", "com.foo.None", "--app", "a", "--method", "m"); code != ExitFail || !strings.Contains(errOut, "no provider of com.foo.None") {
			t.Fatalf("unknown service: exit %d, %q", code, errOut)
		}
	})
}

// TestZooKeeperUnreachable: a clear one-line error within the timeout, exit 1.
func TestZooKeeperUnreachable(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--zk", "127.0.0.1:1", "--timeout", "1s", svcKey},
		{"rm", "--zk", "127.0.0.1:1", "--timeout", "1s", svcKey},
		{"watch", "--zk", "127.0.0.1:1", "--timeout", "1s", svcKey},
		{"explain", "--zk", "127.0.0.1:1", "--timeout", "1s", "--service", bookFacade, "--app", "a", "--method", "m"},
	} {
		start := time.Now()
		_, errOut, code := run(t, "", args...)
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s: took %v with --timeout 1s", args[0], took)
		}
		if code != ExitFail || !strings.Contains(errOut, "connect to ZooKeeper 127.0.0.1:1") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errOut)
		}
	}
	// push lints before it connects: a good rule reaches the connection error.
	_, errOut, code := run(t, "conditions:\n  - => host=1.2.3.4\n", "push", "--zk", "127.0.0.1:1", "--timeout", "1s", svcKey)
	if code != ExitFail || !strings.Contains(errOut, "connect to ZooKeeper") {
		t.Errorf("push: exit %d, %q", code, errOut)
	}
}

// lineWriter hands complete output lines to a channel.
type lineWriter struct {
	mu    sync.Mutex
	buf   []byte
	lines chan string
}

func newLineWriter() *lineWriter { return &lineWriter{lines: make(chan string, 100)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		w.lines <- string(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
}
