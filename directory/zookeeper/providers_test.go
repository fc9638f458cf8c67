package zookeeper_test

import (
	"context"
	"strings"
	"testing"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/integration/zk"
)

const bookFacade = "com.muke.dubbocourse.common.api.BookFacade"

// javaProviderURL is a provider URL as Java Dubbo 3.3 registers it
// (parameters in alphabetical order).
func javaProviderURL(port, extra string) string {
	return "dubbo://127.0.0.1:" + port + "/" + bookFacade +
		"?application=demo-provider&deprecated=false&dubbo=2.0.2" + extra +
		"&dynamic=true&generic=false&interface=" + bookFacade +
		"&methods=queryAll,queryByName&release=3.3.1&side=provider&timestamp=1700000000000"
}

func TestEncodeComponentMatchesJavaURLEncoder(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Java: URLEncoder.encode(s, "UTF-8")
		{"dubbo://10.0.0.3:20880/com.foo.BarService?application=demo-provider&methods=getFoo,sayHello",
			"dubbo%3A%2F%2F10.0.0.3%3A20880%2Fcom.foo.BarService%3Fapplication%3Ddemo-provider%26methods%3DgetFoo%2CsayHello"},
		{"com.foo.Bar", "com.foo.Bar"},
		{"a b*-_.~", "a+b*-_.%7E"},
		{"é/", "%C3%A9%2F"},
		{"", ""},
	} {
		if got := zookeeper.EncodeComponent(tc.in); got != tc.want {
			t.Errorf("EncodeComponent(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWatchProvidersFollowsRegistryNodes(t *testing.T) {
	srv := zk.Start(t)
	c, logs := dial(t, srv.Addr())
	provider := raw(t, srv.Addr()) // a provider's own session: its nodes are ephemeral

	path, err := c.ProvidersPath(bookFacade)
	if err != nil || path != "/dubbo/"+bookFacade+"/providers" {
		t.Fatalf("ProvidersPath = %q, %v", path, err)
	}
	if p, _ := c.ProvidersPath("a b/c"); p != "/dubbo/a+b%2Fc/providers" {
		t.Fatalf("ProvidersPath of a name needing encoding = %q", p)
	}

	wctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lists, err := c.WatchProviders(wctx, bookFacade)
	if err != nil {
		t.Fatalf("WatchProviders: %v", err)
	}
	if p := nextProviders(t, lists, "watch start"); len(p.URLs) != 0 || len(p.Invalid) != 0 || p.Path != path || p.Interface != bookFacade {
		t.Fatalf("initial list with no registry node = %+v; want empty", p)
	}

	mkdirs(t, provider, path)
	register := func(fullURL string) string {
		t.Helper()
		node := path + "/" + providerNode(fullURL)
		if _, err := provider.Create(node, nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
			t.Fatalf("register %s: %v", fullURL, err)
		}
		return node
	}

	nodeA := register(javaProviderURL("20880", ""))
	p := awaitProviders(t, lists, "provider 20880 registered", "127.0.0.1:20880")
	u := p.URLs[0]
	if u.Protocol != "dubbo" || u.Path != bookFacade || u.Param("application") != "demo-provider" ||
		u.Param("methods") != "queryAll,queryByName" || u.Interface() != bookFacade {
		t.Fatalf("decoded provider URL = %s; want the registered URL", u)
	}

	register(javaProviderURL("20881", "&dubbo.tag=gray"))
	p = awaitProviders(t, lists, "provider 20881 registered", "127.0.0.1:20880", "127.0.0.1:20881")
	if p.URLs[1].Param("dubbo.tag") != "gray" {
		t.Fatalf("20881's dubbo.tag = %q, want gray", p.URLs[1].Param("dubbo.tag"))
	}

	// A child that is not a URL-encoded URL is reported, not fatal.
	if _, err := provider.Create(path+"/not-a-provider", nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if _, err := provider.Create(path+"/"+providerNode("dubbo://127.0.0.1:bad/x"), nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for {
		p = nextProviders(t, lists, "bad nodes registered")
		if len(p.Invalid) == 2 {
			break
		}
	}
	if got := strings.Join(addresses(p), " "); got != "127.0.0.1:20880 127.0.0.1:20881" {
		t.Fatalf("good providers next to bad nodes = %s", got)
	}
	invalid := map[string]bool{}
	for _, bad := range p.Invalid {
		if bad.Err == nil {
			t.Fatalf("invalid node %q without an error", bad.Node)
		}
		invalid[bad.Node] = true
	}
	if !invalid["not-a-provider"] || !invalid[providerNode("dubbo://127.0.0.1:bad/x")] {
		t.Fatalf("invalid nodes = %v", invalid)
	}
	if !strings.Contains(logs.String(), "not-a-provider") {
		t.Fatalf("bad provider node not logged; log:\n%s", logs.String())
	}

	if err := provider.Delete(nodeA, -1); err != nil {
		t.Fatal(err)
	}
	awaitProviders(t, lists, "provider 20880 unregistered", "127.0.0.1:20881")

	// The provider process goes away: its ephemeral nodes go with its session.
	provider.Close()
	awaitProviders(t, lists, "provider session closed")
}
