package interop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
	env      []string
}

// forceApplication is the Go consumer's FORCE_APPLICATION: an
// application-level registry with Java's migration property (environment
// form, extension.MigrationEnv) set, as a Java consumer reads it.
var forceApplication = discoveryCell{"service", "FORCE_APPLICATION", []string{"DUBBO_APPLICATION_SERVICE_DISCOVERY_MIGRATION=FORCE_APPLICATION"}}

func (c discoveryCell) name() string {
	if len(c.env) > 0 {
		return c.goType + "/" + c.javaStep
	}
	return c.goType
}

// TestDiscoveryMatrix: one mixed fleet per registration mode (two Java
// providers registering interface, instance or all, and two Go providers
// registering the same way: interface, service, all), the rules of
// TestMixedFleetParity; for each consumer setting the Go consumer's eligible
// sets equal what a Java consumer with the equivalent migration step serves,
// scenario by scenario. dubbo-go's default registry-type (the line left out)
// is application-level, which dubboroute runs as Java's default
// APPLICATION_FIRST; interface is Java's FORCE_INTERFACE; service with
// Java's migration property set to FORCE_APPLICATION is FORCE_APPLICATION.
//
// The instance and all registrations with APPLICATION_FIRST and
// FORCE_APPLICATION consumers route on application-level provider URLs on
// both sides: Java's InstanceAddressURL, dubboroute's Java-shaped view of
// dubbo-go's (extension/discovery/applevel.go); the Go providers' static tag blue and
// status=gray reach both consumers only through the metadata they publish
// (extension/discovery/appmeta.go). Every fleet serves all its consumer cells.
//
// Every cell runs over both protocols, dubbo and tri: every provider
// exports both (one port each), so one fleet serves the cells of both, and
// a consumer of one protocol sees only that protocol's providers, Go and
// Java alike. Books are signed with the dubbo port; the tri ports are mapped
// to it before comparing.
func TestDiscoveryMatrix(t *testing.T) {
	if _, err := Jar(); err != nil {
		t.Fatal(err)
	}
	bins := harness.SampleBinaries(t)
	every := []discoveryCell{{"interface", "FORCE_INTERFACE", nil}, {"default", "APPLICATION_FIRST", nil}, forceApplication}
	for _, reg := range []struct {
		java, goType string
		cells        []discoveryCell
	}{
		// interface registrations with an interface consumer: TestMixedFleetParity.
		{"interface", "interface", []discoveryCell{{"default", "APPLICATION_FIRST", nil}}},
		{"instance", "service", every},
		{"all", "all", every},
	} {
		t.Run("registration="+reg.java, func(t *testing.T) {
			begin := time.Now()
			srv := zk.Start(t)
			rules := harness.DialRules(t, srv.Addr())
			addr := "zookeeper://" + srv.Addr()
			// warmup=0: the Java consumer's served set stands for its eligible
			// set only if its RandomLoadBalance reaches every eligible provider
			// within the calls. Application-level URLs carry the instance's
			// timestamp, so Java warms a provider up for 10 minutes: a Java
			// provider a minute old weighed about 10 against a Go provider's
			// 100 and was missed in 24 calls in 5 of 8 application-level cells
			// (measured). Routing never reads warmup.
			j1, j1tri := javaProviderProto(t, srv.Addr(), reg.java, "dubbo,tri", "demo-provider", "", nil, "warmup=0")
			j2, j2tri := javaProviderProto(t, srv.Addr(), reg.java, "dubbo,tri", "demo-provider", "gray", nil, "status=gray", "warmup=0")
			g1 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: addr, RegistryType: reg.goType, Protocol: "dubbo,tri", App: "demo-provider", Params: map[string]string{"status": "gray", "warmup": "0"}})
			g2 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: addr, RegistryType: reg.goType, Protocol: "dubbo,tri", App: "demo-provider", Tag: "blue", Params: map[string]string{"warmup": "0"}})
			alias := map[string]string{} // tri port -> the dubbo port the provider signs with
			for tri, port := range map[int]int{j1tri: j1, j2tri: j2, g1.TriPort: g1.Port, g2.TriPort: g2.Port} {
				alias[strconv.Itoa(tri)] = strconv.Itoa(port)
			}
			fleetUp := time.Since(begin)
			if reg.java != "interface" {
				// What a Java consumer reads for the Go providers.
				checkAppMetadata(t, rules, g1.Port, map[string]string{"status": "gray", "weight": "100", "application": "demo-provider"})
				checkAppMetadata(t, rules, g2.Port, map[string]string{"dubbo.tag": "blue", "weight": "100", "application": "demo-provider"})
			}
			if err := rules.Put(serviceKey, "force: false\nconditions:\n  - method=queryByName => status=gray\n"); err != nil {
				t.Fatal(err)
			}
			appRule := fmt.Sprintf("force: true\nconditions:\n  - application=demo-consumer1&method=queryAll => port!=%d,%d\n", g2.Port, g2.TriPort)
			if err := rules.Put("demo-consumer1.condition-router", appRule); err != nil {
				t.Fatal(err)
			}
			for _, protocol := range []string{"dubbo", "tri"} {
				for _, cell := range reg.cells {
					t.Run("consumer="+cell.name()+"/protocol="+protocol, func(t *testing.T) {
						cellBegin := time.Now()
						defer func() { t.Logf("cell: %v", time.Since(cellBegin).Round(time.Millisecond)) }()
						c := harness.StartConsumer(t, bins, harness.ConsumerOptions{App: "demo-consumer1", Registry: addr, RegistryType: cell.goType, Protocol: protocol, Env: cell.env})
						defer func() { _ = c.Stop(10 * time.Second) }()
						javaArgs := []string{"--migration", cell.javaStep, "--protocol", protocol}
						want := 4
						if cell.javaStep == "FORCE_INTERFACE" && reg.java == "instance" {
							want = 0 // nothing registered interface-level
						}
						if want == 0 {
							checkNoneFound(t, srv.Addr(), c, javaArgs...)
							return
						}
						ex, err := c.WaitExplain(harness.Call{Method: "queryAll"}, 60*time.Second, func(ex httpapi.Explain) bool {
							return len(ex.Providers) == want && len(ex.Rules) >= 2
						})
						if err != nil {
							t.Fatalf("%v\nconsumer warnings and errors:\n%s", err, warnings(c.Log(), 30))
						}
						// The consumer sees only its protocol's providers.
						for _, a := range ex.Providers {
							_, port, _ := strings.Cut(a, ":")
							if _, tri := alias[port]; tri != (protocol == "tri") {
								t.Fatalf("a %s consumer knows provider %s (tri ports %v)", protocol, a, alias)
							}
						}
						checkParityAliased(t, srv.Addr(), c, matrixScenarios, alias, javaArgs...)
						if cell.javaStep == "APPLICATION_FIRST" {
							checkMeshParity(t, srv.Addr(), rules, c, alias, javaArgs...)
							if protocol == "dubbo" {
								checkGrayUsersParity(t, srv.Addr(), rules, c, alias, javaArgs...)
							}
						}
					})
				}
			}
			t.Logf("registration %s: %v (fleet up in %v)", reg.java, time.Since(begin).Round(time.Millisecond), fleetUp.Round(time.Millisecond))
		})
	}
}

