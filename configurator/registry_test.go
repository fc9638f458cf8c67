package configurator

import (
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// TestRegistryList: which registry override:// URLs reach the consumer's
// registry list (UrlUtils.isMatch, the directory's filters,
// toConfigurators), and that an empty result clears the list. The
// differential test checks the same against Java on random URLs.
func TestRegistryList(t *testing.T) {
	const iface = "com.foo.BarService"
	consumer := router.MustParseURL("consumer://10.20.3.3/" + iface + "?application=app&interface=" + iface + "&side=consumer")
	versioned := router.MustParseURL("consumer://10.20.3.3/" + iface + "?application=app&interface=" + iface + "&side=consumer&version=1.0.0")
	for _, tc := range []struct {
		name     string
		consumer *router.URL
		url      string
		kept     bool
	}{
		{"plain", consumer, "override://0.0.0.0/" + iface + "?category=configurators&disabled=true", true},
		{"no category (providers, but protocol override)", consumer, "override://0.0.0.0/" + iface + "?weight=7", true},
		{"absent with category", consumer, "absent://0.0.0.0/" + iface + "?category=configurators&weight=7", true},
		{"absent without category (not a configurator)", consumer, "absent://0.0.0.0/" + iface + "?weight=7", false},
		{"another interface", consumer, "override://0.0.0.0/com.other.Svc?category=configurators&weight=7", false},
		{"any interface", consumer, "override://0.0.0.0/*?category=configurators&weight=7", true},
		{"category routers, protocol override (still a configurator)", consumer, "override://0.0.0.0/" + iface + "?category=routers&weight=7", true},
		{"absent, category routers", consumer, "absent://0.0.0.0/" + iface + "?category=routers&weight=7", false},
		{"enabled=false", consumer, "override://0.0.0.0/" + iface + "?category=configurators&enabled=false&weight=7", false},
		{"group the consumer lacks", consumer, "override://0.0.0.0/" + iface + "?category=configurators&group=g1&weight=7", false},
		{"version the consumer lacks", consumer, "override://0.0.0.0/" + iface + "?category=configurators&version=1.0.0&weight=7", false},
		{"versioned consumer, no version", versioned, "override://0.0.0.0/" + iface + "?category=configurators&weight=7", false},
		{"versioned consumer, its version", versioned, "override://0.0.0.0/" + iface + "?category=configurators&version=1.0.0&weight=7", true},
		{"compatible_config", consumer, "override://0.0.0.0/" + iface + "?category=configurators&compatible_config=true&weight=7", false},
		{"only anyhost (skipped)", consumer, "override://0.0.0.0/" + iface + "?anyhost=true", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := RegistryList(tc.consumer, []*router.URL{router.MustParseURL(tc.url)}, Origin{Key: "registry"})
			if err != nil {
				t.Fatal(err)
			}
			if l == nil {
				t.Fatal("nil list: a registry notification always replaces the list")
			}
			if got := len(l) == 1; got != tc.kept {
				t.Fatalf("kept %v, want %v (%d configurators)", got, tc.kept, len(l))
			}
		})
	}
	// Sorted by host, then priority; later wins.
	l, err := RegistryList(consumer, []*router.URL{
		router.MustParseURL("override://10.0.0.1:20880/" + iface + "?category=configurators&weight=1"),
		router.MustParseURL("override://0.0.0.0/" + iface + "?category=configurators&weight=2&priority=5"),
		router.MustParseURL("override://0.0.0.0/" + iface + "?category=configurators&weight=3&priority=1"),
	}, Origin{Key: "registry"})
	if err != nil || len(l) != 3 || l[0].URL.Params["weight"] != "3" || l[1].URL.Params["weight"] != "2" || l[2].URL.Params["weight"] != "1" {
		t.Fatalf("order: %v %v", l, err)
	}
}
