package interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dzk "github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/internal/cli"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// Identities of the secured ZooKeeper: the fleet (providers and
// consumers, Go and Java) and the operator who writes rules.
const (
	fleetDigest = "fleet:fleet-pw"
	adminDigest = "admin:admin-pw"
)

// zkDigestEnv is where the Java consumer reads the fleet's credentials
// (BookConsumer --zk-auth-env), so that they are not on its command line.
const zkDigestEnv = "DUBBOROUTE_IT_ZK_DIGEST"

// cliRun runs the dubboroute CLI in-process and fails t on a non-zero exit.
func cliRun(t *testing.T, stdin string, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), args, cli.Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb}); code != cli.ExitOK {
		t.Fatalf("dubboroute %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
}

// securedScenarios are the parity scenarios of the secured fleets: one per
// rule (the app rule's exclusion, the service rule's method condition) and
// a tag.
var securedScenarios = []parityScenario{parityScenarios[0], parityScenarios[1], parityScenarios[4]}

// securedFleet starts two Go providers (g1 status=gray, g2 tag blue) and a
// Go consumer on the registry address reg, pushes the parity rules with
// push (the CLI's connection flags), waits until the consumer routes with
// both providers and both rules, and checks that a Java consumer (javaArgs
// added) routes as the Go consumer does.
func securedFleet(t *testing.T, reg, javaZK string, push []string, javaArgs ...string) (*harness.Consumer, *harness.Provider, *harness.Provider) {
	t.Helper()
	begin := time.Now()
	bins := harness.SampleBinaries(t)
	t.Logf("sample binaries: %v", time.Since(begin).Round(time.Millisecond))
	g1 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: reg, App: "demo-provider", Params: map[string]string{"status": "gray", "warmup": "0"}})
	g2 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: reg, App: "demo-provider", Tag: "blue", Params: map[string]string{"warmup": "0"}})
	cliRun(t, "force: false\nconditions:\n  - method=queryByName => status=gray\n", append(append([]string{"push"}, push...), serviceKey, "-")...)
	appRule := fmt.Sprintf("force: true\nconditions:\n  - application=demo-consumer1&method=queryAll => port!=%d\n", g2.Port)
	cliRun(t, appRule, append(append([]string{"push"}, push...), "demo-consumer1.condition-router", "-")...)
	c := harness.StartConsumer(t, bins, harness.ConsumerOptions{App: "demo-consumer1", Registry: reg})
	if _, err := c.WaitExplain(harness.Call{Method: "queryAll"}, 60*time.Second, func(ex httpapi.Explain) bool {
		return len(ex.Providers) == 2 && len(ex.Rules) >= 2
	}); err != nil {
		t.Fatalf("%v\nconsumer warnings and errors:\n%s", err, warnings(c.Log(), 30))
	}
	t.Logf("fleet routing: %v", time.Since(begin).Round(time.Millisecond))
	checkParity(t, javaZK, c, securedScenarios, javaArgs...)
	t.Logf("parity checked: %v", time.Since(begin).Round(time.Millisecond))
	return c, g1, g2
}

