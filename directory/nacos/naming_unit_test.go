package nacos

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// namingFake answers /nacos/v1/ns/instance/list from a settable host list
// (or with 503 while down), recording the queries it got.
type namingFake struct {
	mu      sync.Mutex
	hosts   []Instance
	down    bool
	queries []string
}

func (f *namingFake) set(down bool, hosts ...Instance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down, f.hosts = down, hosts
}

func (f *namingFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path != "/nacos"+instanceListPath {
		http.NotFound(w, r)
		return
	}
	f.queries = append(f.queries, r.URL.RawQuery)
	if f.down {
		http.Error(w, "server is starting", http.StatusServiceUnavailable)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"name": r.URL.Query().Get("serviceName"), "hosts": f.hosts})
}

func namingClient(t *testing.T, f *namingFake, opts ...Option) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New([]string{strings.TrimPrefix(srv.URL, "http://")}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func namingNext(t *testing.T, ch <-chan Instances) Instances {
	t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			t.Fatal("watch closed")
		}
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no instance list within 5s")
	}
	return Instances{}
}

func namingNone(t *testing.T, ch <-chan Instances, d time.Duration) {
	t.Helper()
	select {
	case l := <-ch:
		t.Fatalf("unexpected list %+v", l.Hosts)
	case <-time.After(d):
	}
}

func inst(ip string, port int, md ...string) Instance {
	m := map[string]string{}
	for i := 0; i+1 < len(md); i += 2 {
		m[md[i]] = md[i+1]
	}
	return Instance{IP: ip, Port: port, Weight: 1, Healthy: true, Enabled: true, Ephemeral: true, Metadata: m}
}

func addrs(l Instances) []string {
	var out []string
	for _, h := range l.Hosts {
		out = append(out, h.Address())
	}
	return out
}

func TestServiceNameAsJava(t *testing.T) {
	for _, c := range []struct{ iface, version, group, want string }{
		{"com.foo.Bar", "", "", "providers:com.foo.Bar::"},
		{"com.foo.Bar", "1.0.0", "g", "providers:com.foo.Bar:1.0.0:g"},
		{"com.foo.Outer$Inner", "", "g", "providers:com.foo.Outer___Inner::g"},
	} {
		if got := ServiceName("providers", c.iface, c.version, c.group); got != c.want {
			t.Errorf("ServiceName(%q, %q, %q) = %q, want %q", c.iface, c.version, c.group, got, c.want)
		}
	}
}

// TestWatchInstancesChangesOnly: the first list, then only lists that
// differ (an address, or metadata), sorted by address; the query names the
// service, group, namespace and healthyOnly=false and no push target.
func TestWatchInstancesChangesOnly(t *testing.T) {
	f := &namingFake{}
	f.set(false, inst("127.0.0.2", 20881), inst("127.0.0.1", 20880))
	c := namingClient(t, f, WithNamespace("dev"))
	ch, err := c.WatchInstances(context.Background(), "providers:com.foo.Bar::", "", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got := addrs(namingNext(t, ch)); strings.Join(got, ",") != "127.0.0.1:20880,127.0.0.2:20881" {
		t.Fatalf("first list %v", got)
	}
	namingNone(t, ch, 150*time.Millisecond) // unchanged: nothing
	f.set(false, inst("127.0.0.1", 20880, "dubbo.tag", "gray"), inst("127.0.0.2", 20881))
	l := namingNext(t, ch)
	if l.Hosts[0].Metadata["dubbo.tag"] != "gray" {
		t.Fatalf("metadata change not delivered: %+v", l.Hosts)
	}
	f.set(false, inst("127.0.0.2", 20881))
	if got := addrs(namingNext(t, ch)); strings.Join(got, ",") != "127.0.0.2:20881" {
		t.Fatalf("after a removal %v", got)
	}
	f.mu.Lock()
	q := f.queries[0]
	f.mu.Unlock()
	for _, want := range []string{"serviceName=providers%3Acom.foo.Bar%3A%3A", "groupName=DEFAULT_GROUP", "namespaceId=dev", "healthyOnly=false"} {
		if !strings.Contains(q, want) {
			t.Errorf("query %q lacks %s", q, want)
		}
	}
	for _, bad := range []string{"udpPort", "clientIP"} {
		if strings.Contains(q, bad) {
			t.Errorf("query %q registers a push target (%s)", q, bad)
		}
	}
}

// TestWatchInstancesKeepsListWhileDown: failing reads deliver nothing (the
// last list stays); the first read after the outage delivers the new state,
// and only if it changed.
func TestWatchInstancesKeepsListWhileDown(t *testing.T) {
	f := &namingFake{}
	f.set(false, inst("127.0.0.1", 20880), inst("127.0.0.1", 20881))
	c := namingClient(t, f)
	ch, err := c.WatchInstances(context.Background(), "svc", "g", 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	namingNext(t, ch)
	f.set(true)
	namingNone(t, ch, 200*time.Millisecond)
	f.set(false, inst("127.0.0.1", 20880), inst("127.0.0.1", 20881)) // back, same list
	namingNone(t, ch, 200*time.Millisecond)
	f.set(true)
	time.Sleep(100 * time.Millisecond)
	f.set(false, inst("127.0.0.1", 20881)) // back, one provider gone meanwhile
	if got := addrs(namingNext(t, ch)); strings.Join(got, ",") != "127.0.0.1:20881" {
		t.Fatalf("after the outage %v", got)
	}
}

// TestWatchInstancesLatestOnly: a reader that falls behind gets the newest
// list, never an older one after it; the channel closes with the context.
func TestWatchInstancesLatestOnly(t *testing.T) {
	f := &namingFake{}
	f.set(false, inst("127.0.0.1", 1))
	c := namingClient(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := c.WatchInstances(ctx, "svc", "", 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for p := 2; p <= 6; p++ {
		time.Sleep(40 * time.Millisecond)
		f.set(false, inst("127.0.0.1", p))
	}
	time.Sleep(100 * time.Millisecond)
	if got := addrs(namingNext(t, ch)); strings.Join(got, ",") != "127.0.0.1:6" {
		t.Fatalf("a late reader got %v, want the latest list 127.0.0.1:6", got)
	}
	cancel()
	select {
	case _, ok := <-ch:
		if ok {
			// one more list may have been in flight; the next read must be the close
			if _, ok := <-ch; ok {
				t.Fatal("watch did not close with its context")
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not close with its context")
	}
}
