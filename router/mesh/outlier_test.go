package mesh

import (
	"strings"
	"testing"
	"time"
)

// An Istio-shaped trafficPolicy.outlierDetection is read into the
// DestinationRule without changing what Java binds; a value dubboroute
// cannot read is a finding, never a rejection (Java ignores the message).
func TestOutlierDetectionParse(t *testing.T) {
	const vs = "---\nkind: VirtualService\nmetadata: {name: r}\nspec:\n  dubbo:\n    - routedetail:\n        - route:\n            - destination: {subset: v2}\n"
	text := "kind: DestinationRule\nmetadata: {name: r}\nspec:\n  trafficPolicy:\n    loadBalancer: {simple: ROUND_ROBIN}\n" +
		"    outlierDetection: {consecutive5xxErrors: 7, interval: 5s, baseEjectionTime: 15s, maxEjectionPercent: 50, minHealthPercent: x, retries: 3}\n" +
		"  subsets:\n    - {name: v2, labels: {version: v2}}\n" + vs
	r, err := ParseRule(text)
	if err != nil {
		t.Fatal(err)
	}
	o := r.OutlierOf()
	if o == nil || o.Consecutive5xxErrors == nil || *o.Consecutive5xxErrors != 7 || *o.Interval != 5*time.Second ||
		*o.BaseEjectionTime != 15*time.Second || *o.MaxEjectionPercent != 50 || o.MinHealthPercent != nil {
		t.Fatalf("outlier = %+v", o)
	}
	var bad, unknown bool
	for _, f := range r.Findings {
		bad = bad || f.Code == FindOutlierValue && strings.Contains(f.Message, "minHealthPercent")
		unknown = unknown || f.Code == FindUnknownField && strings.Contains(f.Message, "outlierDetection.retries")
		if f.Code == FindUnknownField && strings.Contains(f.Message, "trafficPolicy.outlierDetection is not") {
			t.Fatalf("outlierDetection flagged unknown: %s", f.Message)
		}
	}
	if !bad || !unknown {
		t.Fatalf("findings %+v: want the bad minHealthPercent and the unknown retries", r.Findings)
	}
	// Not a mapping: no outlier, and the rule is in force as before.
	r, err = ParseRule("kind: DestinationRule\nmetadata: {name: r}\nspec:\n  trafficPolicy: {outlierDetection: [1, 2]}\n  subsets:\n    - {name: v2, labels: {version: v2}}\n" + vs)
	if err != nil || r.OutlierOf() != nil || len(r.DestinationRules) != 1 {
		t.Fatalf("outlierDetection as a list: %v, %+v", err, r)
	}
}
