package configurator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/router"
)

const localIP = "10.0.0.9"

func fixture(t *testing.T, name string) *Rule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "admin", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(strings.TrimSuffix(name, ".yaml")+".configurators", string(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func urls(r *Rule) []string {
	var out []string
	for _, c := range r.URLs {
		out = append(out, c.URL.String())
	}
	return out
}

func provider(s string) *router.URL { return router.MustParseURL(s) }

const demoConsumer = "consumer://10.0.0.9/org.apache.dubbo.demo.DemoService?application=demo-consumer&interface=org.apache.dubbo.demo.DemoService&side=consumer"

func consumerLists(svc *Rule) *Lists {
	var l Lists
	l[ListService] = svc.List
	return &l
}

// TestAdminFixtures checks every Dubbo Admin shape (spec Appendix A): the
// override URLs Java's ConfigParser makes of it and what it does to a
// provider (provider side) or to a consumer's view of a provider.
func TestAdminFixtures(t *testing.T) {
	t.Run("java-weight", func(t *testing.T) {
		r := fixture(t, "java-weight.yaml")
		want := []string{"override://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?category=dynamicconfigurators&configVersion=null&enabled=true&providerAddresses=192.168.0.1:20880&side=provider&version=:&weight=50"}
		if got := urls(r); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("urls\n got %q\nwant %q", got, want)
		}
		// Admin's key iface:: makes version ":": the rule never matches an
		// unversioned provider (spec §5.8).
		p := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService&side=provider&weight=100")
		if got, ok := r.List.Apply(p, "192.168.0.1"); len(ok) != 0 || got.Params.Value("weight") != "100" {
			t.Fatalf("applied to an unversioned provider: %v", got)
		}
		// With the version Admin's key really names (":"), it applies.
		pv := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService&side=provider&version=:")
		if got, ok := r.List.Apply(pv, "192.168.0.1"); len(ok) != 1 || got.Params.Value("weight") != "50" {
			t.Fatalf("not applied: %v", got)
		}
		// Provider-side items never change a consumer's view.
		cp := consumerLists(r).ConfigureProvider(pv, router.MustParseURL(demoConsumer), localIP)
		if len(cp.Applied) != 0 {
			t.Fatalf("provider item applied on a consumer: %+v", cp.Applied)
		}
	})
	t.Run("java-balancing", func(t *testing.T) {
		r := fixture(t, "java-balancing.yaml")
		p := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService&loadbalance=random&side=provider")
		cp := consumerLists(r).ConfigureProvider(p, router.MustParseURL(demoConsumer), localIP)
		if v, _ := cp.Param("loadbalance"); v != "roundrobin" {
			t.Fatalf("loadbalance = %q, want roundrobin (%v)", v, cp.Override)
		}
		if v, _ := cp.Param("weight"); v != "" {
			t.Fatalf("weight = %q", v)
		}
	})
	t.Run("java-balancing-without-item-enabled", func(t *testing.T) {
		b, _ := os.ReadFile("testdata/admin/java-balancing.yaml")
		r, err := Parse("k", strings.Replace(string(b), "- enabled: true\n  parameters", "- parameters", 1))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.URLs[0].URL.String(), "enabled=null") {
			t.Fatalf("want enabled=null: %s", r.URLs[0].URL)
		}
		p := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService")
		cp := consumerLists(r).ConfigureProvider(p, router.MustParseURL(demoConsumer), localIP)
		if len(cp.Applied) != 0 {
			t.Fatal("a typed item without enabled applied")
		}
		if len(r.Findings) == 0 {
			t.Fatal("no finding for the typed item without enabled")
		}
	})
	t.Run("java-loadbalance-v27", func(t *testing.T) {
		r := fixture(t, "java-loadbalance-v27.yaml")
		p := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService")
		cp := consumerLists(r).ConfigureProvider(p, router.MustParseURL(demoConsumer), localIP)
		if v, _ := cp.Param("strategy"); v != "random" || len(cp.Applied) != 1 {
			t.Fatalf("strategy = %q applied %d", v, len(cp.Applied))
		}
	})
	t.Run("go-timeout", func(t *testing.T) {
		r := fixture(t, "go-timeout.yaml")
		p := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService&side=provider&timeout=1000")
		got, applied := r.List.Apply(p, "192.168.0.1")
		if len(applied) != 1 || got.Params.Value("timeout") != "3000" {
			t.Fatalf("timeout: %v", got)
		}
		if _, ok := got.Params.Get("__generate_by_cp"); ok {
			t.Fatal("__generate_by_cp is an item field, not a parameter")
		}
		if got.Params.Value("providerAddresses") != "0.0.0.0" {
			t.Fatalf("providerAddresses leaks into the target as in Java: %v", got)
		}
	})
	t.Run("go-retries", func(t *testing.T) {
		r := fixture(t, "go-retries.yaml")
		l := consumerLists(r)
		c, applied := l.ConfigureConsumer(router.MustParseURL(demoConsumer), localIP)
		if len(applied) != 1 || c.Params.Value("retries") != "0" {
			t.Fatalf("consumer retries: %v", c)
		}
	})
	t.Run("go-accesslog", func(t *testing.T) {
		r := fixture(t, "go-accesslog.yaml")
		if len(r.URLs) != 2 || r.URLs[0].URL.Params.Value("application") != "demo-provider" || r.URLs[0].URL.Params.Value("category") != "appdynamicconfigurators" {
			t.Fatalf("urls: %q", urls(r))
		}
		p := provider("dubbo://192.168.0.2:20880/org.apache.dubbo.demo.DemoService?application=demo-provider&interface=org.apache.dubbo.demo.DemoService&side=provider")
		// Item 0: ConditionMatch has no "application" field (it is "app"),
		// so Java binds an empty match and the item applies everywhere.
		// Item 1: address wildcard "ip:*" is compared with the host alone
		// and never matches.
		got, applied := r.List.Apply(p, "192.168.0.2")
		if len(applied) != 1 || applied[0].Origin.Item != 0 || got.Params.Value("accesslog") != "true" {
			t.Fatalf("applied %v -> %v", applied, got)
		}
	})
	t.Run("go-flow-weight", func(t *testing.T) {
		r := fixture(t, "go-flow-weight.yaml")
		hz := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?application=demo-provider&region=hz&side=provider")
		sh := provider("dubbo://192.168.0.3:20880/org.apache.dubbo.demo.DemoService?application=demo-provider&region=sh&side=provider")
		if got, _ := r.List.Apply(hz, hz.Host); got.Params.Value("weight") != "50" {
			t.Fatalf("hz: %v", got)
		}
		if got, _ := r.List.Apply(sh, sh.Host); got.Params.Value("weight") != "" {
			t.Fatalf("sh: %v", got)
		}
	})
	t.Run("java-configurator-v3", func(t *testing.T) {
		r := fixture(t, "java-configurator-v3.yaml")
		p := provider("dubbo://10.0.0.1:20880/DemoService?application=demo-provider&match_key1=value1&side=provider")
		// The fixture's "10.0.0.1:20880" wildcard is compared with the host
		// without port: not applied (spec §5.3).
		if _, applied := r.List.Apply(p, p.Host); len(applied) != 0 {
			t.Fatal("applied")
		}
		b, _ := os.ReadFile("testdata/admin/java-configurator-v3.yaml")
		r2, err := Parse("k", strings.Replace(string(b), `wildcard: "10.0.0.1:20880"`, `cird: "10.0.0.0/24"`, 1))
		if err != nil {
			t.Fatal(err)
		}
		if got, applied := r2.List.Apply(p, p.Host); len(applied) != 1 || got.Params.Value("weight") != "200" {
			t.Fatalf("cird: %v", got)
		}
	})
}

