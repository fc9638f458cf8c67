package source

import (
	"fmt"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"dubbo.apache.org/dubbo-go/v3/remoting"
)

// recorder is a registry.NotifyListener that writes down what it is told.
type recorder struct{ got []string }

func (r *recorder) Notify(ev *registry.ServiceEvent) {
	r.got = append(r.got, fmt.Sprintf("%s %s", ev.Action, ev.Service.Location))
}

func (r *recorder) NotifyAll(evs []*registry.ServiceEvent, _ func()) {
	var locs []string
	for _, ev := range evs {
		locs = append(locs, ev.Service.Location)
	}
	r.got = append(r.got, "all "+strings.Join(locs, ","))
}

func (r *recorder) take() string {
	s := strings.Join(r.got, "; ")
	r.got = nil
	return s
}

func provider(t *testing.T, proto, addr, extra string) *common.URL {
	t.Helper()
	u, err := common.NewURL(proto + "://" + addr + "/com.foo.Bar?interface=com.foo.Bar" + extra)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestProviderFeed: the first list goes over complete (another protocol's
// provider on its own after it), later lists one event per provider added,
// changed or removed, in key order; an unchanged URL (the same one, or an
// equal text) gives no event; Again repeats the list in force.
func TestProviderFeed(t *testing.T) {
	r := &recorder{}
	f := NewProviderFeed(r, "dubbo")
	a, b, tri := provider(t, "dubbo", "10.0.0.1:20880", ""), provider(t, "dubbo", "10.0.0.2:20880", ""), provider(t, "tri", "10.0.0.3:50051", "")
	if f.Started() {
		t.Fatal("started before the first list")
	}
	if added := f.Next(map[string]*common.URL{"b": b, "a": a, "t": tri}); !added || !f.Started() {
		t.Errorf("first list: added=%v started=%v", added, f.Started())
	}
	want := fmt.Sprintf("all 10.0.0.1:20880,10.0.0.2:20880; %s 10.0.0.3:50051", remoting.EventTypeAdd)
	if got := r.take(); got != want {
		t.Errorf("first list: %s, want %s", got, want)
	}
	if u, ok := f.Known("a"); !ok || u != a {
		t.Errorf("Known(a) = %v, %v", u, ok)
	}
	a2 := provider(t, "dubbo", "10.0.0.1:20880", "&weight=50")
	bSame := provider(t, "dubbo", "10.0.0.2:20880", "")
	c := provider(t, "dubbo", "10.0.0.4:20880", "")
	if added := f.Next(map[string]*common.URL{"a": a2, "b": bSame, "c": c}); !added {
		t.Error("a list with a new provider: added=false")
	}
	want = fmt.Sprintf("%s 10.0.0.1:20880; %s 10.0.0.4:20880; %s 10.0.0.3:50051", remoting.EventTypeUpdate, remoting.EventTypeAdd, remoting.EventTypeDel)
	if got := r.take(); got != want {
		t.Errorf("second list: %q, want %q (a changed, c added, t removed, nothing for b)", got, want)
	}
	if added := f.Next(map[string]*common.URL{"a": a2, "b": bSame, "c": c}); added || r.take() != "" {
		t.Error("the same list again gave events")
	}
	f.Again()
	if got := r.take(); got != "all 10.0.0.1:20880,10.0.0.2:20880,10.0.0.4:20880" {
		t.Errorf("Again: %q", got)
	}
	f.Next(map[string]*common.URL{})
	want = fmt.Sprintf("%[1]s 10.0.0.1:20880; %[1]s 10.0.0.2:20880; %[1]s 10.0.0.4:20880", remoting.EventTypeDel)
	if got := r.take(); got != want {
		t.Errorf("empty list: %q, want %q", got, want)
	}
	f.Again()
	if got := r.take(); got != "" {
		t.Errorf("Again with no provider: %q", got)
	}
}
