package mesh

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// TestParseErrorsNameDocumentAndLine: a value Java rejects is rejected with
// the document index and the line of the offending node.
func TestParseErrorsNameDocumentAndLine(t *testing.T) {
	dr := "kind: DestinationRule\nmetadata: {name: r}\nspec:\n  subsets:\n    - {name: a}\n"
	for _, tc := range []struct {
		name, text string
		doc, line  int
		want       string
	}{
		{"bad YAML", dr + "---\nkind: VirtualService\nmetadata: {name: r\n", 1, 0, "bad YAML"}, // line as the YAML parser reports it
		{"weight not an int", dr + "---\nkind: VirtualService\nmetadata: {name: r}\nspec:\n  dubbo:\n    - routedetail:\n        - route:\n            - weight: 1.5\n              destination: {subset: a}\n", 1, 13, "weight"},
		{"name not a string", "kind: DestinationRule\nmetadata: {name: 12}\nspec: {subsets: []}\n", 0, 2, "metadata.name"},
		{"metadata without name", "kind: DestinationRule\nmetadata: {namespace: x}\n", 0, 2, "without a name"},
		{"DR without subsets", dr + "---\nkind: DestinationRule\nmetadata: {name: r}\nspec: {host: x}\n---\nkind: VirtualService\nmetadata: {name: r}\nspec: {}\n", 1, 9, "subsets"},
		{"null list element", dr + "---\nkind: VirtualService\nmetadata: {name: r}\nspec:\n  dubbo: [~]\n", 1, 10, "null list element"},
		{"mapping for a String", dr + "---\nkind: VirtualService\nmetadata: {name: r}\nspec:\n  dubbo:\n    - name: {a: b}\n", 1, 11, "String"},
	} {
		_, err := ParseRule(tc.text)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		var ye *YAMLError
		var be *BindError
		doc, line := -2, -2
		switch {
		case errors.As(err, &ye):
			doc, line = ye.Document, ye.Line
		case errors.As(err, &be):
			doc, line = be.Document, be.Line
		}
		if tc.line == 0 && line > 0 {
			line = 0 // any line
		}
		if doc != tc.doc || line != tc.line || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (document %d, line %d), want document %d, line %d, %q", tc.name, err, doc, line, tc.doc, tc.line, tc.want)
		}
	}
}

// TestJavaBindingQuirks: PojoUtils' conversions as Java applies them.
func TestJavaBindingQuirks(t *testing.T) {
	r, err := ParseRule(`kind: DestinationRule
metadata: {name: r}
spec:
  subsets:
    - {name: a, labels: {n: 1, b: true, f: 1.50}}
---
kind: VirtualService
metadata: {name: r}
spec:
  dubbo:
    - routedetail:
        - match:
            - method: {args: [{index: 0, num_value: {oneof: [{exact: 10}, {exact: 10.0}]}}]}
          route:
            - destination: {subset: a, fallback: {subset: b}}
---
kind: virtualservice
metadata: {name: lower}
---
kind: VirtualService
metadata: {name: r.v1}
`)
	if err != nil {
		t.Fatal(err)
	}
	labels := r.DestinationRules[0].Spec.Subsets[0].Labels
	if *labels[0].Value != "1" || *labels[1].Value != "true" || *labels[2].Value != "1.5" {
		t.Errorf("labels converted as %v %v %v, want Java's toString 1 true 1.5", *labels[0].Value, *labels[1].Value, *labels[2].Value)
	}
	oneof := r.VirtualServices[0].Spec.Dubbo[0].RouteDetail[0].Match[0].Method.Args[0].NumValue.Oneof
	if oneof[0].Exact != nil || oneof[1].Exact == nil || *oneof[1].Exact != 10 {
		t.Errorf("exact: 10 must bind to null (an Integer is not a Double), 10.0 to 10: %+v %+v", oneof[0], oneof[1])
	}
	if fb := r.VirtualServices[0].Spec.Dubbo[0].RouteDetail[0].Route[0].Destination.Fallback; fb == nil || fb.Destination != nil {
		t.Errorf("fallback: {subset: b} must bind to a DubboRouteDestination without destination: %+v", fb)
	}
	if len(r.VirtualServices) != 1 {
		t.Errorf("kind is case-sensitive and a dotted name is another rule type: %d VirtualServices", len(r.VirtualServices))
	}
	for _, code := range []FindingCode{FindIntegerDouble, FindShortFallback, FindOtherKind, FindOtherType} {
		if !hasFinding(r, code) {
			t.Errorf("no %s finding", code)
		}
	}
	// Only dotted names: Java clears the application's rule.
	c, err := ParseRule("kind: VirtualService\nmetadata: {name: r.v1}\n")
	if err != nil || !c.Empty() || c.Cleared == "" {
		t.Errorf("dotted-only value: %+v, %v", c, err)
	}
}

// FuzzParseRule: no input makes parsing, compiling or routing panic.
func FuzzParseRule(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "java", "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(benchRule)
	f.Add("a: &a [1]\nb: [*a, *a]\n")
	f.Add("kind: VirtualService\nmetadata: {name: r}\nspec: {dubbo: [{routedetail: [{route: []}]}]}\n")
	urls := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/com.foo.BarService?application=prov-a&ver=v1"),
		router.MustParseURL("dubbo://10.0.0.2:20880/com.foo.BarService?application=prov-a&ver=v2"),
	}
	consumer := router.MustParseURL("consumer://10.0.0.9/com.foo.BarService?application=c&interface=com.foo.BarService")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseRule(text)
		if err != nil || r.Empty() {
			return
		}
		u := router.NewUniverse(len(urls))
		c := Compile(u, consumer, urls, []AppRule{{App: "prov-a", Key: "prov-a.MESHAPPRULE", Rule: r}}, func(n uint64) uint64 { return n - 1 })
		for _, call := range []*router.Call{
			{Method: "getUser", Args: []any{"x", int64(3), 1.5, true, nil}, Attachments: router.AttachmentMap{"trafficLabel": "gray"}},
			{Method: "m"},
		} {
			c.Route(u.All(), call, &router.Step{})
			c.Route(u.All(), call, nil)
		}
	})
}