// TestSortOrder is the probe of spec §5.4: specific hosts after 0.0.0.0,
// then priority ascending; the last applied wins.
func TestSortOrder(t *testing.T) {
	var us []*router.URL
	for _, s := range []string{
		"override://10.0.0.9/com.foo.Bar?timeout=3&category=configurators",
		"override://0.0.0.0/com.foo.Bar?timeout=1&priority=5",
		"override://0.0.0.0/com.foo.Bar?timeout=2&priority=1",
	} {
		us = append(us, router.MustParseURL(s))
	}
	l, ok, err := FromURLs(us, Origin{Key: "registry"})
	if err != nil || !ok {
		t.Fatal(err, ok)
	}
	c := router.MustParseURL("consumer://10.0.0.9/com.foo.Bar?side=consumer")
	got, _ := l.Apply(c, "10.0.0.9")
	if got.Params.Value("timeout") != "3" {
		t.Fatalf("timeout = %s", got.Params.Value("timeout"))
	}
	l2, _, _ := FromURLs(us[1:], Origin{Key: "registry"})
	if got, _ := l2.Apply(c, "10.0.0.9"); got.Params.Value("timeout") != "1" {
		t.Fatalf("priority: timeout = %s", got.Params.Value("timeout"))
	}
	// empty:// clears; no parameters skipped; nothing keeps.
	if l, ok, _ := FromURLs([]*router.URL{us[0], router.MustParseURL("empty://0.0.0.0/com.foo.Bar?category=configurators")}, Origin{}); !ok || len(l) != 0 {
		t.Fatalf("empty:// did not clear: %v", l)
	}
	if _, ok, _ := FromURLs(nil, Origin{}); ok {
		t.Fatal("an empty notification must keep the list")
	}
	if l, _, _ := FromURLs([]*router.URL{router.MustParseURL("override://0.0.0.0/com.foo.Bar?anyhost=true")}, Origin{}); len(l) != 0 {
		t.Fatal("a URL with only anyhost must be skipped")
	}
}

