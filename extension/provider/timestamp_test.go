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

func TestJavaWarmup(t *testing.T) {
	for in, want := range map[string]string{
		"0s":     "0",      // server.WithWarmup(0)
		"10m0s":  "600000", // dubbo-go's duration form
		"600000": "600000", // already Java's milliseconds
		"x":      "x",
		"":       "",
	} {
		u, err := common.NewURL("dubbo://127.0.0.1:20880/S?warmup=" + in)
		if err != nil {
			t.Fatal(err)
		}
		JavaWarmup(u)
		if got := u.GetParam("warmup", ""); got != want {
			t.Errorf("warmup %q -> %q, want %q", in, got, want)
		}
	}
}
