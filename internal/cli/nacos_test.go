package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/directory/nacos"
	inacos "github.com/dubboroute/dubboroute/integration/nacos"
)

// TestNacosCommands runs get, push, rm, watch and live explain with
// --nacos against one private rnacos.
func TestNacosCommands(t *testing.T) {
	srv := inacos.Start(t)
	addr := srv.Addr()
	rule, err := os.ReadFile("testdata/lint/good/com.muke.dubbocourse.common.api.BookFacade%3A%3A.condition-router")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := nacos.Dial([]string{addr})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Run("push-get-rm", func(t *testing.T) {
		out, errOut, code := run(t, string(rule), "push", "--nacos", addr, svcKey)
		want := "pushed " + svcKey + " to Nacos dataId " + svcKey + " group dubbo namespace public (md5 " + nacos.MD5(string(rule)) + ")\n"
		if code != ExitOK || out != want {
			t.Fatalf("push: exit %d, %q %q; want %q", code, out, errOut, want)
		}
		// Where Dubbo Admin and Java read: dataId = key, group dubbo.
		if got, _, err := raw.GetConfig(ctx, "dubbo", svcKey); err != nil || got != string(rule) {
			t.Fatalf("raw read: %q, %v", got, err)
		}
		if out, _, code = run(t, "", "get", "--nacos", addr, svcKey); code != ExitOK || out != string(rule) {
			t.Fatalf("get: exit %d, %q", code, out)
		}
		out, _, code = run(t, "", "get", "--nacos", addr, "--json", svcKey)
		var got struct {
			DataID, Group, Namespace, MD5, Content string
		}
		if code != ExitOK || json.Unmarshal([]byte(out), &got) != nil || got.DataID != svcKey || got.Group != "dubbo" || got.Namespace != "public" || got.MD5 != nacos.MD5(string(rule)) || got.Content != string(rule) {
			t.Fatalf("get --json: exit %d, %s", code, out)
		}
		// A rule lint rejects is refused, and the stored rule stays.
		bad := "conditions:\n  - a==b => host=1.2.3.4\n"
		if _, errOut, code = run(t, bad, "push", "--nacos", addr, svcKey, "-"); code != ExitFail || !strings.Contains(errOut, "refused to push") {
			t.Fatalf("push of a bad rule: exit %d, %q", code, errOut)
		}
		if out, _, _ := run(t, "", "get", "--nacos", addr, svcKey); out != string(rule) {
			t.Fatalf("stored rule changed by a refused push: %q", out)
		}
		// Namespace and group select another config.
		if _, errOut, code := run(t, string(rule), "push", "--nacos", addr, "--namespace", "dev", "--group", "team", svcKey); code != ExitOK {
			t.Fatalf("push to dev/team: %s", errOut)
		}
		if got, _, err := (mustDial(t, addr, nacos.WithNamespace("dev"))).GetConfig(ctx, "team", svcKey); err != nil || got != string(rule) {
			t.Fatalf("raw read dev/team: %q, %v", got, err)
		}
		if out, _, code := run(t, "", "rm", "--nacos", addr, svcKey); code != ExitOK || out != "deleted "+svcKey+" (Nacos dataId "+svcKey+" group dubbo namespace public)\n" {
			t.Fatalf("rm: exit %d, %q", code, out)
		}
		if _, errOut, code := run(t, "", "get", "--nacos", addr, svcKey); code != ExitFail || !strings.Contains(errOut, "no rule "+svcKey) || !strings.Contains(errOut, "does not exist") {
			t.Fatalf("get after rm: exit %d, %q", code, errOut)
		}
		if _, errOut, code := run(t, "", "rm", "--nacos", addr, svcKey); code != ExitFail || !strings.Contains(errOut, "does not exist") {
			t.Fatalf("rm of a missing rule: exit %d, %q", code, errOut)
		}
		// namespace "dubbo" (Dubbo's default) is the public namespace.
		if _, _, code := run(t, string(rule), "push", "--nacos", addr, "--namespace", "dubbo", svcKey); code != ExitOK {
			t.Fatal("push --namespace dubbo")
		}
		if out, _, code := run(t, "", "get", "--nacos", addr, svcKey); code != ExitOK || out != string(rule) {
			t.Fatalf("namespace dubbo is not public: %q", out)
		}
		if out, _, code := run(t, "", "get", "--nacos", addr, "--namespace", "dev", "--group", "team", svcKey); code != ExitOK || out != string(rule) {
			t.Fatalf("get dev/team: %q", out)
		}
		if _, errOut, code := run(t, "", "get", "--nacos", addr, "--zk", "127.0.0.1:1", svcKey); code != ExitUsage || !strings.Contains(errOut, "not both") {
			t.Fatalf("--zk and --nacos: exit %d, %q", code, errOut)
		}
	})

	t.Run("watch", func(t *testing.T) {
		testWatchLifecycle(t, ctx, cliStore{
			flags: []string{"--nacos", addr},
			firstEvent: func(ev WatchEvent, key string) bool {
				return ev.DataID == key && ev.Group == "dubbo" && ev.MD5 != "" && ev.Version == nil
			},
			wantFirst: ", with Nacos's dataId/group/md5",
		})
	})

	t.Run("explain-live", func(t *testing.T) {
		dir := t.TempDir()
		var urls []string
		for _, port := range []string{"20880", "20881"} {
			urls = append(urls, "dubbo://127.0.0.1:"+port+"/"+bookFacade+"?application=demo-provider&interface="+bookFacade+"&methods=queryAll,queryByName")
		}
		pf := filepath.Join(dir, "providers.txt")
		if err := os.WriteFile(pf, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, code := run(t, string(rule), "push", "--nacos", addr, svcKey); code != ExitOK {
			t.Fatal("push")
		}
		for method, want := range map[string][]string{"queryAll": {"127.0.0.1:20880"}, "queryByName": {"127.0.0.1:20881"}} {
			out, errOut, code := run(t, "", "explain", "--nacos", addr, "--providers", pf, "--service", bookFacade, "--app", "demo-consumer", "--method", method, "--json")
			var ex Explanation
			if code != ExitOK || json.Unmarshal([]byte(out), &ex) != nil {
				t.Fatalf("%s: exit %d, %q %q", method, code, out, errOut)
			}
			if !reflect.DeepEqual(ex.Eligible, want) || len(ex.Rules) != 1 || ex.Rules[0].Key != svcKey || ex.Rules[0].Source != "Nacos dataId "+svcKey+" group dubbo namespace public" {
				t.Fatalf("%s: eligible %v, rules %+v; want %v from the Nacos dataId", method, ex.Eligible, ex.Rules, want)
			}
		}
		if _, errOut, code := run(t, "", "explain", "--nacos", addr, "--service", bookFacade, "--app", "a", "--method", "m"); code != ExitUsage || !strings.Contains(errOut, "--providers") {
			t.Fatalf("--nacos without providers: exit %d, %q", code, errOut)
		}
	})
}

func mustDial(t *testing.T, addr string, opts ...nacos.Option) *nacos.Client {
	t.Helper()
	c, err := nacos.Dial([]string{addr}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestNacosUnreachable: a clear one-line error within the timeout, exit 1.
func TestNacosUnreachable(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--nacos", "127.0.0.1:1", "--timeout", "1s", svcKey},
		{"rm", "--nacos", "127.0.0.1:1", "--timeout", "1s", svcKey},
		{"watch", "--nacos", "127.0.0.1:1", "--timeout", "1s", svcKey},
	} {
		_, errOut, code := run(t, "", args...)
		if code != ExitFail || !strings.Contains(errOut, "connect to Nacos 127.0.0.1:1") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errOut)
		}
	}
}
