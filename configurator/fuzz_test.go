package configurator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// FuzzParse: no input makes Parse, or applying what it accepts, panic; an
// accepted rule's configurators are sorted and apply deterministically.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/admin/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`["override://0.0.0.0/com.foo.Bar?category=configurators&disabled=true"]`)
	f.Add("configVersion: v3.0\nkey: a\nconfigs:\n- side: consumer\n  match: {address: x, param: [1, {key: k}]}\n  parameters: {priority: x}\n")
	consumer := router.MustParseURL(demoConsumer)
	provider := router.MustParseURL("dubbo://10.0.0.1:20880/org.apache.dubbo.demo.DemoService?application=demo-provider&side=provider&weight=100")
	f.Fuzz(func(t *testing.T, content string) {
		r, err := Parse("k.configurators", content)
		if err != nil {
			return
		}
		l := Lists{ListApp: r.List, ListService: r.List}
		p1 := l.ConfigureProvider(provider, consumer, localIP)
		p2 := l.ConfigureProvider(provider, consumer, localIP)
		if p1.Enabled() != p2.Enabled() || p1.Weight("m") != p2.Weight("m") {
			t.Fatalf("not deterministic")
		}
		l.ConfigureConsumer(consumer, localIP)
		r.List.Apply(provider, provider.Host)
	})
}
