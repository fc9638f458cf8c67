package lanetrust

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	steer    = []string{"dubbo.tag", "dubbo.force.tag", "dubboroute.gray"}
	identity = []string{"userId"}
)

func lane() Attachments {
	return Attachments{"dubbo.tag": "gray", "DUBBO.FORCE.TAG": "true", "dubboroute.gray": []string{"gray"}, "userId": "7",
		SignatureKey: "v1::x", "x-app": "keep", "remote-addr": "10.1.2.3:5000"}
}

func TestApply(t *testing.T) {
	edge := &Policy{Services: []string{"a.Edge"}}
	c := Caller{Service: "a.Edge", Protocol: "dubbo", RemoteAddr: "10.1.2.3:5000"}
	atts := lane()
	out := edge.Apply(c, atts, steer, identity, "dubboroute.gray")
	if !out.Untrusted || len(atts) != 2 || atts["x-app"] != "keep" {
		t.Errorf("strip: %v %+v", atts, out)
	}
	// Another service of the same provider: trusted.
	atts = lane()
	if out := edge.Apply(Caller{Service: "a.Inner"}, atts, steer, identity, "dubboroute.gray"); out.Untrusted || len(atts) != 7 {
		t.Errorf("inner service: %v %+v", atts, out)
	}
	// KeepIdentity keeps userId, Set puts the edge's own values.
	keep := &Policy{Services: []string{"*"}, KeepIdentity: true, Set: func(Caller) map[string]string { return map[string]string{"Dubbo.Tag": "blue"} }}
	atts = lane()
	keep.Apply(c, atts, steer, identity, "dubboroute.gray")
	if atts["userId"] != "7" || atts["Dubbo.Tag"] != "blue" || atts["dubbo.tag"] != nil || atts["dubboroute.gray"] != nil || len(atts) != 4 {
		t.Errorf("keep identity: %v", atts)
	}
	// Trusted networks and the trust function.
	nets := &Policy{Services: []string{"*"}, TrustedNets: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	if nets.Untrusted(c) || !nets.Untrusted(Caller{Service: "s", RemoteAddr: "192.0.2.1:1"}) || !nets.Untrusted(Caller{Service: "s"}) {
		t.Error("trusted nets")
	}
	fn := &Policy{Trusted: func(c Caller) bool { v, _ := c.Attachment("x-app"); return v == "gateway" }}
	get := func(v string) func(string) (string, bool) { return func(string) (string, bool) { return v, true } }
	if fn.Untrusted(Caller{Service: "s", Attachment: get("gateway")}) || !fn.Untrusted(Caller{Service: "s", Attachment: get("other")}) {
		t.Error("trust function")
	}
}

func TestDecisionSignature(t *testing.T) {
	p := &Policy{Key: []byte("0123456789abcdef")}
	src := map[string]string{"userId": "7"}
	get := func(k string) (string, bool) { v, ok := src[k]; return v, ok }
	sig := p.Sign("gray", []string{"userId", "region"}, get)
	if !strings.HasPrefix(sig, "v1:region,userId:") || !p.Verify("gray", sig, get) {
		t.Fatalf("sig %q does not verify", sig)
	}
	for name, ok := range map[string]bool{
		"other decision": p.Verify("normal", sig, get),
		"other user":     p.Verify("gray", sig, func(k string) (string, bool) { return "8", k == "userId" }),
		"other key":      (&Policy{Key: []byte("fedcba9876543210")}).Verify("gray", sig, get),
		"no signature":   p.Verify("gray", "", get),
		"garbage":        p.Verify("gray", "v1:zz", get),
	} {
		if ok {
			t.Errorf("%s verifies", name)
		}
	}
	// Apply drops an unsigned or forged decision from any caller, keeps a
	// valid one.
	for sig, kept := range map[string]bool{"": false, "v1::AAAA": false, p.Sign("gray", identity, get): true} {
		atts := Attachments{"dubboroute.gray": "gray", "userId": "7"}
		if sig != "" {
			atts[SignatureKey] = sig
		}
		out := p.Apply(Caller{Service: "s"}, atts, steer, identity, "dubboroute.gray")
		if _, has := atts["dubboroute.gray"]; has != kept || out.DecisionRejected == kept {
			t.Errorf("sig %q: decision kept %t, want %t", sig, has, kept)
		}
	}
}

func TestFromEnv(t *testing.T) {
	dir := t.TempDir()
	kf := filepath.Join(dir, "key")
	if err := os.WriteFile(kf, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{IngressEnv: "a.B, c.D", IngressModeEnv: "keep-identity", TrustedNetsEnv: "10.0.0.0/8,127.0.0.1", KeyFileEnv: kf}
	p, err := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil || len(p.Services) != 2 || !p.KeepIdentity || len(p.TrustedNets) != 2 || string(p.Key) != "0123456789abcdef0123" {
		t.Fatalf("FromEnv: %+v %v", p, err)
	}
	if p, err := FromEnv(func(string) (string, bool) { return "", false }); p != nil || err != nil {
		t.Errorf("empty env: %+v %v", p, err)
	}
	for k, v := range map[string]string{IngressModeEnv: "loose", TrustedNetsEnv: "10.0.0.0/99", KeyEnv: "short", KeyFileEnv: filepath.Join(dir, "none")} {
		if _, err := FromEnv(func(q string) (string, bool) { return v, q == k }); err == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}
