package nacos_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/directory/nacos"
)

func TestDataIDAsJava(t *testing.T) {
	// NacosConfigServiceWrapper: '$' -> "___", '/' -> "-".
	for in, want := range map[string]string{
		"com.foo.Bar::.condition-router":       "com.foo.Bar::.condition-router",
		"com.foo.Outer$Inner:1.0:g.tag-router": "com.foo.Outer___Inner:1.0:g.tag-router",
		"a/b.configurators":                    "a-b.configurators",
	} {
		if got := nacos.DataID(in); got != want {
			t.Errorf("DataID(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"": "", "dubbo": "", "public": "", "dev": "dev"} {
		if got := nacos.NamespaceFromDubbo(in); got != want {
			t.Errorf("NamespaceFromDubbo(%q) = %q, want %q", in, got, want)
		}
	}
	if got := nacos.MD5("hello"); got != "5d41402abc4b2a76b9719d911017c592" {
		t.Errorf("MD5(hello) = %s", got)
	}
}

func TestParseChanged(t *testing.T) {
	// rnacos and Nacos answer URL-encoded dataId%02group[%02tenant]%01 items.
	got, err := nacos.ParseChanged("a.tag-router%02dubbo%01b%02dubbo%02dev%01c%02g%02public%01\n", "")
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"a.tag-router", "dubbo"}, {"c", "g"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("public namespace: got %v, want %v", got, want)
	}
	got, _ = nacos.ParseChanged("a%02dubbo%01b%02dubbo%02dev%01", "dev")
	if !reflect.DeepEqual(got, [][2]string{{"b", "dubbo"}}) {
		t.Fatalf("namespace dev: got %v", got)
	}
	if got, err := nacos.ParseChanged("  \n", ""); err != nil || got != nil {
		t.Fatalf("empty answer: %v, %v", got, err)
	}
	if _, err := nacos.ParseChanged("justone%01", ""); err == nil || !strings.Contains(err.Error(), "justone") {
		t.Fatalf("malformed item: err %v, want one naming the item", err)
	}
}

func TestAddrs(t *testing.T) {
	got, err := nacos.NormalizeAddrs([]string{"nacos://10.0.0.1:8848?namespace=x", "h1,h2:9000", "http://[::1]:8848/nacos"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.1:8848", "h1:8848", "h2:9000", "[::1]:8848"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, err := nacos.NormalizeAddrs([]string{" , "}); err == nil {
		t.Fatal("no address: want an error")
	}
	if _, err := nacos.New([]string{"h:1"}, nacos.WithGroup("bad group")); err == nil || !strings.Contains(err.Error(), "bad group") {
		t.Fatalf("bad group: %v", err)
	}
}
