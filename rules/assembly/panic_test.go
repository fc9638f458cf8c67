package assembly

import (
	"strings"
	"testing"
)

// TestParserPanicRejectsRule: a parser that panics yields an error naming
// what was parsed and the panic, not a crash; Accept turns a parse error
// into a rejection that leaves the key's revision (the rule in force)
// where it was, and a good rule after it moves on.
func TestParserPanicRejectsRule(t *testing.T) {
	v, err := recovered("condition rule", func() (int, error) { panic("injected parser panic") })
	if v != 0 || err == nil || !strings.Contains(err.Error(), "condition rule: the parser panicked: injected parser panic") {
		t.Fatalf("recovered: %v %v", v, err)
	}
	ch := Accept("com.test.Panic::.condition-router", "condition", "conditions: [", 4)
	if ch.Outcome != OutcomeRejected || ch.Rev != 4 || ch.Err == nil {
		t.Errorf("Accept: %+v", ch)
	}
	if ch := Accept("com.test.Panic::.condition-router", "condition", "force: true\nconditions:\n  - => port=2\n", 4); ch.Outcome != OutcomeAccepted || ch.Rev != 5 {
		t.Errorf("a good rule after it: %+v", ch)
	}
	ch = AcceptConfigurators("app.configurators", "configs: [", false, 2)
	if ch.Outcome != OutcomeRejected || ch.Rev != 2 || ch.Err == nil {
		t.Errorf("AcceptConfigurators: %+v", ch)
	}
}
