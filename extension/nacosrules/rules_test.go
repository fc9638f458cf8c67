package nacosrules

import (
	"reflect"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/extension/source"
)

// TestSettingsAsJava: group dubbo whatever config-center.group says,
// namespace dubbo is public, credentials from userinfo or parameters.
func TestSettingsAsJava(t *testing.T) {
	for _, c := range []struct {
		url   string
		want  Settings
		addrs int
	}{
		{"nacos://127.0.0.1:8848?config-center.group=DEFAULT_GROUP&config-center.namespace=dubbo",
			Settings{Namespace: "", Group: "dubbo", Timeout: 5 * time.Second}, 1},
		{"nacos://u:p@127.0.0.1:8848,127.0.0.2:8848?config-center.namespace=dev&dubboroute.rule-group=team&config-center.timeout=3s",
			Settings{Namespace: "dev", Group: "team", Username: "u", Password: "p", Timeout: 3 * time.Second}, 2},
		{"nacos://127.0.0.1:8848?username=a&password=b",
			Settings{Group: "dubbo", Username: "a", Password: "b", Timeout: 5 * time.Second}, 1},
	} {
		u, err := common.NewURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		got := SettingsOf(u)
		if len(got.Addrs) != c.addrs {
			t.Errorf("%s: addrs %v", c.url, got.Addrs)
		}
		got.Addrs = nil
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.url, got, c.want)
		}
	}
	u, _ := common.NewURL("nacos://127.0.0.1:8848")
	if _, ok := source.RuleSourceFor(u).(ruleSource); !ok {
		t.Fatal("no nacos rule source registered")
	}
	rc, err := ruleSource{}.Open(u)
	if err != nil {
		t.Fatal(err)
	}
	// Rules are read in Admin's group and in dubbo-go's (DEFAULT_GROUP).
	if w := rc.(source.RuleLocator).Where("a$b.tag-router"); w != "Nacos dataId a___b.tag-router group dubbo namespace public (Admin's and Java's; wins) or Nacos dataId a___b.tag-router group DEFAULT_GROUP namespace public (dubbo-go's)" {
		t.Fatalf("Where = %q", w)
	}
	// A rule group moved explicitly reads that group alone.
	moved, _ := common.NewURL("nacos://127.0.0.1:8848?dubboroute.rule-group=team")
	rc, err = ruleSource{}.Open(moved)
	if err != nil {
		t.Fatal(err)
	}
	if w := rc.(source.RuleLocator).Where("k.tag-router"); w != "Nacos dataId k.tag-router group team namespace public" {
		t.Fatalf("moved group: Where = %q", w)
	}
}
