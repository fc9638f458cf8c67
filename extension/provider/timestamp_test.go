package provider

import (
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
)

func TestJavaTimestamp(t *testing.T) {
	for in, want := range map[string]string{
		"1796155025":    "1796155025000", // dubbo-go's seconds
		"1796155025000": "1796155025000", // already Java's milliseconds
		"x":             "x",
		"":              "",
	} {
		u, err := common.NewURL("dubbo://127.0.0.1:20880/S?timestamp=" + in)
		if err != nil {
			t.Fatal(err)
		}
		JavaTimestamp(u)
		if got := u.GetParam("timestamp", ""); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
