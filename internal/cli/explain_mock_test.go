package cli

import (
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

func TestExplainMock(t *testing.T) {
	for _, c := range []struct {
		url, method string
		want        *MockInfo
	}{
		{"consumer://1.2.3.4/demo.Svc?mock=force%3Areturn+null", "sayHello", &MockInfo{Value: "force%3Areturn+null", Mode: "force", Action: "return null"}},
		{"consumer://1.2.3.4/demo.Svc?mock=return+1&sayHello.mock=fail%3Athrow", "sayHello", &MockInfo{Value: "fail%3Athrow", Mode: "fail", Action: "throw"}},
		{"consumer://1.2.3.4/demo.Svc?mock=true", "other", &MockInfo{Value: "true", Mode: "fail", Action: "mock implementation default"}},
		{"consumer://1.2.3.4/demo.Svc?mock=false", "sayHello", nil},
		{"consumer://1.2.3.4/demo.Svc", "sayHello", nil},
	} {
		u, err := router.ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		got := mockInfo(u, c.method)
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s %s: mock %+v, want %+v", c.url, c.method, got, c.want)
		}
	}
}
