package cluster

import (
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"
)

const ruleA = `scope: service
force: true
key: com.muke.dubbocourse.common.api.BookFacade
conditions:
  - method=queryAll => address=*:20880
`

const ruleB = `scope: service
force: true
key: com.muke.dubbocourse.common.api.BookFacade
conditions:
  - method=queryAll => address=*:20881
`

// panicking is an invocation whose Arguments panics while *armed is set,
// and disarms it: what a routing panic on a freshly updated snapshot looks
// like to the chain (the retry on the last good snapshot then succeeds).
type panicking struct {
	base.Invocation
	armed *bool
}

func (p panicking) Arguments() []any {
	if *p.armed {
		*p.armed = false
		panic("injected route panic")
	}
	return p.Invocation.Arguments()
}

// TestRulePanicKeepsLastGood: an update whose compilation panics (injected
// through the Adapt option the chain calls while compiling), and one whose
// first call panics routing (injected through the invocation), are
// rejected (each panics once): the chain keeps routing by the last good rule (A), reports the
// panic, and a later good update is taken as usual.
func TestRulePanicKeepsLastGood(t *testing.T) {
	var panics []string
	compilePanic := false
	adapt := func(ivk base.Invoker) base.Invoker {
		if compilePanic { // once: the recompilation of A goes through
			compilePanic = false
			panic("injected compile panic")
		}
		return ivk
	}
	c := New(consumerURL("c"), Options{Name: iface, Adapt: adapt, OnRulePanic: func(err error) { panics = append(panics, err.Error()) }})
	c.SetInvokers([]base.Invoker{invoker(t, "127.0.0.1:20880", ""), invoker(t, "127.0.0.1:20881", "")})
	a := condRule(t, iface+"::.condition-router", ruleA)
	b := condRule(t, iface+"::.condition-router", ruleB)
	b.Version = "3.0#2"
	c.SetRule(SlotService, a)
	queryAll := func() string { return ports(c.Route(call("queryAll", nil), nil)) }
	if got := queryAll(); got != "20880" {
		t.Fatalf("rule A: %s", got)
	}

	// Compiling B panics.
	compilePanic = true
	c.SetRule(SlotService, b)
	if got := queryAll(); got != "20880" {
		t.Errorf("after B panicked compiling: %s, want A's 20880", got)
	}
	if v := c.Snapshot().Rules[SlotService].Version; v != a.Version {
		t.Errorf("snapshot in force has rule %s, want A's %s", v, a.Version)
	}
	if len(panics) != 1 || !strings.Contains(panics[0], "injected compile panic") {
		t.Errorf("reported %q", panics)
	}

	// B compiles but panics routing: the first call on it routes by A
	// again, and A is back in force.
	c.SetRule(SlotService, b)
	bGen := c.Snapshot().Generation
	routePanic := true
	got := ports(c.Route(panicking{call("queryAll", nil), &routePanic}, nil))
	if got != "20880" {
		t.Errorf("the call that panicked on B: %s, want A's 20880", got)
	}
	if s := c.Snapshot(); s.Rules[SlotService].Version != a.Version || s.Generation == bGen {
		t.Errorf("after B panicked routing: rule %s (snapshot %d), want A", s.Rules[SlotService].Version, s.Generation)
	}
	if got := queryAll(); got != "20880" {
		t.Errorf("later calls: %s", got)
	}
	if len(panics) != 2 || !strings.Contains(panics[1], "injected route panic") {
		t.Errorf("reported %q", panics)
	}
	// List (dubbo-go's directory path) is protected the same way.
	c.SetRule(SlotService, b)
	routePanic = true
	got = ports(c.List(panicking{call("queryAll", nil), &routePanic}))
	if got != "20880" {
		t.Errorf("List on a panicking rule: %s", got)
	}
	// A good update afterwards is taken.
	c.SetRule(SlotService, b)
	if got := queryAll(); got != "20881" {
		t.Errorf("rule B without a panic: %s", got)
	}
}
