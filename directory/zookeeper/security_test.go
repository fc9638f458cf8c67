package zookeeper_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/zk"
)

func TestParseACL(t *testing.T) {
	id := zookeeper.DigestID("admin", "secret")
	for _, spec := range []string{"world:anyone:r,auth::cdrwa", "digest:" + id + ":cdrwa", "ip:127.0.0.1:rw"} {
		acl, err := zookeeper.ParseACL(spec)
		if err != nil {
			t.Fatalf("ParseACL(%q): %v", spec, err)
		}
		if got := zookeeper.FormatACL(acl); got != spec {
			t.Errorf("FormatACL(ParseACL(%q)) = %q", spec, got)
		}
	}
	for _, bad := range []string{"", "world:anyone", "world:someone:r", "world:anyone:x", "digest:admin:cdrwa", "nosuch:x:r"} {
		if _, err := zookeeper.ParseACL(bad); err == nil {
			t.Errorf("ParseACL(%q) accepted", bad)
		}
	}
	// The digest ZooKeeper computes for admin:secret (DigestAuthenticationProvider.generateDigest).
	if want := zookeeper.DigestID("admin", "secret"); gozk.DigestACL(gozk.PermAll, "admin", "secret")[0].ID != want {
		t.Errorf("DigestID = %q, go-zookeeper computes %q", want, gozk.DigestACL(gozk.PermAll, "admin", "secret")[0].ID)
	}
}

// TestDigestACLAndTLS: over the TLS port, a client with digest credentials
// creates rules creator-only (Dubbo's ACL), another identity gets an
// *AuthError naming server, node and identity, a kept ephemeral node that
// dubbo-go would create world-writable is tightened, and a client that
// does not trust the server's certificate does not connect.
func TestDigestACLAndTLS(t *testing.T) {
	srv := zk.StartWith(t, zk.Options{TLS: true})
	tlsCfg, err := zookeeper.TLSConfig(zookeeper.TLSFiles{CA: srv.CAFile()})
	if err != nil {
		t.Fatal(err)
	}
	owner, _ := dial(t, srv.TLSAddr(), zookeeper.WithTLS(tlsCfg), zookeeper.WithDigest("fleet:right"))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := owner.PutRule(ctx, "demo.condition-router", "force: false\n"); err != nil {
		t.Fatal(err)
	}
	path, _ := owner.RulePath("demo.condition-router")
	acl, err := owner.GetACL(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := zookeeper.FormatACL(acl), "digest:"+zookeeper.DigestID("fleet", "right")+":cdrwa"; got != want {
		t.Errorf("ACL of %s = %s, want Curator's CREATOR_ALL_ACL resolved to %s", path, got, want)
	}

	wrong, _ := dial(t, srv.TLSAddr(), zookeeper.WithTLS(tlsCfg), zookeeper.WithDigest("fleet:wrong"))
	_, _, err = wrong.GetRule(ctx, "demo.condition-router")
	var ae *zookeeper.AuthError
	if !errors.As(err, &ae) || !errors.Is(err, zookeeper.ErrNoAuth) {
		t.Fatalf("read with a wrong password: %v, want an *AuthError", err)
	}
	for _, want := range []string{srv.TLSAddr(), path, `digest user "fleet"`, "NoAuth"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, err := wrong.PutRule(ctx, "demo.condition-router", "force: true\n"); !errors.Is(err, zookeeper.ErrNoAuth) {
		t.Errorf("write with a wrong password: %v, want NoAuth", err)
	}

	// A node created world-writable (as dubbo-go creates every node) is
	// tightened by the keeper of a client with credentials.
	node := "/dubbo/demo/providers/p1"
	if err := owner.EnsurePath(ctx, "/dubbo/demo/providers"); err != nil {
		t.Fatal(err)
	}
	plain, _ := dial(t, srv.Addr())
	open := raw(t, srv.Addr())
	if err := open.AddAuth("digest", []byte("fleet:right")); err != nil {
		t.Fatal(err)
	}
	if _, err := open.Create(node, []byte("x"), gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	e, err := owner.KeepEphemeral(node, zookeeper.EphemeralOptions{Adopt: true, Tighten: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	deadline := time.Now().Add(wait)
	for {
		acl, err := owner.GetACL(ctx, node)
		if err == nil && zookeeper.FormatACL(acl) == "digest:"+zookeeper.DigestID("fleet", "right")+":cdrwa" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ACL of %s not tightened: %v %v", node, zookeeper.FormatACL(acl), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := plain.PutData(ctx, node, []byte("hijacked")); !errors.Is(err, zookeeper.ErrNoAuth) {
		t.Errorf("anonymous write of the tightened node: %v, want NoAuth", err)
	}

	// Untrusted server certificate: no session.
	if _, err := zookeeper.Dial([]string{srv.TLSAddr()}, zookeeper.WithTLS(&tls.Config{MinVersion: tls.VersionTLS12}), zookeeper.WithTimeout(2*time.Second)); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Errorf("dial without trusting the server's certificate: %v, want a certificate error", err)
	}
}
