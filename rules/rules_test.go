package rules

import (
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

func TestParseKey(t *testing.T) {
	cases := []struct {
		key     string
		kind    Kind
		prefix  string
		service bool
		err     string
	}{
		{key: "com.foo.Bar::.condition-router", kind: KindCondition, prefix: "com.foo.Bar::", service: true},
		{key: "com.foo.Bar:1.0.0:g1.condition-router", kind: KindCondition, prefix: "com.foo.Bar:1.0.0:g1", service: true},
		{key: "demo-consumer.condition-router", kind: KindCondition, prefix: "demo-consumer"},
		{key: "demo-provider.tag-router", kind: KindTag, prefix: "demo-provider"},
		{key: "demo-provider.gray-router", kind: KindGray, prefix: "demo-provider"},
		{key: "demo-provider.configurators", kind: KindConfigurators, prefix: "demo-provider"},
		{key: "com.foo.Bar::.configurators", kind: KindConfigurators, prefix: "com.foo.Bar::", service: true},
		{key: "demo-provider.override", err: "not a rule key"},
		{key: ".tag-router", err: "nothing before"},
		{key: "a/b.tag-router", err: "cannot contain"},
		{key: " a.tag-router", err: "cannot contain"},
	}
	for _, c := range cases {
		k, err := ParseKey(c.key)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseKey(%q) error = %v, want %q", c.key, err, c.err)
			}
			continue
		}
		if err != nil || k.Kind != c.kind || k.Prefix != c.prefix || k.Service != c.service {
			t.Errorf("ParseKey(%q) = %+v, %v", c.key, k, err)
		}
	}
}

func TestServiceKeyHasTwoColons(t *testing.T) {
	for url, want := range map[string]string{
		"consumer://127.0.0.1/com.foo.Bar?application=a":          "com.foo.Bar::.condition-router",
		"consumer://127.0.0.1/com.foo.Bar?version=1.0.0&group=g1": "com.foo.Bar:1.0.0:g1.condition-router",
		"consumer://127.0.0.1/x?interface=com.foo.Bar&group=g1":   "com.foo.Bar::g1.condition-router",
	} {
		if got := ServiceKey(router.MustParseURL(url)); got != want {
			t.Errorf("ServiceKey(%s) = %q, want %q", url, got, want)
		}
	}
}

func TestParseByKind(t *testing.T) {
	p, err := Parse(KindCondition, "conditions:\n  - method=queryAll => address=*:20880\n")
	if err != nil || p.Condition == nil || p.Tag != nil || p.Version != "3.0" {
		t.Fatalf("condition: %+v %v", p, err)
	}
	p, err = Parse(KindCondition, "configVersion: v3.1\nconditions:\n  - from: {match: method=a}\n    to: [{match: port=1}]\n")
	if err != nil || p.Version != "3.1" {
		t.Fatalf("v3.1: %+v %v", p, err)
	}
	p, err = Parse(KindTag, "configVersion: v3.0\ntags:\n  - name: gray\n    addresses: [\"127.0.0.1:20881\"]\n")
	if err != nil || p.Tag == nil || p.Version != "3.0" {
		t.Fatalf("tag: %+v %v", p, err)
	}
	p, err = Parse(KindGray, "fallback: normal\n")
	if err != nil || p.Gray == nil || p.Version != "1" {
		t.Fatalf("gray: %+v %v", p, err)
	}
	if _, err := Parse(KindCondition, "conditions:\n  - a==b => c=d\n"); err == nil || IsIgnored(err) {
		t.Fatalf("broken condition: %v (ignored=%v)", err, IsIgnored(err))
	}
	if _, err := Parse(KindCondition, "configVersion: v3.2\nconditions:\n  - => a=b\n"); !IsIgnored(err) {
		t.Fatalf("v3.2 must be ignored as Java does, got %v", err)
	}
	if _, err := Parse(KindCondition, "conditions: []\n"); !IsIgnored(err) {
		t.Fatalf("empty conditions must be ignored as Java does, got %v", err)
	}
	if _, err := Parse(Kind("lua"), "x"); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

func TestParseNamesTheLineOfInvalidUTF8(t *testing.T) {
	for _, kind := range []Kind{KindCondition, KindTag, KindGray} {
		_, err := Parse(kind, "force: true\nconditions:\n  - method=a\xff => port=1\n")
		if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "0xff") {
			t.Errorf("%s: %v, want line 3 and the bad byte named", kind, err)
		}
	}
	if _, err := Parse(KindCondition, "conditions:\n  - method=é => port=1\n"); err != nil {
		t.Errorf("valid UTF-8 rejected: %v", err)
	}
}

