package nacosfollow

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"

	dnacos "github.com/dubboroute/dubboroute/directory/nacos"
	"github.com/dubboroute/dubboroute/extension/source"
)

// recorder is a NotifyListener that records what it was told.
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) Notify(ev *registry.ServiceEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf("%s %s tag=%s", ev.Action, ev.Service.Location, ev.Service.GetParam("dubbo.tag", "")))
}

func (r *recorder) NotifyAll(evs []*registry.ServiceEvent, done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var a []string
	for _, ev := range evs {
		a = append(a, ev.Service.Location)
	}
	sort.Strings(a)
	r.log = append(r.log, "all "+strings.Join(a, ","))
	done()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.log
	r.log = nil
	return out
}

// javaInstance is an instance as Java's NacosRegistry registers a provider.
func javaInstance(port int, extra ...string) dnacos.Instance {
	md := map[string]string{
		"protocol": "dubbo", "path": "com.foo.Bar", "interface": "com.foo.Bar", "category": "providers",
		"side": "provider", "application": "demo-provider", "methods": "queryAll", "timestamp": "1700000000000",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		md[extra[i]] = extra[i+1]
	}
	return dnacos.Instance{IP: "127.0.0.1", Port: port, Weight: 1, Healthy: true, Enabled: true, Metadata: md}
}

func TestFeed(t *testing.T) {
	sub, err := common.NewURL("dubbo://127.0.0.1/com.foo.Bar?interface=com.foo.Bar&category=providers&side=consumer")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan dnacos.Instances)
	first := make(chan struct{})
	r := &recorder{}
	done := make(chan struct{})
	go func() { feed(ch, sub, r, first, "test"); close(done) }()
	send := func(hosts ...dnacos.Instance) {
		ch <- dnacos.Instances{Service: "providers:com.foo.Bar::", Hosts: hosts}
	}
	disabled := javaInstance(20883)
	disabled.Enabled = false
	otherGroup := javaInstance(20884, "group", "other")
	send(javaInstance(20880), javaInstance(20881), disabled, otherGroup)
	<-first
	if got := strings.Join(r.take(), "|"); got != "all 127.0.0.1:20880,127.0.0.1:20881" {
		t.Fatalf("first list: %s (want one complete list without the disabled instance and the other group's)", got)
	}
	send(javaInstance(20880, "dubbo.tag", "gray"), javaInstance(20882))
	time.Sleep(50 * time.Millisecond)
	got := r.take()
	sort.Strings(got)
	want := []string{"add 127.0.0.1:20882 tag=", "delete 127.0.0.1:20881 tag=", "update 127.0.0.1:20880 tag=gray"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("changes: %v, want %v", got, want)
	}
	send(javaInstance(20880, "dubbo.tag", "gray"), javaInstance(20882))
	close(ch)
	<-done
	if got := r.take(); len(got) != 0 {
		t.Fatalf("an unchanged list gave events %v", got)
	}
}

func TestInstanceURL(t *testing.T) {
	u, err := InstanceURL(javaInstance(20880, "dubbo.tag", "gray"))
	if err != nil {
		t.Fatal(err)
	}
	if u.Protocol != "dubbo" || u.Location != "127.0.0.1:20880" || u.Path != "/com.foo.Bar" || u.GetParam("dubbo.tag", "") != "gray" {
		t.Fatalf("URL %s", u)
	}
	noProto := javaInstance(1)
	delete(noProto.Metadata, "protocol")
	if _, err := InstanceURL(noProto); err == nil || !strings.Contains(err.Error(), "protocol") {
		t.Fatalf("instance without protocol: %v", err)
	}
}

// TestRegisteredAsNacosSource: interface-level directories of a dubbo-go
// Nacos registry URL (registry://...?registry=nacos) are served by this
// package's provider source.
func TestRegisteredAsNacosSource(t *testing.T) {
	u, err := common.NewURL("registry://127.0.0.1:8848?registry=nacos&registry.group=DEFAULT_GROUP")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := source.ProviderSourceFor(u).(providerSource); !ok {
		t.Fatalf("provider source for %s: %T, want nacosfollow's", u, source.ProviderSourceFor(u))
	}
	if !IsNacos(u) {
		t.Fatal("IsNacos false for a Nacos registry URL")
	}
}
