package rulestore

import (
	"strings"
	"sync"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension/source"
	"github.com/dubboroute/dubboroute/rules"
)

// TestParserPanicRejectsRule: an update whose parser panics (injected) is
// rejected like a bad rule, with the panic as its error: the rule in force
// stays and no subscriber is told; the next good update is applied.
func TestParserPanicRejectsRule(t *testing.T) {
	const good = "force: true\nconditions:\n  - => port=2\n"
	const boom = "force: true\nconditions:\n  - => port=3\n"
	f := &fakeSource{initial: source.RuleEvent{Content: good, Revision: 1}, events: make(chan source.RuleEvent)}
	source.RegisterRuleSource("unit-panic", f)
	cu, err := common.NewURL("unit-panic://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	testParseHook = func(_ rules.Kind, content string) {
		if content == boom {
			panic("injected parser panic")
		}
	}
	defer func() { testParseHook = nil }()
	key := "com.test.Panic::.condition-router"
	var mu sync.Mutex
	var got []string
	_, cancel := Subscribe(key, rules.KindCondition, func(r cluster.RuleRef) {
		mu.Lock()
		got = append(got, r.Version)
		mu.Unlock()
	})
	defer cancel()
	store.mu.Lock()
	ks := store.keys[key]
	store.mu.Unlock()
	if !ks.sourceWatch(cu) {
		t.Fatal("sourceWatch: the registered source was not used")
	}
	f.events <- source.RuleEvent{Content: boom, Revision: 2}
	f.events <- source.RuleEvent{Content: good, Revision: 3}
	close(f.events)
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != "3.0#1" || got[1] != "3.0#2" {
		t.Errorf("applied %v, want [3.0#1 3.0#2] (the panicking update skipped)", got)
	}
	var rej string
	for _, st := range RuleStates() {
		if st.Key == key && st.Rejected != nil {
			rej = st.Rejected.Error
		}
	}
	if !strings.Contains(rej, "injected parser panic") {
		t.Errorf("rejection recorded: %q", rej)
	}
}
