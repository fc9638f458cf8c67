package mesh

import (
	"fmt"
	"time"

	"github.com/dubboroute/dubboroute/cluster/outlier"
)

// FindOutlierValue is a field of trafficPolicy.outlierDetection whose value
// dubboroute cannot read: the field is ignored (Java ignores the whole
// message, so the rule stays in force either way).
const FindOutlierValue FindingCode = "outlier-value"

// outlierFields are the Istio OutlierDetection fields dubboroute reads.
var outlierFields = []string{"consecutive5xxErrors", "consecutiveGatewayErrors", "consecutiveLocalOriginFailures",
	"splitExternalLocalOriginErrors", "interval", "baseEjectionTime", "maxEjectionPercent", "minHealthPercent"}

// outlierDetection reads Istio's OutlierDetection (dubboroute's extension
// of the DestinationRule; Java's PojoUtils never looks at the key). It
// never rejects the rule: a value it cannot read is a finding and the field
// is left out. nil when v is not a mapping.
func (b *binder) outlierDetection(v *jval) *outlier.Istio {
	if v == nil || v.kind != jMap {
		return nil
	}
	const path = "spec.trafficPolicy.outlierDetection."
	b.fields(v, path, outlierFields...)
	o := &outlier.Istio{}
	bad := func(k *jval, key, want string) {
		b.unknown = append(b.unknown, Finding{Code: FindOutlierValue, Document: b.doc, Line: k.line,
			Message: fmt.Sprintf("%s%s: want %s; dubboroute ignores the field (Java ignores outlierDetection)", path, key, want)})
	}
	intOf := func(key string) *int {
		x := v.get(key)
		if x == nil {
			return nil
		}
		if x.kind != jInt || x.i < 0 || x.i > 1<<31-1 {
			bad(x, key, "a non-negative integer")
			return nil
		}
		n := int(x.i)
		return &n
	}
	durOf := func(key string) *time.Duration {
		x := v.get(key)
		if x == nil {
			return nil
		}
		d, err := time.ParseDuration(x.str)
		if x.kind != jString || err != nil || d <= 0 {
			bad(x, key, "a positive duration such as 10s or 1m")
			return nil
		}
		return &d
	}
	o.Consecutive5xxErrors = intOf("consecutive5xxErrors")
	o.ConsecutiveGatewayErrors = intOf("consecutiveGatewayErrors")
	o.ConsecutiveLocalOriginFailures = intOf("consecutiveLocalOriginFailures")
	if x := v.get("splitExternalLocalOriginErrors"); x != nil {
		if x.kind == jBool {
			o.SplitExternalLocalOriginErrors = x.b
		} else {
			bad(x, "splitExternalLocalOriginErrors", "true or false")
		}
	}
	o.Interval = durOf("interval")
	o.BaseEjectionTime = durOf("baseEjectionTime")
	o.MaxEjectionPercent = intOf("maxEjectionPercent")
	o.MinHealthPercent = intOf("minHealthPercent")
	return o
}

// OutlierOf is the outlier detection a rule's DestinationRules carry: the
// first DestinationRule, in document order, with
// trafficPolicy.outlierDetection (nil: none).
func (r *Rule) OutlierOf() *outlier.Istio {
	if r == nil {
		return nil
	}
	for _, dr := range r.DestinationRules {
		if dr != nil && dr.Outlier != nil {
			return dr.Outlier
		}
	}
	return nil
}