// TestDisabled: disabled=true (consumer side, by provider address) takes a
// provider out; enabled inside parameters never does.
func TestDisabled(t *testing.T) {
	rule := `configVersion: v2.7
scope: service
key: org.apache.dubbo.demo.DemoService
configs:
- side: consumer
  providerAddresses: ["192.168.0.1:20880"]
  parameters: {disabled: true}
- side: consumer
  parameters: {enabled: false}
`
	r, err := Parse("org.apache.dubbo.demo.DemoService::.configurators", rule)
	if err != nil {
		t.Fatal(err)
	}
	l := consumerLists(r)
	c := router.MustParseURL(demoConsumer)
	p1 := l.ConfigureProvider(provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService"), c, localIP)
	p2 := l.ConfigureProvider(provider("dubbo://192.168.0.2:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService"), c, localIP)
	if p1.Enabled() || !p2.Enabled() {
		t.Fatalf("enabled: p1 %v p2 %v", p1.Enabled(), p2.Enabled())
	}
	if by := p1.DisabledBy(); by == nil || by.Configurator.Origin.Item != 0 {
		t.Fatalf("disabled by %+v", by)
	}
	// A provider registered with enabled=false is not an invoker either.
	p3 := (&Lists{}).ConfigureProvider(provider("dubbo://192.168.0.3:20880/x?enabled=false"), c, localIP)
	if p3.Enabled() {
		t.Fatal("enabled=false provider")
	}
}

// TestRejected: what Java fails to parse is rejected naming the line.
func TestRejected(t *testing.T) {
	for name, tc := range map[string]struct {
		text, want string
	}{
		"empty":          {"", "empty content"},
		"no configs":     {"key: a\nscope: service\n", "configs"},
		"no key":         {"configs:\n- side: consumer\n  parameters: {a: b}\n", "line 2"},
		"no parameters":  {"key: a\nconfigs:\n- side: consumer\n", "line 3"},
		"numeric cv":     {"configVersion: 3.0\nkey: a\nconfigs: []\n", "line 1"},
		"two docs":       {"key: a\nconfigs: []\n---\nkey: b\n", "more than one"},
		"side both":      {"key: a\nconfigs:\n- side: both\n  parameters: {a: b}\n", "line 3"},
		"null parameter": {"key: a\nconfigs:\n- side: consumer\n  parameters:\n    a: ~\n", "line 5"},
		"bad priority":   {"key: a\nconfigs:\n- side: consumer\n  parameters: {priority: x}\n- side: consumer\n  parameters: {priority: 1}\n", "priority"},
	} {
		_, err := Parse("a.configurators", tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
	// configs: [] parses and keeps the previous list.
	r, err := Parse("a.configurators", "key: a\nconfigs: []\n")
	if err != nil || !r.Keep {
		t.Fatalf("configs: [] -> %v keep=%v", err, r != nil && r.Keep)
	}
}

// TestSideCase: side is case-insensitive (Java's URL parameter table).
func TestSideCase(t *testing.T) {
	r, err := Parse("k", "configVersion: v2.7\nkey: org.apache.dubbo.demo.DemoService\nconfigs:\n- side: Consumer\n  parameters: {timeout: 5}\n")
	if err != nil {
		t.Fatal(err)
	}
	cp := consumerLists(r).ConfigureProvider(provider("dubbo://1.2.3.4:20880/org.apache.dubbo.demo.DemoService"), router.MustParseURL(demoConsumer), localIP)
	if v, _ := cp.Param("timeout"); v != "5" {
		t.Fatalf("timeout %q", v)
	}
}

// TestJSONArray: the compatible JSON-array-of-URLs form.
func TestJSONArray(t *testing.T) {
	r, err := Parse("k", `["override://0.0.0.0/org.apache.dubbo.demo.DemoService?category=configurators&timeout=6666&side=consumer"]`)
	if err != nil || r.Form != "json-urls" || len(r.List) != 1 {
		t.Fatal(err, r)
	}
	cp := consumerLists(r).ConfigureProvider(provider("dubbo://1.2.3.4:20880/org.apache.dubbo.demo.DemoService"), router.MustParseURL(demoConsumer), localIP)
	if v, _ := cp.Param("timeout"); v != "6666" {
		t.Fatalf("timeout %q (%v)", v, cp.Override)
	}
}

// TestYAMLLimits: configurators go through SnakeYAML's default limits like
// every other rule kind (Java's ConfigParser loads them with the default
// LoaderOptions): too deep or too many aliases is a parse error naming the
// line, so the configurators in force stay; the same text within the
// limits parses.
func TestYAMLLimits(t *testing.T) {
	base := "configVersion: v3.0\nscope: application\nkey: app\nconfigs:\n  - side: consumer\n    parameters: {timeout: 1000}\n"
	for name, tc := range map[string]struct {
		text, want string
	}{
		"deep":    {base + "x: " + strings.Repeat("[", 52) + strings.Repeat("]", 52) + "\n", "deeper than 51"},
		"aliases": {"a: &a [1]\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", 51), ", ") + "]\n" + base, "aliases"},
	} {
		_, err := Parse("app.configurators", tc.text)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line == 0 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *ParseError with a line and %q", name, err, tc.want)
		}
	}
	if _, err := Parse("app.configurators", base+"x: "+strings.Repeat("[", 40)+strings.Repeat("]", 40)+"\n"); err != nil {
		t.Errorf("within the limits: %v", err)
	}
}

