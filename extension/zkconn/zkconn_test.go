package zkconn

import (
	"net"
	"slices"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/extension/internal/zkclient"
)

func TestServers(t *testing.T) {
	for loc, want := range map[string][]string{
		"127.0.0.1:2181":                    {"127.0.0.1:2181"},
		"zookeeper://a:1,b:2":               {"a:1", "b:2"},
		"zookeeper://user:pw@a:1/dubbo?x=y": {"a:1"},
		" a:1 , ,b:2":                       {"a:1", "b:2"},
	} {
		if got := Servers(&common.URL{Location: loc}); !slices.Equal(got, want) {
			t.Errorf("Servers(%q) = %v, want %v", loc, got, want)
		}
	}
}

func TestOptionsKey(t *testing.T) {
	u, err := common.NewURL("zookeeper://127.0.0.1:2181?zookeeper.tls=true&zookeeper.tls.ca=/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	u.Username, u.Password = "fleet", "pw1"
	k1, opts := zkclient.Options(u)
	u.Password = "pw2"
	k2, _ := zkclient.Options(u)
	if k1 == k2 || len(opts) != 3 {
		t.Errorf("keys %q, %q (must differ by password); %d options, want digest, TLS and session timeout", k1, k2, len(opts))
	}
	for _, k := range []string{k1, k2} {
		if strings.Contains(k, "pw1") || strings.Contains(k, "pw2") {
			t.Errorf("key %q holds the password", k)
		}
	}
}

// TestSameUser: a loopback connection of this process is its user's.
func TestSameUser(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	in, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if ok, why := sameUser(in); !ok {
		t.Errorf("sameUser(own loopback connection) = false: %s", why)
	}
}
