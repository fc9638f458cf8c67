package console

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// getHost GETs u with the Host header set to host, as a browser does for
// a page whose name (re-bound by DNS to this address) is host.
func getHost(t *testing.T, u, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestConsoleHostCheck: over real loopback HTTP, the console mounted in an
// application's mux and the one Serve starts answer only for loopback
// hosts, localhost and configured names; a DNS-rebinding page (its own
// name as Host) gets nothing; a caller beyond loopback gets nothing
// however the console is mounted, unless AllowRemote.
func TestConsoleHostCheck(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/console/", http.StripPrefix("/console", New(Options{Hosts: []string{"console.internal"}})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	served, err := Serve("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	_, sport, _ := net.SplitHostPort(served.Addr().String())

	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"LOCALHOST.:" + port, true},
		{"app.localhost:" + port, true},
		{"[::1]:" + port, true},
		{"127.8.9.10", true},
		{"console.internal:" + port, true},
		{"Console.Internal", true},
		{"attacker.example:" + port, false},
		{"attacker.example", false},
		{"localhost.attacker.example", false},
		{"127.0.0.1.nip.io:" + port, false},
		{"10.0.0.1:" + port, false},
	} {
		code, body := getHost(t, srv.URL+"/console/api/state", tc.host)
		if got := code == http.StatusOK; got != tc.ok {
			t.Errorf("mounted, Host %q: HTTP %d %.80s, want ok=%t", tc.host, code, body, tc.ok)
		}
		if !tc.ok && (code != http.StatusMisdirectedRequest || strings.Contains(body, "references")) {
			t.Errorf("mounted, Host %q: HTTP %d %.80s, want 421 without state", tc.host, code, body)
		}
	}
	// The page and what-if are behind the same check.
	for _, p := range []string{"/console/", "/console/api/whatif?ref=x&method=m"} {
		if code, _ := getHost(t, srv.URL+p, "attacker.example:"+port); code != http.StatusMisdirectedRequest {
			t.Errorf("%s with a foreign Host: HTTP %d", p, code)
		}
	}
	// Serve's console: no configured names.
	if code, _ := getHost(t, served.URL()+"api/state", "console.internal:"+sport); code != http.StatusMisdirectedRequest {
		t.Errorf("Serve, unconfigured name: HTTP %d", code)
	}
	if code, _ := getHost(t, served.URL()+"api/state", "localhost:"+sport); code != http.StatusOK {
		t.Errorf("Serve, localhost: HTTP %d", code)
	}

	// A caller beyond loopback (a request reaching the application's own
	// mux on a public interface): refused unless AllowRemote; with it, the
	// IP the connection arrived on is a valid Host (an IP literal cannot
	// be re-bound), a foreign name still is not.
	remote := func(c *Console, host string, local net.IP) int {
		req := httptest.NewRequest(http.MethodGet, "http://"+host+"/api/state", nil)
		req.RemoteAddr = "192.0.2.7:41000"
		if local != nil {
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: local, Port: 8080}))
		}
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, req)
		return rec.Code
	}
	// No Host at all (HTTP/1.0): refused.
	req := httptest.NewRequest(http.MethodGet, "/api/state", nil)
	req.Host, req.RemoteAddr = "", "127.0.0.1:41000"
	rec := httptest.NewRecorder()
	New(Options{}).ServeHTTP(rec, req)
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("no Host: HTTP %d, want 421", rec.Code)
	}
	local := net.ParseIP("192.0.2.1")
	if code := remote(New(Options{}), "localhost:8080", local); code != http.StatusForbidden {
		t.Errorf("remote caller, mounted without AllowRemote: HTTP %d, want 403", code)
	}
	open := New(Options{AllowRemote: true, Hosts: []string{"console.example.com"}})
	for host, want := range map[string]int{
		"192.0.2.1:8080": http.StatusOK, "console.example.com": http.StatusOK,
		"192.0.2.99:8080": http.StatusMisdirectedRequest, "attacker.example:8080": http.StatusMisdirectedRequest,
	} {
		if code := remote(open, host, local); code != want {
			t.Errorf("AllowRemote, Host %q: HTTP %d, want %d", host, code, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"dubbo://10.0.0.1:20880/a.B?application=x&token=abc&weight=1":         "dubbo://10.0.0.1:20880/a.B?application=x&token=[redacted]&weight=1",
		"dubbo://u:p@10.0.0.1:20880/a.B?x=1":                                  "dubbo://[redacted]@10.0.0.1:20880/a.B?x=1",
		"zookeeper://admin:s@127.0.0.1:2181":                                  "zookeeper://[redacted]@127.0.0.1:2181",
		"tri://h:1/s?ssl.password=x&Access_Key=y&secretKey=z&ak=q&sign=s":     "tri://h:1/s?ssl.password=[redacted]&Access_Key=[redacted]&secretKey=[redacted]&ak=[redacted]&sign=[redacted]",
		"tri://h:1/s?my%2Dtoken=x&status=gray#f":                              "tri://h:1/s?my%2Dtoken=[redacted]&status=gray#f",
		"registry://h:1/s?refer=application%3Dc%26password%3Dp%26side%3Dc":    "registry://h:1/s?refer=application%3Dc%26password%3D%5Bredacted%5D%26side%3Dc",
		"registry://h:1/s?export=dubbo%3A%2F%2Fu%3Ap%40h%3A2%2Fs%3Ftoken%3Dt": "registry://h:1/s?export=dubbo%3A%2F%2F%5Bredacted%5D%40h%3A2%2Fs%3Ftoken%3D%5Bredacted%5D",
		"dubbo://10.0.0.1:20880/a.B?interface=a.B&timeout=3000&tag=x":         "dubbo://10.0.0.1:20880/a.B?interface=a.B&timeout=3000&tag=x",
		"no url at all": "no url at all",
		"":              "",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	if got := redactText(`call failed: dial tri://x:y@h:1/s?token=t (refused)`); got != `call failed: dial tri://[redacted]@h:1/s?token=[redacted] (refused)` {
		t.Errorf("redactText: %q", got)
	}
}

// TestConsoleRedaction: the fixture's providers carry a token, a password
// parameter and userinfo; neither api/state nor the page shows them.
func TestConsoleRedaction(t *testing.T) {
	srv := newTestServer(t)
	for _, p := range []string{"/console/api/state", "/console/"} {
		code, body := get(t, srv.URL+p)
		if code != http.StatusOK {
			t.Fatalf("%s: HTTP %d", p, code)
		}
		for _, secret := range []string{secretToken, secretPassword, secretUserinfo} {
			if strings.Contains(string(body), secret) {
				t.Errorf("%s shows the secret %q", p, secret)
			}
		}
		if p == "/console/api/state" && !strings.Contains(string(body), "token=[redacted]") {
			t.Errorf("%s: no redacted token shown", p)
		}
	}
}

// TestConsoleLimits: what-if requests beyond MaxConcurrent get 503, an
// outcome lists at most MaxOutcomeAddresses addresses, a long query and
// too many values are refused, and a request over Timeout gets 503.
func TestConsoleLimits(t *testing.T) {
	c := New(Options{MaxConcurrent: 1, MaxOutcomeAddresses: 1})
	srv := httptest.NewServer(c)
	defer srv.Close()
	q := url.Values{"ref": {iface + "@" + consumerApp}, "method": {"queryByName"}, "arg": {"Go"}}
	c.slots <- struct{}{} // one what-if in flight
	for _, p := range []string{"api/whatif?" + q.Encode(), "?ref=" + url.QueryEscape(iface+"@"+consumerApp) + "&method=queryByName&args=Go"} {
		resp, err := http.Get(srv.URL + "/" + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s with the slot taken: HTTP %d, want 503 with Retry-After", p, resp.StatusCode)
		}
	}
	if code, _ := get(t, srv.URL+"/api/state"); code != http.StatusOK {
		t.Errorf("api/state while a what-if runs: HTTP %d", code)
	}
	c.release()
	q.Set("method", "queryAll") // no weighted pick: one outcome, both untagged providers
	code, body := get(t, srv.URL+"/api/whatif?"+q.Encode())
	if code != http.StatusOK {
		t.Fatalf("what-if: HTTP %d %s", code, body)
	}
	var w WhatIf
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	// Two untagged providers: one listed, one counted.
	if !w.Truncated || len(w.Outcomes) != 1 || strings.Join(w.Outcomes[0].Result, ",") != "10.0.0.1:20880,+1 more" {
		t.Errorf("outcomes not bounded: truncated=%t %+v", w.Truncated, w.Outcomes)
	}
	if len(c.slots) != 0 {
		t.Errorf("what-if slot not released")
	}
	if code, _ := get(t, srv.URL+"/api/whatif?ref=x&method=m&attach="+strings.Repeat("a", MaxQueryBytes)); code != http.StatusRequestURITooLong {
		t.Errorf("long query: HTTP %d, want 414", code)
	}
	if code, _ := get(t, srv.URL+"/api/whatif?ref=x&method=m"+strings.Repeat("&arg=1", MaxQueryValues+1)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("too many values: HTTP %d, want 413", code)
	}
	// A request over its time budget is answered 503 (a budget of 1ns is
	// over before the state is read).
	slow := httptest.NewServer(New(Options{Timeout: time.Nanosecond}))
	defer slow.Close()
	if code, body := get(t, slow.URL+"/api/state"); code != http.StatusServiceUnavailable || !strings.Contains(string(body), "longer than") {
		t.Errorf("timeout: HTTP %d %.80s, want 503", code, body)
	}
	if err := CheckBind("127.0.0.1:0", false); err != nil {
		t.Fatal(err)
	}
	s, err := Serve("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.srv.WriteTimeout <= 0 || s.srv.ReadTimeout <= 0 || s.srv.MaxHeaderBytes <= 0 {
		t.Errorf("Serve's server has no write/read timeout or header limit: %+v", s.srv)
	}
}
