package fault

import (
	"errors"
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// TestBlacklistsHold: a consumer blacklisted by a condition rule
// (host = <its host> =>) gets no provider whatever else is in force. The
// table crosses the blacklist's level (service rule, consumer-app rule,
// provider-app rule) with a tag rule (tag t -> p2) on or off, a gray rule
// (users 1-10 -> the status=gray provider p3) on or off, and nine calls:
// queryAll, gray user 1 and normal user 3333, each without a tag, with
// dubbo.tag=t, and with dubbo.tag=t plus dubbo.force.tag. For every cell the
// explain trace routes nobody (and the blacklist rule's step, where the
// chain reached it, says blacklist) and a real call fails. The same cells
// without the blacklist are the control: each routes somewhere and its call
// succeeds, except tag t with force while no tag rule exists (no provider
// has the static tag t).
func TestBlacklistsHold(t *testing.T) {
	w := newWorld(t, []harness.ProviderOptions{{}, {}, {Params: map[string]string{"status": "gray"}}}, harness.ConsumerOptions{})
	p1, p2, p3 := w.ps[0], w.ps[1], w.ps[2]
	host := consumerHost(t, w)
	t.Logf("the consumer registered host %s", host)
	good := goodRules(p1.Port, p2.Port)

	blacklists := []struct{ level, key, content string }{
		{"service", svcKey, fmt.Sprintf("scope: service\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - host = %s =>\n", api.Interface, host)},
		{"consumer-app", consumerAppKey, fmt.Sprintf("scope: application\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - host = %s =>\n", consumerApp, host)},
		{"provider-app", provAppKey, fmt.Sprintf("scope: application\nforce: true\nenabled: true\nkey: %s\nconditions:\n  - host = %s =>\n", api.ProviderApp, host)},
	}
	var calls []harness.Call
	for _, base := range []harness.Call{harness.QueryAll, harness.TestUser("1"), harness.TestUser("3333")} {
		calls = append(calls, base, base.WithTag("t", false), base.WithTag("t", true))
	}

	cells, rpcs, controls := 0, 0, 0
	for _, state := range []struct{ tagRule, grayRule bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		name := fmt.Sprintf("tagRule=%v/grayRule=%v", state.tagRule, state.grayRule)
		w.setRule(t, tagKey, state.tagRule, good[tagKey])
		w.setRule(t, grayKey, state.grayRule, good[grayKey])
		if _, err := w.c.WaitExplain(harness.TestUser("1"), settle, func(ex httpapi.Explain) bool {
			_, tagIn := ex.Rules[tagKey]
			d := grayOf(ex)
			return tagIn == state.tagRule && (d.Rule == 0) == state.grayRule && len(ex.Routed) > 0
		}); err != nil {
			t.Fatalf("%s: rules not in force: %v", name, err)
		}

		// Control: without the blacklist these calls are routed and served.
		for _, call := range calls {
			ex, err := w.c.Explain(call)
			if err != nil {
				t.Fatal(err)
			}
			port, err := w.c.Do(call)
			rpcs++
			wantNone := call.Force && !state.tagRule
			switch {
			case wantNone && (len(ex.Routed) != 0 || err == nil):
				t.Errorf("%s control %s: routed %v, call port %d err %v; want no provider (no static tag t)", name, call, ex.Routed, port, err)
			case !wantNone && (len(ex.Routed) == 0 || err != nil):
				t.Errorf("%s control %s: routed %v, call err %v; want served (trace: %s)", name, call, ex.Routed, err, ex.TraceText)
			case !wantNone:
				controls++
			}
			if state.grayRule && call.UserID == "1" && call.Tag == "" && port != p3.Port {
				t.Errorf("%s control %s: served by %d, want the gray provider %d", name, call, port, p3.Port)
			}
		}

		for _, bl := range blacklists {
			w.put(t, bl.key, bl.content)
			if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool { return len(ex.Routed) == 0 }); err != nil {
				t.Fatalf("%s: %s blacklist not in force: %v", name, bl.level, err)
			}
			for _, call := range calls {
				cells++
				ex, err := w.c.Explain(call)
				if err != nil {
					t.Fatal(err)
				}
				if len(ex.Routed) != 0 {
					t.Errorf("%s, %s blacklist, %s: routed to %v (trace: %s)", name, bl.level, call, ex.Routed, ex.TraceText)
				}
				reached := false
				for _, st := range ex.Trace.Steps {
					if st.Key == bl.key && st.In > 0 {
						reached = true
						if st.Branch != "blacklist" {
							t.Errorf("%s, %s blacklist, %s: the %s step took branch %s, want blacklist (trace: %s)", name, bl.level, call, st.Router, st.Branch, ex.TraceText)
						}
					}
				}
				if !reached && !(call.Force && !state.tagRule) {
					t.Errorf("%s, %s blacklist, %s: the chain never reached the blacklist rule (trace: %s)", name, bl.level, call, ex.TraceText)
				}
				port, err := w.c.Do(call)
				rpcs++
				var rpc *harness.RPCError
				if !errors.As(err, &rpc) {
					t.Errorf("%s, %s blacklist, %s: want an RPC failure, got port %d err %v", name, bl.level, call, port, err)
				}
			}
			if err := w.rules.Delete(bl.key); err != nil {
				t.Fatal(err)
			}
			if _, err := w.c.WaitExplain(harness.QueryAll, settle, func(ex httpapi.Explain) bool {
				_, in := ex.Rules[bl.key]
				return !in && len(ex.Routed) > 0
			}); err != nil {
				t.Fatalf("%s: %s blacklist not gone: %v", name, bl.level, err)
			}
		}
	}
	t.Logf("%d blacklisted cells (3 levels x 4 rule states x %d calls), each explained and called: no provider; %d control calls served; %d RPCs in all",
		cells, len(calls), controls, rpcs)
	if want := 3 * 4 * len(calls); cells != want {
		t.Errorf("%d cells, want %d", cells, want)
	}
}

// setRule puts content under key (on) or deletes the key (off).
func (w *world) setRule(t *testing.T, key string, on bool, content string) {
	t.Helper()
	if on {
		w.put(t, key, content)
		return
	}
	if err := w.rules.Delete(key); err != nil {
		t.Fatal(err)
	}
}

// consumerHost is the host the consumer registered, which is what a
// condition rule's "host" matches (dubbo-go puts its local IP on the
// consumer URL, not 127.0.0.1).
func consumerHost(t *testing.T, w *world) string {
	t.Helper()
	var host string
	if err := harness.Eventually(settle, func() error {
		cs, err := w.rules.Consumers(api.Interface)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if c.Param("application") == consumerApp {
				host = c.URL.Hostname()
				return nil
			}
		}
		return fmt.Errorf("no consumer of %s registered: %v", consumerApp, cs)
	}); err != nil {
		t.Fatal(err)
	}
	return host
}
