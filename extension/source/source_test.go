package source

import (
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"
)

type fakeProviders struct{ name string }

func (fakeProviders) Subscribe(registry.Registry, *common.URL, registry.NotifyListener) (func(), error) {
	return func() {}, nil
}

type fakeRules struct{ name string }

func (fakeRules) Open(*common.URL) (RuleClient, error) { return nil, nil }

// TestSourcesChosenByProtocol: a source is found by the URL's protocol,
// else by its registry parameter (dubbo-go's registry:// URLs), and not at
// all for a protocol nobody registered.
func TestSourcesChosenByProtocol(t *testing.T) {
	RegisterProviderSource("Unit-Reg", fakeProviders{"unit"})
	RegisterRuleSource("unit-cc", fakeRules{"unit"})
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"unit-reg://127.0.0.1:2181", true},
		{"registry://127.0.0.1:2181?registry=unit-reg", true},
		{"service-discovery-registry://127.0.0.1:2181?registry=unit-reg", true},
		{"registry://127.0.0.1:2181?registry=other", false},
		{"other://127.0.0.1:2181", false},
	} {
		u, err := common.NewURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := ProviderSourceFor(u) != nil; got != c.want {
			t.Errorf("ProviderSourceFor(%s) found=%v, want %v", c.url, got, c.want)
		}
	}
	u, _ := common.NewURL("unit-cc://127.0.0.1:1")
	if s, ok := RuleSourceFor(u).(fakeRules); !ok || s.name != "unit" {
		t.Errorf("RuleSourceFor(unit-cc) = %v", RuleSourceFor(u))
	}
	if RuleSourceFor(nil) != nil || ProviderSourceFor(nil) != nil {
		t.Error("a nil URL found a source")
	}
	r, p := Registered()
	if len(r) == 0 || len(p) == 0 {
		t.Errorf("Registered() = %v, %v", r, p)
	}
}
