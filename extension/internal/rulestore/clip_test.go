package rulestore

import (
	"strings"
	"testing"
)

func TestClipBoundsLoggedErrors(t *testing.T) {
	if got := clip("short", 10); got != "short" {
		t.Fatalf("clip changed a short string: %q", got)
	}
	long := strings.Repeat("é", 2000) // 4000 bytes
	got := clip(long, 101)
	if !strings.HasPrefix(got, strings.Repeat("é", 50)+"…") || !strings.Contains(got, "3900 more bytes") {
		t.Fatalf("clip = %.80q...", got)
	}
}
