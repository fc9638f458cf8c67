package lane

import (
	"context"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	tri "dubbo.apache.org/dubbo-go/v3/protocol/triple/triple_protocol"
)

// javaConvert is the tri-header-convert value a Java 3.3.6 triple consumer
// sent for the attachment userId (captured from BookConsumer by a Go
// provider, TestTripleInterop).
const javaConvert = "%7B%22userid%22%3A%22userId%22%7D"

func TestRestoreTripleKeysAsJavaProvider(t *testing.T) {
	// As dubbo-go's triple server delivers a Java consumer's call: every
	// key lowercased, values []string.
	atts := map[string]any{"userid": []string{"7"}, "dubbo.tag": []string{"gray"}, TripleHeaderConvert: []string{javaConvert}}
	restoreTripleKeys(invocation.NewRPCInvocation("queryByName", nil, atts))
	if v, ok := atts["userId"].([]string); !ok || len(v) != 1 || v[0] != "7" {
		t.Errorf("userId = %#v, want [7] (attachments %v)", atts["userId"], atts)
	}
	for _, gone := range []string{"userid", TripleHeaderConvert} {
		if _, ok := atts[gone]; ok {
			t.Errorf("%s still in the attachments %v", gone, atts)
		}
	}
	if _, ok := atts["dubbo.tag"]; !ok {
		t.Errorf("dubbo.tag lost: %v", atts)
	}

	// Malformed or mismatching names change nothing but drop the header.
	for _, bad := range []string{"%zz", "not json", "%7B%22userid%22%3A%22groupId%22%7D"} {
		atts := map[string]any{"userid": []string{"7"}, TripleHeaderConvert: bad}
		restoreTripleKeys(invocation.NewRPCInvocation("m", nil, atts))
		if _, ok := atts["userid"]; !ok || len(atts) != 1 {
			t.Errorf("convert %q: attachments %v, want only userid", bad, atts)
		}
	}
	// A dubbo-protocol call (no header) is left alone.
	plain := map[string]any{"userId": "7"}
	restoreTripleKeys(invocation.NewRPCInvocation("m", nil, plain))
	if plain["userId"] != "7" || len(plain) != 1 {
		t.Errorf("dubbo call changed: %v", plain)
	}
}

func TestWithTripleKeyNamesAsJavaConsumer(t *testing.T) {
	inv := invocation.NewRPCInvocation("queryByName", nil, map[string]any{"userId": "7", "dubbo.tag": "gray", "timeout": "3s"})
	ctx := withTripleKeyNames(context.Background(), inv)
	if got := tri.ExtractFromOutgoingContext(ctx).Get(TripleHeaderConvert); got != javaConvert {
		t.Errorf("outgoing %s = %q, want Java's %q", TripleHeaderConvert, got, javaConvert)
	}
	// What a Go provider with the extension then restores.
	atts := map[string]any{"userid": []string{"7"}, TripleHeaderConvert: []string{javaConvert}}
	restoreTripleKeys(invocation.NewRPCInvocation("queryByName", nil, atts))
	if _, ok := atts["userId"]; !ok {
		t.Errorf("round trip: %v, want userId", atts)
	}

	// The application's own header wins; other outgoing headers stay.
	app := tri.NewOutgoingContext(context.Background(), map[string][]string{"x-app": {"1"}})
	ctx = withTripleKeyNames(app, inv)
	if h := tri.ExtractFromOutgoingContext(ctx); h.Get("x-app") != "1" || h.Get(TripleHeaderConvert) == "" {
		t.Errorf("outgoing headers %v, want x-app and %s", h, TripleHeaderConvert)
	}
	if h := tri.ExtractFromOutgoingContext(app); h.Get(TripleHeaderConvert) != "" {
		t.Errorf("the caller's outgoing headers were changed: %v", h)
	}
}

func TestWithTripleKeyNamesLowercaseOnlyDoesNotAllocate(t *testing.T) {
	inv := invocation.NewRPCInvocation("queryAll", nil, map[string]any{"dubbo.tag": "gray", "timeout": "3s", "userid": "7"})
	ctx := context.Background()
	if got := withTripleKeyNames(ctx, inv); got != ctx {
		t.Fatal("ctx replaced for lowercase attachment keys")
	}
	if a := testing.AllocsPerRun(500, func() { withTripleKeyNames(ctx, inv) }); a != 0 {
		t.Errorf("withTripleKeyNames allocates %v times per call without upper-case keys", a)
	}
}