// TestZooKeeperACL: a ZooKeeper whose rules are world-readable and writable
// by an admin identity only, and whose registry nodes belong to the
// fleet's identity. Go providers register with the fleet's digest
// credentials (their nodes end up creator-only, Curator's ACL), a Go
// consumer routes by the admin's rules, and a Java consumer of the same
// fleet routes the same. A client without credentials can neither change
// a rule nor list the providers, and a Go consumer with a wrong password
// fails its calls with a NoAuth error naming server, node and identity
// until the ACL lets its identity read the providers.
func TestZooKeeperACL(t *testing.T) {
	if _, err := Jar(); err != nil {
		t.Fatal(err)
	}
	srv := zk.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)

	// The operator's layout: /dubbo shared by the fleet and the admin
	// (readable by all), /dubbo/config readable by all and the admin's.
	fleetID, adminID := dzk.DigestID("fleet", "fleet-pw"), dzk.DigestID("admin", "admin-pw")
	for _, n := range []struct{ path, acl string }{
		{"/dubbo", "digest:" + fleetID + ":cdrwa,digest:" + adminID + ":cdrwa,world:anyone:r"},
		{"/dubbo/config", "digest:" + adminID + ":cdrwa,world:anyone:r"},
	} {
		acl, err := dzk.ParseACL(n.acl)
		if err != nil {
			t.Fatal(err)
		}
		setup, err := dzk.Dial([]string{srv.Addr()}, dzk.WithDigest(adminDigest), dzk.WithACL(acl))
		if err != nil {
			t.Fatal(err)
		}
		err = setup.EnsurePath(ctx, n.path)
		setup.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	adminCreds := filepath.Join(t.TempDir(), "admin-digest")
	if err := os.WriteFile(adminCreds, []byte(adminDigest+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(zkDigestEnv, fleetDigest)
	reg := "zookeeper://" + fleetDigest + "@" + srv.Addr()
	_, g1, g2 := securedFleet(t, reg, srv.Addr(),
		[]string{"--zk", srv.Addr(), "--digest-file", adminCreds, "--acl", "world:anyone:r,auth::cdrwa"},
		"--zk-auth-env", zkDigestEnv)
	cancel()
	ctx, cancel = context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	fleet, err := dzk.Dial([]string{srv.Addr()}, dzk.WithDigest(fleetDigest))
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	providers, _ := fleet.ProvidersPath(BookIface)
	creatorOnly := "digest:" + fleetID + ":cdrwa"
	if acl, err := fleet.GetACL(ctx, providers); err != nil || dzk.FormatACL(acl) != creatorOnly {
		t.Errorf("ACL of %s: %s %v, want %s", providers, dzk.FormatACL(acl), err, creatorOnly)
	}
	// dubbo-go creates its provider nodes world:anyone:cdrwa; dubboroute's
	// guard replaces that with the creator-only ACL.
	if err := harness.Eventually(30*time.Second, func() error {
		nodes, err := fleet.Children(ctx, providers)
		if err != nil {
			return err
		}
		if len(nodes) != 2 {
			return fmt.Errorf("%d provider nodes, want 2 (%d, %d)", len(nodes), g1.Port, g2.Port)
		}
		for _, n := range nodes {
			acl, err := fleet.GetACL(ctx, providers+"/"+n)
			if err != nil {
				return err
			}
			if got := dzk.FormatACL(acl); got != creatorOnly {
				u, _ := url.QueryUnescape(n)
				return fmt.Errorf("provider node %s has ACL %s, want %s", u, got, creatorOnly)
			}
		}
		return nil
	}); err != nil {
		t.Error(err)
	}

	// Without credentials: rules can be read, not changed; providers not listed.
	anon, err := dzk.Dial([]string{srv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if _, _, err := anon.GetRule(ctx, serviceKey); err != nil {
		t.Errorf("anonymous read of the world-readable rule: %v", err)
	}
	if _, err := anon.PutRule(ctx, serviceKey, "force: true\nconditions:\n  - => host=6.6.6.6\n"); !errors.Is(err, dzk.ErrNoAuth) {
		t.Errorf("anonymous rule change: %v, want NoAuth", err)
	}
	if err := anon.DeleteRule(ctx, serviceKey); !errors.Is(err, dzk.ErrNoAuth) {
		t.Errorf("anonymous rule delete: %v, want NoAuth", err)
	}
	if _, err := anon.Children(ctx, providers); !errors.Is(err, dzk.ErrNoAuth) {
		t.Errorf("anonymous provider list: %v, want NoAuth", err)
	}

	// A wrong password: the reference fails every call with the NoAuth
	// error instead of starting with zero providers.
	bins := harness.SampleBinaries(t)
	bad := harness.StartConsumer(t, bins, harness.ConsumerOptions{App: "demo-consumer1", Registry: "zookeeper://fleet:wrong@" + srv.Addr()})
	_, err = bad.Do(harness.Call{Method: "queryAll"})
	var rpcErr *harness.RPCError
	if !errors.As(err, &rpcErr) {
		t.Fatalf("call through a reference with a wrong password: %v, want an RPC error", err)
	}
	for _, want := range []string{"NoAuth", providers, `digest user "fleet"`, srv.Addr()} {
		if !strings.Contains(rpcErr.Msg, want) {
			t.Errorf("call error %q does not name %q", rpcErr.Msg, want)
		}
	}
	if !bad.LogContains("refuses to list the providers") {
		t.Errorf("the consumer with a wrong password logged no error; log:\n%s", warnings(bad.Log(), 20))
	}
	// Once the ACL lets that identity read the providers, the reference
	// recovers (as a Java reference with check=false does).
	acl, err := dzk.ParseACL(creatorOnly + ",digest:" + dzk.DigestID("fleet", "wrong") + ":r")
	if err != nil {
		t.Fatal(err)
	}
	if err := fleet.SetACL(ctx, providers, acl); err != nil {
		t.Fatal(err)
	}
	if err := harness.Eventually(45*time.Second, func() error {
		_, err := bad.Do(harness.Call{Method: "queryAll"})
		return err
	}); err != nil {
		t.Errorf("the reference did not recover after the ACL was fixed: %v\n%s", err, warnings(bad.Log(), 20))
	}
}

// TestZooKeeperTLS: the same fleet over ZooKeeper's TLS client port only:
// Go providers and consumer (dubboroute's clients dial TLS, dubbo-go's go
// through dubboroute's relay), rules pushed by the CLI over TLS, and a Java
// consumer with ZooKeeper's Netty TLS client routes the same.
func TestZooKeeperTLS(t *testing.T) {
	if _, err := Jar(); err != nil {
		t.Fatal(err)
	}
	srv := zk.StartWith(t, zk.Options{TLS: true})
	// Only JVMs started from here on (the Java consumer) read it.
	t.Setenv("JAVA_TOOL_OPTIONS", strings.Join([]string{
		"-Dzookeeper.client.secure=true",
		"-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
		"-Dzookeeper.ssl.trustStore.location=" + srv.CAFile(),
		"-Dzookeeper.ssl.trustStore.type=PEM",
	}, " "))
	reg := "zookeeper://" + srv.TLSAddr() + "?zookeeper.tls=true&zookeeper.tls.ca=" + url.QueryEscape(srv.CAFile())
	c, _, _ := securedFleet(t, reg, srv.TLSAddr(), []string{"--zk", srv.TLSAddr(), "--tls-ca", srv.CAFile()})
	if !c.LogContains("connects with TLS through the relay") {
		t.Errorf("the consumer's dubbo-go client did not go through the TLS relay; log:\n%s", warnings(c.Log(), 20))
	}
}