// checkAppMetadata reads what a provider on port publishes application-level,
// the way a Java consumer reads it (the instance
// /services/demo-provider/127.0.0.1:<port>, then the metadata of its
// revision at Java's node /dubbo/metadata/demo-provider/<revision>), and
// requires the instance name demo-provider and the service parameters want.
func checkAppMetadata(t *testing.T, rules *harness.Rules, port int, want map[string]string) {
	t.Helper()
	inst := "/services/demo-provider/127.0.0.1:" + strconv.Itoa(port)
	err := harness.Eventually(30*time.Second, func() error {
		data, _, err := rules.Conn.Get(inst)
		if err != nil {
			return fmt.Errorf("read %s: %w", inst, err)
		}
		var in struct {
			Name    string `json:"name"`
			Payload struct {
				Metadata map[string]string `json:"metadata"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(data, &in); err != nil {
			return fmt.Errorf("decode %s: %w", inst, err)
		}
		if in.Name != "demo-provider" {
			return fmt.Errorf("%s: instance name %q, want demo-provider", inst, in.Name)
		}
		meta := "/dubbo/metadata/demo-provider/" + in.Payload.Metadata["dubbo.metadata.revision"]
		if data, _, err = rules.Conn.Get(meta); err != nil {
			return fmt.Errorf("read %s: %w", meta, err)
		}
		var mi struct {
			Services map[string]struct {
				Params map[string]string `json:"params"`
			} `json:"services"`
		}
		if err := json.Unmarshal(data, &mi); err != nil {
			return fmt.Errorf("decode %s: %w", meta, err)
		}
		svc, ok := mi.Services[BookIface+":dubbo"]
		if !ok {
			return fmt.Errorf("%s: no service %s:dubbo", meta, BookIface)
		}
		for k, v := range want {
			if svc.Params[k] != v {
				return fmt.Errorf("%s: %s=%q, want %q (params %v)", meta, k, svc.Params[k], v, svc.Params)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkNoneFound: neither the Go consumer nor the Java consumer (javaArgs
// added to its command line) finds a provider (the registration mode has
// nothing at the level they read).
func checkNoneFound(t *testing.T, zkAddr string, c *harness.Consumer, javaArgs ...string) {
	t.Helper()
	time.Sleep(2 * time.Second) // both would have seen providers by now
	if _, r := bookCall(t, c, "queryAll", "", false); r.Port != 0 || !noProvider(r.Error) {
		t.Errorf("Go consumer: want no provider, got port %d, error %q", r.Port, r.Error)
	}
	set := servedSet(javaConsumer(t, zkAddr, append([]string{"--calls", "4"}, javaArgs...)...))
	if fmt.Sprint(set) != "[none]" {
		t.Errorf("Java consumer (%v): want no provider, served %v", javaArgs, set)
	}
}

// warnings returns the last n lines of log that dubbo-go logged at WARN or
// ERROR level.
func warnings(log string, n int) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "WARN") || strings.Contains(l, "ERROR") {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, "\n")
}

// matrixMeshScenarios run with meshPeersRule in force on top of the
// condition rules: the mesh rule's two route details, no route detail, and
// a route detail followed by a static tag and by a forced missing tag. (A
// dynamic tag rule is not in the matrix: its members are host:port
// addresses, and Java matches no ip:port against a 127.x provider,
// known-loopback-tag-address; TestTripleInterop covers dynamic tags with
// CIDR.)
var matrixMeshScenarios = []parityScenario{
	{"mesh: queryAll, no route detail", "queryAll", "", false, ""},
	{"mesh: queryAll, userId 7 to subset gray", "queryAll", "", false, "7"},
	{"mesh: queryByName to subset gray", "queryByName", "", false, ""},
	{"mesh: queryByName to subset gray, static tag gray", "queryByName", "gray", false, ""},
	{"mesh: queryAll, userId 7, tag red + force", "queryAll", "red", true, "7"},
}

// checkMeshParity writes a mesh rule where Dubbo Admin writes it
// (<provider-app>.MESHAPPRULE), waits until the Go consumer routes with
// it, compares the Go and Java consumers on matrixMeshScenarios, and
// deletes the rule again (the fleet's next cell starts without it).
func checkMeshParity(t *testing.T, zkAddr string, rules *harness.Rules, c *harness.Consumer, alias map[string]string, javaArgs ...string) {
	t.Helper()
	const meshKey = "demo-provider.MESHAPPRULE"
	defer func() {
		if err := rules.Delete(meshKey); err != nil {
			t.Errorf("delete %s: %v", meshKey, err)
		}
	}()
	if err := rules.Put(meshKey, meshPeersRule); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitExplain(harness.QueryByName, 60*time.Second, func(ex httpapi.Explain) bool {
		return strings.Contains(ex.TraceText, "mesh-routed")
	}); err != nil {
		t.Fatal(err)
	}
	checkParityAliased(t, zkAddr, c, matrixMeshScenarios, alias, javaArgs...)
}

// matrixGrayRule sends users 1 to 10 to the status=gray providers (the
// sample's gray release; Go: the gray balancer's rule at
// <provider-app>.gray-router; Java: the graylane balancer with
// grayUserids, integration/java).
const matrixGrayRule = `requests:
  - name: users-1-to-10
    conditions:
      - { source: attachment, key: userId, operator: range, value: "1~10" }
`

// checkGrayUsersParity: with the gray rule in force, a gray user's calls
// (userId 7) and a normal user's (userId 42) are served by the same
// providers from the Go consumer (dubboroute's gray balancer) and the Java
// consumer (graylane), and the two users' sets differ. The gray balancer
// picks inside the eligible set, so served sets are compared here.
func checkGrayUsersParity(t *testing.T, zkAddr string, rules *harness.Rules, c *harness.Consumer, alias map[string]string, javaArgs ...string) {
	t.Helper()
	const grayKey, calls = "demo-provider.gray-router", 24
	defer func() {
		if err := rules.Delete(grayKey); err != nil {
			t.Errorf("delete %s: %v", grayKey, err)
		}
	}()
	if err := rules.Put(grayKey, matrixGrayRule); err != nil {
		t.Fatal(err)
	}
	goServed := func(user string) []string {
		set := map[string]bool{}
		for range calls {
			_, r := bookCallAs(t, c, "queryAll", "", false, user)
			if r.Port != 0 {
				set[strconv.Itoa(r.Port)] = true
			} else {
				set["none"] = true
			}
		}
		return aliased(sortedKeys(set), alias)
	}
	var gray, normal []string
	// The rule reaches the Go consumer's balancer within moments of the
	// write; until then user 7's calls may land anywhere, so the sets are
	// read again until the two users share no provider.
	if err := harness.Eventually(30*time.Second, func() error {
		gray, normal = goServed("7"), goServed("42")
		for _, p := range gray {
			if slices.Contains(normal, p) {
				return fmt.Errorf("gray user 7 served by %v and normal user 42 by %v: not apart", gray, normal)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	args := []string{"--calls", strconv.Itoa(calls), "--app", "demo-consumer1", "--ref-param", "loadbalance=graylane",
		"--ref-param", "grayUserids=1,2,3,4,5,6,7,8,9,10", "--scenario", "queryAll userId=7", "--scenario", "queryAll userId=42"}
	javaCalls := javaConsumer(t, zkAddr, append(args, javaArgs...)...)
	for i, want := range [][]string{gray, normal} {
		var mine []javaCall
		for _, jc := range javaCalls {
			if jc.Scenario == i {
				mine = append(mine, jc)
			}
		}
		javaSet := aliased(servedSet(mine), alias)
		t.Logf("gray users: userId %s: Go served %v, Java served %v", []string{"7", "42"}[i], want, javaSet)
		if fmt.Sprint(want) != fmt.Sprint(javaSet) {
			t.Errorf("userId %s: Go consumer served by %v, Java consumer (graylane) by %v", []string{"7", "42"}[i], want, javaSet)
		}
	}
}

// matrixScenarios are the parity scenarios each matrix cell runs: one per
// router decision (service rule, app rule, static tag, tag fallback, forced
// tag), fewer than TestMixedFleetParity's to bound the Java consumer runs.
var matrixScenarios = []parityScenario{
	parityScenarios[1], // service rule: queryByName to status=gray
	parityScenarios[2], // static tag gray
	parityScenarios[3], // app rule excludes the blue provider
	parityScenarios[5], // tag fallback
	parityScenarios[6], // forced tag, no provider
}
