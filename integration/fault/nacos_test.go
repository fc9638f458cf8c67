package fault

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	inacos "github.com/dubboroute/dubboroute/integration/nacos"
	"github.com/dubboroute/dubboroute/internal/cli"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// nacosCLI runs the dubboroute CLI (in process) against Nacos at addr and
// fails t unless it exits with want.
func nacosCLI(t *testing.T, addr, stdin string, want int, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	full := append([]string{args[0], "--nacos", addr}, args[1:]...)
	if code := cli.Run(ctx, full, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb}); code != want {
		t.Fatalf("dubboroute %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(full, " "), code, want, out.String(), errb.String())
	}
	return out.String()
}

// nacosPush pushes a rule with `dubboroute push --nacos` (--force: the
// malformed ones too, as a user with another tool would write them).
func nacosPush(t *testing.T, addr, key, content string) {
	t.Helper()
	nacosCLI(t, addr, content, cli.ExitOK, "push", "--force", key, "-")
}

// TestNacosRules: a Go consumer whose config center is Nacos (rnacos;
// providers on ZooKeeper) is steered by condition, tag, mesh and
// configurator rules pushed to Nacos with the CLI, at the dataIds and group
// Dubbo Admin uses; a delete reverts; a malformed update keeps the last good
// rule and is logged with its key and line; a provider reads its
// provider-side configurators from Nacos too.
func TestNacosRules(t *testing.T) {
	srv := inacos.Start(t)
	na := srv.Addr()
	gray := map[string]string{"status": "gray"}
	w := newWorld(t, []harness.ProviderOptions{{ConfigCenter: "nacos://" + na}, {}, {Params: gray}}, harness.ConsumerOptions{ConfigCenter: "nacos://" + na})
	p1, p2, p3 := w.ps[0], w.ps[1], w.ps[2]
	all := []*harness.Provider{p1, p2, p3}

	t.Run("condition", func(t *testing.T) {
		rule := fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p1.Port)
		nacosPush(t, na, svcKey, rule)
		ex := w.waitRouted(t, harness.QueryAll, p1)
		t.Logf("routed by %v", ex.Rules)
		// A malformed update (line 7 is not a condition) keeps the rule.
		mark := []string{"rule key=" + svcKey + " ", rejectedMark}
		before := countLog(w.c.Proc, mark...)
		nacosPush(t, na, svcKey, rule+"  - \"method = => =>\"\n")
		if err := harness.Eventually(settle, func() error {
			if countLog(w.c.Proc, mark...) <= before {
				return fmt.Errorf("no rejection of %s logged", svcKey)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		line := lastLog(w.c.Proc, mark...)
		if !lineRE(7).MatchString(line) {
			t.Errorf("the rejection does not name the line: %s", line)
		}
		t.Logf("rejected: %.300s", line)
		if ports, err := w.c.Ports(harness.QueryAll, 20); err != nil || len(ports) != 1 || ports[p1.Port] != 20 {
			t.Fatalf("after the malformed update: served %v, %v; want all 20 on p1 %d (the last good rule)", ports, err, p1.Port)
		}
		nacosCLI(t, na, "", cli.ExitOK, "rm", svcKey)
		w.waitRouted(t, harness.QueryAll, all...)
	})

	t.Run("tag", func(t *testing.T) {
		rule := fmt.Sprintf("force: false\nenabled: true\nkey: %s\ntags:\n  - name: blue\n    addresses: [\"%s\"]\n", api.ProviderApp, p2.Addr)
		nacosPush(t, na, tagKey, rule)
		blue := harness.QueryAll.WithTag("blue", false)
		w.waitRouted(t, blue, p2)
		nacosCLI(t, na, "", cli.ExitOK, "rm", tagKey)
		w.waitRouted(t, blue, all...)
	})

	t.Run("mesh", func(t *testing.T) {
		const meshKey = api.ProviderApp + ".MESHAPPRULE"
		rule := "apiVersion: service.dubbo.apache.org/v1alpha1\nkind: DestinationRule\nmetadata: {name: bookfacade}\nspec:\n  host: demo-provider\n  subsets:\n    - {name: gray, labels: {status: gray}}\n" +
			"---\napiVersion: service.dubbo.apache.org/v1alpha1\nkind: VirtualService\nmetadata: {name: bookfacade}\nspec:\n  hosts: [demo-provider]\n  dubbo:\n" +
			"    - services: [{exact: " + api.Interface + "}]\n      routedetail:\n        - name: by-name\n          match:\n            - method: {name_match: {exact: queryByName}}\n" +
			"          route:\n            - destination: {host: demo-provider, subset: gray}\n"
		nacosPush(t, na, meshKey, rule)
		w.waitRouted(t, harness.QueryByName, p3)
		nacosCLI(t, na, "", cli.ExitOK, "rm", meshKey)
		w.waitRouted(t, harness.QueryByName, all...)
	})

	t.Run("configurators", func(t *testing.T) {
		// Consumer side: <consumer-app>.configurators disables p1.
		key := consumerApp + ".configurators"
		rule := fmt.Sprintf("configVersion: v3.0\nscope: application\nkey: %s\nenabled: true\nconfigs:\n- side: consumer\n  providerAddresses: [%q]\n  parameters: {disabled: \"true\"}\n", consumerApp, p1.Addr)
		nacosPush(t, na, key, rule)
		served := func(want func(map[int]int) bool) error {
			return harness.Eventually(settle, func() error {
				ports, err := w.c.Ports(harness.QueryAll, 30)
				if err == nil && !want(ports) {
					err = fmt.Errorf("served %v", ports)
				}
				return err
			})
		}
		if err := served(func(p map[int]int) bool { return p[p1.Port] == 0 && p[p2.Port] > 0 }); err != nil {
			t.Fatalf("consumer-side configurator from Nacos (p1 %d disabled) not applied: %v", p1.Port, err)
		}
		nacosCLI(t, na, "", cli.ExitOK, "rm", key)
		if err := served(func(p map[int]int) bool { return p[p1.Port] > 0 }); err != nil {
			t.Fatalf("delete of the consumer-side configurator did not revert (p1 %d): %v", p1.Port, err)
		}

		// Provider side: p1 (config center Nacos) re-registers itself with
		// weight 200 from <provider-app>.configurators.
		pkey := api.ProviderApp + ".configurators"
		nacosPush(t, na, pkey, fmt.Sprintf("configs:\n- addresses:\n  - %s\n  enabled: true\n  parameters:\n    weight: 200\n  side: provider\nenabled: true\nkey: %s\nscope: application\n", p1.Addr, api.ProviderApp))
		registered := func() (string, error) {
			regs, err := w.rules.Providers(api.Interface)
			if err != nil {
				return "", err
			}
			for _, r := range regs {
				if r.Addr() == p1.Addr {
					return r.Param("weight"), nil
				}
			}
			return "", fmt.Errorf("%s not registered", p1.Addr)
		}
		// After the delete p1 re-registers without the item: its weight is
		// no longer 200 (dubbo-go writes its default, 100, where the first
		// registration had none).
		for _, want := range []bool{true, false} {
			if err := harness.Eventually(settle, func() error {
				wt, err := registered()
				if err == nil && (wt == "200") != want {
					err = fmt.Errorf("p1 registered with weight %q (want 200: %v)", wt, want)
				}
				return err
			}); err != nil {
				t.Fatalf("provider-side configurator from Nacos: %v", err)
			}
			if want {
				nacosCLI(t, na, "", cli.ExitOK, "rm", pkey)
			}
		}
	})

	// The console and explain name where each rule came from.
	t.Run("source-named", func(t *testing.T) {
		rule := fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p2.Port)
		nacosPush(t, na, svcKey, rule)
		w.waitRouted(t, harness.QueryAll, p2)
		want := "Nacos dataId " + svcKey + " group dubbo namespace public"
		if !strings.Contains(w.c.Log(), want) {
			t.Errorf("the consumer log does not name %q", want)
		}
		nacosCLI(t, na, "", cli.ExitOK, "rm", svcKey)
	})
}

// nacosOutage is how long rnacos stays down in TestNacosFaults.
const nacosOutage = 10 * time.Second

// TestNacosFaults: under a steady load (retries 0), rnacos is killed and kept down for
// 10 s and started again: no call fails, the rule in force keeps routing,
// and a rule written after the restart routes. Then the consumer is cut off
// from Nacos (a proxy in front of both of its ports), a rule is written
// meanwhile, and it routes once the consumer reaches Nacos again. The
// registry is ZooKeeper.
func TestNacosFaults(t *testing.T) {
	srv := inacos.Start(t)
	proxy := inacos.StartProxy(t, srv)
	na := srv.Addr()
	w := newWorld(t, []harness.ProviderOptions{{}, {}}, harness.ConsumerOptions{ConfigCenter: "nacos://" + proxy.Addr()})
	p1, p2 := w.ps[0], w.ps[1]
	ruleTo := func(p *harness.Provider) string {
		return fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p.Port)
	}
	nacosPush(t, na, svcKey, ruleTo(p1))
	w.waitRouted(t, harness.QueryAll, p1)

	const rate = 100
	l := startLoad(w.c, loadSpec{Call: harness.QueryAll, Rate: rate})
	defer l.stop(t)
	waitCalls(t, l, rate)

	// Killed, as a crash would (a graceful stop waits up to 10 s for
	// rnacos to close its client connections).
	down := time.Now()
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(nacosOutage)
	if ex, err := w.c.Explain(harness.QueryAll); err != nil || !harness.Same(ex.Routed, p1.Addr) {
		t.Errorf("after %v without Nacos: routed %v, %v; want p1 (the rule in force)", nacosOutage, ex.Routed, err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	t.Logf("rnacos down %v", up.Sub(down).Round(time.Millisecond))
	nacosPush(t, na, svcKey, ruleTo(p2))
	written := time.Now()
	w.waitRouted(t, harness.QueryAll, p2)
	t.Logf("rule written %v after the restart routing %v after the write", written.Sub(up).Round(time.Millisecond), time.Since(written).Round(time.Millisecond))

	proxy.Cut()
	time.Sleep(2 * time.Second) // the consumer's long-poll fails; it retries
	nacosPush(t, na, svcKey, ruleTo(p1))
	time.Sleep(2 * time.Second)
	if ex, err := w.c.Explain(harness.QueryAll); err != nil || !harness.Same(ex.Routed, p2.Addr) {
		t.Fatalf("cut off from Nacos, the consumer routes %v, %v; want p2 still (it cannot have read the new rule)", ex.Routed, err)
	}
	restored := time.Now()
	proxy.Restore()
	w.waitRouted(t, harness.QueryAll, p1)
	t.Logf("rule written while cut off routing %v after the consumer could reach Nacos again", time.Since(restored).Round(time.Millisecond))
	waitCalls(t, l, l.calls()+rate)

	batches := l.stop(t)
	st := l.stats()
	t.Logf("load: %s", st)
	if st.Failed > 0 {
		t.Errorf("%d of %d calls failed", st.Failed, st.Calls)
	}
	checkCalls(t, "queryAll", batches, onSnapshot)
}

// TestDubboGoRuleGroups (issue 32 item 4): a rule where dubbo-go itself
// reads rules routes the Go consumer as it did with dubbo-go alone; the
// same key where Java and Dubbo Admin keep it wins while it exists;
// deleting that one brings dubbo-go's back; deleting both routes to every
// provider. The CLI reads and writes both places.
//   - Nacos: dubbo-go's group is config-center.group, default
//     DEFAULT_GROUP (where the dubbo-go samples put rules); Java's is dubbo.
//   - ZooKeeper with config-center.namespace ns: dubbo-go reads
//     /dubbo/config/ns/<key>, Java /ns/config/dubbo/<key>.
func TestDubboGoRuleGroups(t *testing.T) {
	rule := func(p *harness.Provider) string {
		return fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - method=queryAll => address=*:%d\n", api.Interface, p.Port)
	}
	t.Run("nacos", func(t *testing.T) {
		srv := inacos.Start(t)
		na := srv.Addr()
		w := newWorld(t, []harness.ProviderOptions{{}, {}}, harness.ConsumerOptions{ConfigCenter: "nacos://" + na})
		p1, p2 := w.ps[0], w.ps[1]
		nacosCLI(t, na, rule(p1), cli.ExitOK, "push", "--group", "DEFAULT_GROUP", svcKey, "-")
		w.waitRouted(t, harness.QueryAll, p1)
		if got := nacosCLI(t, na, "", cli.ExitOK, "get", "--group", "DEFAULT_GROUP", svcKey); !strings.Contains(got, fmt.Sprintf("*:%d", p1.Port)) {
			t.Errorf("dubboroute get --group DEFAULT_GROUP: %q", got)
		}
		nacosPush(t, na, svcKey, rule(p2)) // Admin's group "dubbo"
		w.waitRouted(t, harness.QueryAll, p2)
		nacosCLI(t, na, "", cli.ExitOK, "rm", svcKey)
		w.waitRouted(t, harness.QueryAll, p1)
		nacosCLI(t, na, "", cli.ExitOK, "rm", "--group", "DEFAULT_GROUP", svcKey)
		w.waitRouted(t, harness.QueryAll, p1, p2)
	})
	t.Run("zookeeper-namespace", func(t *testing.T) {
		w := newWorldCC(t, []harness.ProviderOptions{{}, {}}, harness.ConsumerOptions{}, "?config-center.namespace=ns")
		p1, p2 := w.ps[0], w.ps[1]
		zkAddr := w.zk.Addr()
		zkCLI := func(stdin string, args ...string) string {
			t.Helper()
			var out, errb bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			full := append([]string{args[0], "--zk", zkAddr}, args[1:]...)
			if code := cli.Run(ctx, full, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb}); code != cli.ExitOK {
				t.Fatalf("dubboroute %s: exit %d\n%s", strings.Join(full, " "), code, errb.String())
			}
			return out.String()
		}
		goPlace := []string{"--root", "/dubbo/config", "--group", "ns"}
		javaPlace := []string{"--root", "/ns/config", "--group", "dubbo"}
		zkCLI(rule(p1), append(append([]string{"push", "--force"}, goPlace...), svcKey, "-")...)
		w.waitRouted(t, harness.QueryAll, p1)
		zkCLI(rule(p2), append(append([]string{"push", "--force"}, javaPlace...), svcKey, "-")...)
		w.waitRouted(t, harness.QueryAll, p2)
		zkCLI("", append(append([]string{"rm"}, javaPlace...), svcKey)...)
		w.waitRouted(t, harness.QueryAll, p1)
		zkCLI("", append(append([]string{"rm"}, goPlace...), svcKey)...)
		w.waitRouted(t, harness.QueryAll, p1, p2)
	})
}
