package extension_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
)

// providerAddr is the ip:port a test provider registered with.
func providerAddr(t *testing.T, port int) string {
	t.Helper()
	for _, s := range memory.Registry.Providers(api.Interface) {
		u, err := common.NewURL(s)
		if err == nil && u.Port == strconv.Itoa(port) {
			return u.Location
		}
	}
	t.Fatalf("no provider on port %d in %v", port, memory.Registry.Providers(api.Interface))
	return ""
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConfiguratorsOverRPC (issue 13): Dubbo Admin's dynamic configuration
// on a Go consumer over real RPC: a consumer-side disabled=true takes a
// provider out before any router, weight 0 starves one, a malformed update
// keeps the last good rule, loadbalance and retries reach the invoker URLs
// the cluster reads, an empty update keeps the rule (Java: only a delete
// clears) and the delete restores everything.
func TestConfiguratorsOverRPC(t *testing.T) {
	const app = "demo-consumer-cfg"
	key := app + ".configurators"
	cleanup(t, key)
	c := newConsumer(t, consumer.Options{App: app, LoadBalance: "random"})
	if got := ports(t, 30, queryAll(c, nil)); len(got) != 3 {
		t.Fatalf("before any configurator: %v, want all three providers", got)
	}
	b := extension.BindingFor(api.Interface, app)
	if b == nil {
		t.Fatal("no binding")
	}
	a0, a1 := providerAddr(t, p0), providerAddr(t, p1)
	rule := func(items string) string {
		return "configVersion: v3.0\nscope: application\nkey: " + app + "\nenabled: true\nconfigs:\n" + items
	}
	disable0 := fmt.Sprintf("- side: consumer\n  providerAddresses: [%q]\n  parameters: {disabled: true}\n", a0)
	memory.PutRule(key, rule(disable0))
	waitFor(t, "p0 disabled", func() bool { return len(b.Chain().Snapshot().Invokers) == 2 })
	if got := ports(t, 40, queryAll(c, nil)); got[strconv.Itoa(p0)] != 0 || got["err"] != 0 {
		t.Errorf("p0 disabled: %v", got)
	}
	if d := b.Chain().Snapshot().Disabled; len(d) != 1 || d[0].URL.Port != p0 {
		t.Errorf("snapshot disabled: %+v", d)
	}

	// Weight 0 on p1 (random balancer): p1 never picked.
	weight := disable0 + fmt.Sprintf("- side: consumer\n  providerAddresses: [%q]\n  parameters: {weight: \"0\"}\n", a1)
	memory.PutRule(key, rule(weight))
	waitFor(t, "p1 weight 0", func() bool {
		for _, ivk := range b.Chain().Snapshot().Invokers {
			if ivk.GetURL().Port == strconv.Itoa(p1) && ivk.GetURL().GetParam("weight", "") == "0" {
				return true
			}
		}
		return false
	})
	if got := ports(t, 60, queryAll(c, nil)); got[strconv.Itoa(p1)] != 0 || got[strconv.Itoa(p2)] != 60 {
		t.Errorf("p1 weight 0: %v", got)
	}

	// Malformed: rejected, the last good rule stays.
	before := b.Configurators()
	memory.PutRule(key, rule("- side: consumer\n  parameters:\n    timeout: ~\n"))
	time.Sleep(100 * time.Millisecond)
	if after := b.Configurators(); len(after[1]) != 2 || &after[1][0] != &before[1][0] {
		t.Errorf("a rejected rule replaced the configurators: %v -> %v", before, after)
	}
	if got := ports(t, 20, queryAll(c, nil)); got[strconv.Itoa(p0)] != 0 || got[strconv.Itoa(p1)] != 0 {
		t.Errorf("after malformed updates: %v", got)
	}

	// loadbalance and retries reach the URLs dubbo-go's cluster reads
	// (the consumer's own balancer is random, its retries 0).
	memory.PutRule(key, rule("- side: consumer\n  parameters: {loadbalance: roundrobin, retries: \"2\", timeout: \"1500\"}\n"))
	waitFor(t, "roundrobin", func() bool {
		ivks := b.Chain().Snapshot().Invokers
		return len(ivks) == 3 && ivks[0].GetURL().GetParam("loadbalance", "") == "roundrobin"
	})
	for _, ivk := range b.Chain().Snapshot().Invokers {
		u := ivk.GetURL()
		if u.GetParam("retries", "") != "2" || u.GetParam("timeout", "") != "1500" {
			t.Errorf("invoker URL %s: retries/timeout not configured", u)
		}
	}
	if got := ports(t, 30, queryAll(c, nil)); len(got) != 3 || got["err"] != 0 {
		t.Errorf("roundrobin over three: %v", got)
	}

	// Delete restores the providers' own URLs.
	memory.DeleteRule(key)
	waitFor(t, "delete", func() bool {
		ivks := b.Chain().Snapshot().Invokers
		return len(ivks) == 3 && !strings.Contains(ivks[0].GetURL().String(), "retries=2")
	})
	if got := ports(t, 30, queryAll(c, nil)); len(got) != 3 {
		t.Errorf("after delete: %v", got)
	}
}

// registeredParam is a parameter of the provider on port as registered.
func registeredParam(port int, key string) (string, bool) {
	for _, s := range memory.Registry.Providers(api.Interface) {
		u, err := common.NewURL(s)
		if err == nil && u.Port == strconv.Itoa(port) {
			return u.GetParam(key, ""), true
		}
	}
	return "", false
}

// TestProviderSideConfiguratorsReRegister (issue 13): a side: provider item
// in Dubbo Admin's shape (addresses ip:port) makes a Go provider with the
// extension re-register with the configured URL, as a Java provider does,
// so every consumer (Java ones included) sees it; other providers keep
// theirs; the delete restores the original registration. Top-level
// enabled is absent: Java reads it as true (dubbo-go's own parser as false).
func TestProviderSideConfiguratorsReRegister(t *testing.T) {
	key := api.ProviderApp + ".configurators"
	cleanup(t, key)
	a0 := providerAddr(t, p0)
	if w, _ := registeredParam(p0, "weight"); w != "100" {
		t.Fatalf("p0 registers weight %q before the rule", w)
	}
	memory.PutRule(key, fmt.Sprintf("configVersion: v3.0\nscope: application\nkey: %s\nconfigs:\n- addresses: [%q]\n  side: provider\n  parameters: {weight: \"7\", timeout: \"1234\"}\n", api.ProviderApp, a0))
	waitFor(t, "p0 re-registered", func() bool { w, _ := registeredParam(p0, "weight"); return w == "7" })
	if v, _ := registeredParam(p0, "timeout"); v != "1234" {
		t.Errorf("p0 timeout = %q", v)
	}
	if w, _ := registeredParam(p1, "weight"); w != "100" {
		t.Errorf("p1 changed too: weight %q", w)
	}
	n := 0
	for _, s := range memory.Registry.Providers(api.Interface) {
		if strings.Contains(s, ":"+strconv.Itoa(p0)+"/") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("p0 is registered %d times", n)
	}
	memory.DeleteRule(key)
	waitFor(t, "p0 restored", func() bool { w, _ := registeredParam(p0, "weight"); return w == "100" })
	if v, _ := registeredParam(p0, "timeout"); v == "1234" {
		t.Errorf("delete did not restore p0's timeout")
	}
}
