package source

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"

	"github.com/dubboroute/dubboroute/directory/watch"
)

type fakeProviders struct{ name string }

func (fakeProviders) Subscribe(registry.Registry, *common.URL, registry.NotifyListener) (func(), error) {
	return func() {}, nil
}

type fakeRules struct{ name string }

func (fakeRules) Open(*common.URL) (RuleClient, error) { return nil, nil }

// TestSourcesChosenByProtocol: a source is found by the URL's protocol,
// else by its registry parameter (dubbo-go's registry:// URLs), and not at
// all for a protocol nobody registered.
func TestSourcesChosenByProtocol(t *testing.T) {
	RegisterProviderSource("Unit-Reg", fakeProviders{"unit"})
	RegisterRuleSource("unit-cc", fakeRules{"unit"})
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"unit-reg://127.0.0.1:2181", true},
		{"registry://127.0.0.1:2181?registry=unit-reg", true},
		{"service-discovery-registry://127.0.0.1:2181?registry=unit-reg", true},
		{"registry://127.0.0.1:2181?registry=other", false},
		{"other://127.0.0.1:2181", false},
	} {
		u, err := common.NewURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := ProviderSourceFor(u) != nil; got != c.want {
			t.Errorf("ProviderSourceFor(%s) found=%v, want %v", c.url, got, c.want)
		}
	}
	u, _ := common.NewURL("unit-cc://127.0.0.1:1")
	if s, ok := RuleSourceFor(u).(fakeRules); !ok || s.name != "unit" {
		t.Errorf("RuleSourceFor(unit-cc) = %v", RuleSourceFor(u))
	}
	if RuleSourceFor(nil) != nil || ProviderSourceFor(nil) != nil {
		t.Error("a nil URL found a source")
	}
	r, p := Registered()
	if len(r) == 0 || len(p) == 0 {
		t.Errorf("Registered() = %v, %v", r, p)
	}
}

// TestNewRuleEventDecidesDeletes: the one place that decides a delete. A
// missing key deletes every kind; blank content deletes a routing rule but
// is content (that Java's listener rejects) for a configurators key; a
// deleted event carries no content and keeps its revision.
func TestNewRuleEventDecidesDeletes(t *testing.T) {
	for _, c := range []struct {
		key     string
		exists  bool
		content string
		deleted bool
	}{
		{"app.condition-router", false, "", true},
		{"app.condition-router", false, "stale", true},
		{"app.condition-router", true, "", true},
		{"app.tag-router", true, " \n\t", true},
		{"app.MESHAPPRULE", true, "", true},
		{"app.tag-router", true, "force: true", false},
		{"app.configurators", false, "", true},
		{"app.configurators", true, "", false},
		{"com.foo.Bar::.configurators", true, "  ", false},
		{"com.foo.Bar::.configurators", true, "configVersion: v3.0", false},
	} {
		ev := NewRuleEvent(c.key, c.exists, c.content, 7)
		if ev.Deleted != c.deleted || ev.Revision != 7 {
			t.Errorf("NewRuleEvent(%q, %v, %q) = %+v, want deleted=%v revision 7", c.key, c.exists, c.content, ev, c.deleted)
		}
		if want := c.content; ev.Deleted && ev.Content != "" || !ev.Deleted && ev.Content != want {
			t.Errorf("NewRuleEvent(%q, %v, %q) content %q", c.key, c.exists, c.content, ev.Content)
		}
	}
}

// TestReadEvent: a client's read becomes the key's state; a missing key
// (an error wrapping the client's not-found error) is a delete carrying the
// client's revision of no key; any other error is returned.
func TestReadEvent(t *testing.T) {
	notFound := errors.New("no such key")
	if ev, err := ReadEvent("app.tag-router", "force: true", "md5", nil, notFound); err != nil || ev.Deleted || ev.Content != "force: true" || ev.Revision != "md5" {
		t.Errorf("present key: %+v, %v", ev, err)
	}
	if ev, err := ReadEvent("app.tag-router", "", "", fmt.Errorf("get rule: %w", notFound), notFound); err != nil || !ev.Deleted || ev.Revision != "" {
		t.Errorf("missing key: %+v, %v", ev, err)
	}
	refused := errors.New("refused")
	if _, err := ReadEvent("app.tag-router", "", "", refused, notFound); !errors.Is(err, refused) {
		t.Errorf("failed read: error %v, want %v", err, refused)
	}
}

type clientEvent struct {
	gone    bool
	content string
	rev     int
}

func (e clientEvent) State() (bool, string, any) { return !e.gone, e.content, e.rev }

// TestWatchEvents: a client's watch events become the key's states, judged
// as NewRuleEvent judges them (an empty condition rule deletes); a failed
// watch is returned as it is.
func TestWatchEvents(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan clientEvent, 3)
	ch <- clientEvent{content: "force: true", rev: 1}
	ch <- clientEvent{content: "", rev: 2}
	ch <- clientEvent{gone: true, rev: 3}
	close(ch)
	out, err := WatchEvents(ctx, "app.condition-router", ch, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []RuleEvent
	for ev := range out {
		got = append(got, ev)
	}
	want := []RuleEvent{{Content: "force: true", Revision: 1}, {Deleted: true, Revision: 2}, {Deleted: true, Revision: 3}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events %+v, want %+v", got, want)
	}
	failed := errors.New("watch refused")
	if out, err := WatchEvents[clientEvent](ctx, "app.condition-router", nil, failed); out != nil || !errors.Is(err, failed) {
		t.Errorf("failed watch: %v, %v", out, err)
	}
}

type fakeOverrides struct{ fakeProviders }

func (fakeOverrides) WatchOverrides(ctx context.Context, _ *common.URL, iface string) (<-chan Overrides, error) {
	ch := make(chan Overrides, 1)
	ch <- Overrides{Where: iface}
	return watch.Relay(ctx, ch, func(o Overrides) Overrides { o.Where = "/unit/" + o.Where; return o }), nil
}

// TestOverrideSourceOfAProviderSource: a registry's override source is its
// provider source when that implements OverrideSource, none otherwise;
// watch.Relay converts the client's events.
func TestOverrideSourceOfAProviderSource(t *testing.T) {
	RegisterProviderSource("unit-ov", fakeOverrides{})
	RegisterProviderSource("unit-plain", fakeProviders{})
	plain, _ := common.NewURL("registry://127.0.0.1:1?registry=unit-plain")
	if OverrideSourceFor(plain) != nil {
		t.Error("a provider source without WatchOverrides is an override source")
	}
	u, _ := common.NewURL("registry://127.0.0.1:1?registry=unit-ov")
	src := OverrideSourceFor(u)
	if src == nil {
		t.Fatal("no override source for unit-ov")
	}
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := src.WatchOverrides(ctx, u, "com.foo.Bar")
	if err != nil {
		t.Fatal(err)
	}
	if o := <-ch; o.Where != "/unit/com.foo.Bar" {
		t.Errorf("first state %+v", o)
	}
	cancel()
	for range ch { // closed once ctx ends
	}
}
