package interop

import (
	"fmt"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// discoveryCell is one consumer setting of the discovery matrix: the Go
// consumer's registry-type and the Java consumer's migration step that
// means the same.
type discoveryCell struct {
	goType   string // sample consumer -registry-type
	javaStep string // BookConsumer --migration
}

// TestDiscoveryMatrix: one mixed fleet per registration mode (two Java
// providers registering interface, instance or all, and two Go providers
// registering the same way: interface, service, all), the rules of
// TestMixedFleetParity; for each consumer setting the Go consumer's eligible
// sets equal what a Java consumer with the equivalent migration step serves,
// scenario by scenario. dubbo-go's default registry-type (the line left out)
// is application-level, which dubboroute runs as Java's default
// APPLICATION_FIRST; interface is Java's FORCE_INTERFACE.
func TestDiscoveryMatrix(t *testing.T) {
	if _, err := Jar(); err != nil {
		t.Fatal(err)
	}
	bins := harness.SampleBinaries(t)
	for _, reg := range []struct{ java, goType string }{
		{"interface", "interface"}, {"instance", "service"}, {"all", "all"},
	} {
		t.Run("registration="+reg.java, func(t *testing.T) {
			begin := time.Now()
			srv := zk.Start(t)
			rules := harness.DialRules(t, srv.Addr())
			addr := "zookeeper://" + srv.Addr()
			javaProviderMode(t, srv.Addr(), reg.java, "demo-provider", "")
			javaProviderMode(t, srv.Addr(), reg.java, "demo-provider", "gray", "status=gray")
			harness.StartProvider(t, bins, harness.ProviderOptions{Registry: addr, RegistryType: reg.goType, App: "demo-provider", Params: map[string]string{"status": "gray"}})
			g2 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: addr, RegistryType: reg.goType, App: "demo-provider", Tag: "blue"})
			if err := rules.Put(serviceKey, "force: false\nconditions:\n  - method=queryByName => status=gray\n"); err != nil {
				t.Fatal(err)
			}
			appRule := fmt.Sprintf("force: true\nconditions:\n  - application=demo-consumer1&method=queryAll => port!=%d\n", g2.Port)
			if err := rules.Put("demo-consumer1.condition-router", appRule); err != nil {
				t.Fatal(err)
			}
			for _, cell := range []discoveryCell{{"default", "APPLICATION_FIRST"}, {"interface", "FORCE_INTERFACE"}} {
				t.Run("consumer="+cell.goType, func(t *testing.T) {
					c := harness.StartConsumer(t, bins, harness.ConsumerOptions{App: "demo-consumer1", Registry: addr, RegistryType: cell.goType})
					defer func() { _ = c.Stop(10 * time.Second) }()
					want := 4
					if cell.goType == "interface" && reg.java == "instance" {
						want = 0 // nothing registered interface-level
					}
					if want == 0 {
						checkNoneFound(t, srv.Addr(), c, cell.javaStep)
						return
					}
					if _, err := c.WaitExplain(harness.Call{Method: "queryAll"}, 60*time.Second, func(ex httpapi.Explain) bool {
						return len(ex.Providers) == want && len(ex.Rules) >= 2
					}); err != nil {
						t.Fatal(err)
					}
					checkParity(t, srv.Addr(), c, "--migration", cell.javaStep)
				})
			}
			t.Logf("registration %s: %v", reg.java, time.Since(begin).Round(time.Millisecond))
		})
	}
}

// checkNoneFound: neither the Go consumer nor the Java consumer with step
// finds a provider (the registration mode has nothing at the level they read).
func checkNoneFound(t *testing.T, zkAddr string, c *harness.Consumer, step string) {
	t.Helper()
	time.Sleep(2 * time.Second) // both would have seen providers by now
	if _, r := bookCall(t, c, "queryAll", "", false); r.Port != 0 || !noProvider(r.Error) {
		t.Errorf("Go consumer: want no provider, got port %d, error %q", r.Port, r.Error)
	}
	set := servedSet(javaConsumer(t, zkAddr, "--calls", "4", "--migration", step))
	if fmt.Sprint(set) != "[none]" {
		t.Errorf("Java consumer (%s): want no provider, served %v", step, set)
	}
}