func TestParseMeshScriptAffinityKeys(t *testing.T) {
	for key, kind := range map[string]Kind{
		"demo-provider.MESHAPPRULE":           KindMesh,
		"demo-provider.script-router":         KindScript,
		"com.foo.Bar::.affinity-router":       KindAffinity,
		"com.foo.Bar:1.0.0:g.affinity-router": KindAffinity,
		"demo-provider.tag-router":            KindTag,
		"com.foo.Bar::.condition-router":      KindCondition,
	} {
		k, err := ParseKey(key)
		if err != nil || k.Kind != kind {
			t.Errorf("ParseKey(%q) = %v, %v; want kind %s", key, k.Kind, err, kind)
		}
	}
	if _, err := Parse(KindScript, "script: [unclosed\n"); err == nil {
		t.Errorf("a script rule that is not YAML was accepted (Java ignores the update)")
	}
	p, err := Parse(KindScript, "key: demo-provider\nscript: |\n  var r = new java.util.ArrayList();\n  r\n")
	if err != nil || p.Script == nil || p.Script.Rule == nil || !p.Script.Rule.Routes() || p.Script.Why != "" {
		t.Errorf("a Java script rule: %+v, %v", p.Script, err)
	}
	if _, err := Parse(KindScript, "script: |\n  var r = (;\n"); err == nil || !strings.Contains(err.Error(), "line 1 column 10") {
		t.Errorf("a syntax error must name the script's line and column: %v", err)
	}
	if _, err := Parse(KindAffinity, "configVersion: v3.0\naffinityAware: {key: region}\n"); !IsIgnored(err) {
		t.Errorf("affinity v3.0 must be ignored as Java does, got %v", err)
	}
	if _, err := Parse(KindMesh, "kind: VirtualService\nmetadata: {name: r}\nspec: {}\n"); !IsIgnored(err) {
		t.Errorf("a mesh value without DestinationRule must be ignored as Java does, got %v", err)
	}
	if _, err := Parse(KindTag, "x: &a [1]\ny: ["+strings.Repeat("*a, ", 50)+"*a]\ntags: []\n"); err == nil || !strings.Contains(err.Error(), "aliases") {
		t.Errorf("51 aliases: %v", err)
	}
	if _, err := Parse(KindConfigurators, "configVersion: v3.0\nscope: application\nkey: app\nconfigs: []\nx: "+strings.Repeat("[", 52)+strings.Repeat("]", 52)+"\n"); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("configurators nested 53 deep: %v", err)
	}
}

// TestDeletes: a missing key deletes every kind; blank content deletes a
// routing rule key but not a configurators key.
func TestDeletes(t *testing.T) {
	for _, c := range []struct {
		key     string
		exists  bool
		content string
		want    bool
	}{
		{"app.condition-router", false, "", true},
		{"app.condition-router", true, "", true},
		{"app.tag-router", true, "\n \t", true},
		{"app.tag-router", true, "force: true", false},
		{"com.foo.Bar::.configurators", false, "", true},
		{"com.foo.Bar::.configurators", true, "", false},
		{"app.configurators", true, " ", false},
	} {
		if got := Deletes(c.key, c.exists, c.content); got != c.want {
			t.Errorf("Deletes(%q, %v, %q) = %v, want %v", c.key, c.exists, c.content, got, c.want)
		}
	}
}