// TestApplicationScopeWithoutKey: an application-scope rule whose key is
// missing or null gets application=null from Java's ConfigParser (it
// appends the null reference), so it configures no real consumer; an empty
// string key is not null. Found by the configurator differential (seed
// 91731).
func TestApplicationScopeWithoutKey(t *testing.T) {
	p := provider("dubbo://192.168.0.1:20880/org.apache.dubbo.demo.DemoService?interface=org.apache.dubbo.demo.DemoService")
	c := router.MustParseURL(demoConsumer)
	for _, tc := range []struct {
		name, keyLine string
		wantApp       string
	}{
		{"missing", "", "null"},
		{"empty value", "key:\n", "null"},
		{"null", "key: null\n", "null"},
		{"tilde", "key: ~\n", "null"},
		{"consumer app", "key: demo-consumer\n", "demo-consumer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule := "configVersion: v3.0\nscope: application\n" + tc.keyLine + "configs:\n- side: consumer\n  addresses: [0.0.0.0]\n  parameters: {disabled: true}\n"
			r, err := Parse("demo-consumer.configurators", rule)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.URLs) != 1 || r.URLs[0].URL.Params.Value("application") != tc.wantApp {
				t.Fatalf("urls %v, want application=%s", urls(r), tc.wantApp)
			}
			var l Lists
			l[ListApp] = r.List
			cp := l.ConfigureProvider(p, c, localIP)
			got := cp.Enabled()
			if want := tc.wantApp != "demo-consumer"; got != want {
				t.Fatalf("provider enabled = %v, want %v", got, want)
			}
			finding := false
			for _, f := range r.Findings {
				finding = finding || f.Field == "key"
			}
			if finding != (tc.wantApp == "null") {
				t.Fatalf("findings %+v", r.Findings)
			}
		})
	}
}

// TestParseMatchNotes pins the notes of match fields that are not mappings
// (PojoUtils leaves them unset).
func TestParseMatchNotes(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("address: 1.2.3.4\nservice: [a]\napp: ~\nproviderAddress: {exact: '1.2.3.4:20880'}\n"), &doc); err != nil {
		t.Fatal(err)
	}
	m, notes := parseMatch(doc.Content[0])
	want := []string{
		"match.address is not a mapping (cird, wildcard or exact) and is ignored",
		"match.service is not a mapping with oneof and is ignored",
	}
	if strings.Join(notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes = %q, want %q", notes, want)
	}
	if m.Address != nil || m.Service != nil || m.App != nil || m.ProviderAddress == nil || *m.ProviderAddress.Exact != "1.2.3.4:20880" {
		t.Errorf("match = %+v, want only providerAddress bound", m)
	}
}
