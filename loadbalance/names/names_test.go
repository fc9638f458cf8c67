package names

import "testing"

// p2c is dubbo-go's capacity-aware balancer, kept; it is no alias of
// Java's adaptive any more.
func TestP2CIsDubboGoKept(t *testing.T) {
	if c, ok := Canonical("p2c"); ok {
		t.Fatalf("p2c is an alias of %s", c)
	}
	if !IsDubboGoKept("p2c") || IsDubboGoKept("adaptive") || IsJava("p2c") {
		t.Fatal("kept names")
	}
	if c, ok := Canonical("adaptive"); !ok || c != "adaptive" {
		t.Fatalf("adaptive: %s %v", c, ok)
	}
	for _, n := range All() {
		if IsDubboGoKept(n) {
			t.Fatalf("%s is both ours and dubbo-go's", n)
		}
	}
}
