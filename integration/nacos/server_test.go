package nacos_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/integration/nacos"
)

func post(t *testing.T, addr, path string, form url.Values, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func get(t *testing.T, addr, path string, q url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path+"?"+q.Encode(), nil)
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestServerServesAndRestarts: the private server answers the 1.x config
// OpenAPI on 127.0.0.1 and gRPC on HTTP+1000, keeps its configs across
// Stop/Start and Kill/Restart on the same ports, and is gone after Close.
func TestServerServesAndRestarts(t *testing.T) {
	s, err := nacos.StartServer(nacos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("rnacos started in %v", s.LastStartDuration())
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Fatalf("Addr %s: want loopback", s.Addr())
	}
	if c, err := net.DialTimeout("tcp", s.GRPCAddr(), time.Second); err != nil {
		t.Fatalf("gRPC port %s: %v", s.GRPCAddr(), err)
	} else {
		c.Close()
	}
	form := url.Values{"dataId": {"k.tag-router"}, "group": {"dubbo"}, "content": {"a: 1\n"}}
	if code, body := post(t, s.Addr(), "/nacos/v1/cs/configs", form, nil); code != 200 || body != "true" {
		t.Fatalf("publish: %d %q", code, body)
	}
	for i, restart := range []func() error{
		func() error { _ = s.Stop(); return s.Start() },
		s.Restart,
		func() error { _ = s.Kill(); return s.Start() },
	} {
		if err := restart(); err != nil {
			t.Fatalf("restart %d: %v", i, err)
		}
		if code, body := get(t, s.Addr(), "/nacos/v1/cs/configs", url.Values{"dataId": {"k.tag-router"}, "group": {"dubbo"}}); code != 200 || body != "a: 1\n" {
			t.Fatalf("after restart %d: %d %q; want the config kept", i, code, body)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Running() {
		t.Fatal("running after Close")
	}
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		c.Close()
		t.Fatal("HTTP port still answers after Close")
	}
}

// TestWhatRnacosServes pins the 1.x OpenAPI behaviour directory/nacos relies
// on (docs/nacos.md lists where rnacos may differ from Apache Nacos).
func TestWhatRnacosServes(t *testing.T) {
	s := nacos.Start(t)
	a := s.Addr()
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	// A missing config: 404.
	if code, _ := get(t, a, "/nacos/v1/cs/configs", q("dataId", "none", "group", "dubbo")); code != 404 {
		t.Fatalf("missing config: %d, want 404", code)
	}
	// Blank content is refused.
	if code, _ := post(t, a, "/nacos/v1/cs/configs", q("dataId", "x", "group", "dubbo", "content", ""), nil); code == 200 {
		t.Fatal("blank content accepted")
	}
	// Tenant "public" is the public namespace; "dev" needs no creation.
	post(t, a, "/nacos/v1/cs/configs", q("dataId", "x", "group", "dubbo", "content", "pub\n"), nil)
	if _, body := get(t, a, "/nacos/v1/cs/configs", q("dataId", "x", "group", "dubbo", "tenant", "public")); body != "pub\n" {
		t.Fatalf("tenant public: %q", body)
	}
	if code, body := post(t, a, "/nacos/v1/cs/configs", q("dataId", "x", "group", "dubbo", "tenant", "dev", "content", "dev\n"), nil); code != 200 || body != "true" {
		t.Fatalf("publish to an uncreated namespace: %d %q", code, body)
	}
	// The listener: without Long-Pulling-Timeout it answers at once; an
	// MD5 that differs names the config; "" for a missing one does not.
	hold := map[string]string{"Long-Pulling-Timeout": "10000"}
	if code, body := post(t, a, "/nacos/v1/cs/configs/listener", q("Listening-Configs", "x\x02dubbo\x02wrong\x01"), hold); code != 200 || body != "x%02dubbo%01\n" {
		t.Fatalf("listener with a stale md5: %d %q", code, body)
	}
	if code, body := post(t, a, "/nacos/v1/cs/configs/listener", q("Listening-Configs", "x\x02dubbo\x02wrong\x02dev\x01"), hold); code != 200 || body != "x%02dubbo%02dev%01\n" {
		t.Fatalf("listener in namespace dev: %d %q", code, body)
	}
	start := time.Now()
	if code, body := post(t, a, "/nacos/v1/cs/configs/listener", q("Listening-Configs", "none\x02dubbo\x02\x01"), nil); code != 200 || strings.TrimSpace(body) != "" {
		t.Fatalf("listener on a missing config with md5 \"\": %d %q", code, body)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Logf("listener without a timeout header took %v", d)
	}
	// A held poll is answered when the config changes.
	done := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+a+"/nacos/v1/cs/configs/listener", strings.NewReader(q("Listening-Configs", "none\x02dubbo\x02\x01").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Long-Pulling-Timeout", "10000")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- string(b)
	}()
	time.Sleep(300 * time.Millisecond)
	post(t, a, "/nacos/v1/cs/configs", q("dataId", "none", "group", "dubbo", "content", "now\n"), nil)
	select {
	case body := <-done:
		if body != "none%02dubbo%01\n" {
			t.Fatalf("held poll answered %q", body)
		}
	case <-time.After(9 * time.Second):
		t.Fatal("held poll not answered on change")
	}
	// Delete answers true, for a missing config too.
	for i := 0; i < 2; i++ {
		req, _ := http.NewRequest(http.MethodDelete, "http://"+a+"/nacos/v1/cs/configs?"+q("dataId", "none", "group", "dubbo").Encode(), nil)
		if code, body := do(t, req); code != 200 || body != "true" {
			t.Fatalf("delete #%d: %d %q", i+1, code, body)
		}
	}
}

func TestStartWithoutBinarySaysRunMakeTest(t *testing.T) {
	_, err := nacos.StartServer(nacos.Options{Bin: "/nonexistent/rnacos"})
	if !errors.Is(err, nacos.ErrNotInstalled) || !strings.Contains(err.Error(), "make test") {
		t.Fatalf("err %v, want ErrNotInstalled saying to run make test", err)
	}
}
