package assembly

import (
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/rules"
)

// TestParserPanicRejectsRule: content whose parser panics (injected) is
// rejected like a bad rule, the panic as its error, and the key's
// revision does not move (the rule in force stays); so for configurators.
func TestParserPanicRejectsRule(t *testing.T) {
	const boom = "force: true\nconditions:\n  - => port=3\n"
	testParseHook = func(_ rules.Kind, content string) {
		if content == boom {
			panic("injected parser panic")
		}
	}
	defer func() { testParseHook = nil }()
	ch := Accept("com.test.Panic::.condition-router", rules.KindCondition, boom, 4)
	if ch.Outcome != OutcomeRejected || ch.Rev != 4 || ch.Err == nil || !strings.Contains(ch.Err.Error(), "injected parser panic") {
		t.Errorf("Accept: %+v", ch)
	}
	if ch := Accept("com.test.Panic::.condition-router", rules.KindCondition, "force: true\nconditions:\n  - => port=2\n", 4); ch.Outcome != OutcomeAccepted || ch.Rev != 5 {
		t.Errorf("a good rule after it: %+v", ch)
	}
	ch = AcceptConfigurators("app.configurators", boom, false, 2)
	if ch.Outcome != OutcomeRejected || ch.Rev != 2 || !strings.Contains(ch.Err.Error(), "injected parser panic") {
		t.Errorf("AcceptConfigurators: %+v", ch)
	}
}
