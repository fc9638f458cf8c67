package mesh

import (
	"fmt"

	"github.com/dubboroute/dubboroute/cluster/outlier"
	"github.com/dubboroute/dubboroute/router"
)

// The rule model mirrors Java's mesh rule classes field by field. A nil
// pointer (or nil slice) is a Java null; the binder keeps nulls where Java's
// PojoUtils.mapToPojo leaves them, because Java's matching treats a null
// field, a null list element and a missing field differently.

// StringMatch is Java's StringMatch (router.StringMatch: the first
// applicable field decides; a regex RE2 cannot compile throws when it is
// evaluated), with the rule line it came from.
type StringMatch struct {
	router.StringMatch
	Line int
}

// DoubleMatch is Java's DoubleMatch.
type DoubleMatch struct {
	Exact, Mod *float64
	Range      *DoubleRangeMatch
}

// DoubleRangeMatch is Java's DoubleRangeMatch: [start, end).
type DoubleRangeMatch struct{ Start, End *float64 }

// BoolMatch is Java's BoolMatch.
type BoolMatch struct{ Exact *bool }

// ListStringMatch is Java's ListStringMatch; a nil Oneof throws when used.
type ListStringMatch struct{ Oneof []*StringMatch }

// ListDoubleMatch is Java's ListDoubleMatch; a nil Oneof throws when used.
type ListDoubleMatch struct{ Oneof []*DoubleMatch }

// MethodArg is Java's DubboMethodArg.
type MethodArg struct {
	Index     int32
	StrValue  *ListStringMatch
	NumValue  *ListDoubleMatch
	BoolValue *BoolMatch
}

// MethodMatch is Java's DubboMethodMatch (YAML keys name_match, argc, args, argp).
type MethodMatch struct {
	NameMatch *StringMatch
	Argc      *int32
	Args      []*MethodArg
	Argp      []*StringMatch
}

// KV is one entry of a Java Map<String,String>; a nil Value throws when used.
type KV struct {
	Key   string
	Value *string
}

// KM is one entry of a Java Map<String,StringMatch>; a nil Match throws when used.
type KM struct {
	Key   string
	Match *StringMatch
}

// AttachmentMatch is Java's DubboAttachmentMatch (dubboContext, tracingContext).
type AttachmentMatch struct {
	DubboContext   []KM // nil: absent
	dubboSet       bool
	TracingContext []KM
	tracingSet     bool
}

// MatchRequest is Java's DubboMatchRequest.
type MatchRequest struct {
	Method       *MethodMatch
	SourceLabels []KV
	sourceSet    bool
	Attachments  *AttachmentMatch
	Line         int
}

// RouteDestination is Java's DubboRouteDestination.
type RouteDestination struct {
	Weight      int32
	Destination *Destination
	Line        int
}

// Destination is Java's DubboDestination.
type Destination struct {
	Host     *string
	Subset   *string
	Fallback *RouteDestination
	Line     int
}

// RouteDetail is Java's DubboRouteDetail.
type RouteDetail struct {
	Name  *string
	Match []*MatchRequest
	Route []*RouteDestination // nil: no route key (the app contributes nothing)
	Line  int
}

// DubboRoute is Java's DubboRoute.
type DubboRoute struct {
	Name        *string
	Services    []*StringMatch
	RouteDetail []*RouteDetail
	Line        int
}

// VirtualService is one kind: VirtualService document.
type VirtualService struct {
	Name  string // metadata.name
	Doc   int
	Line  int
	Hosts []*string
	Spec  *VirtualServiceSpec
}

// VirtualServiceSpec is Java's VirtualServiceSpec.
type VirtualServiceSpec struct {
	Dubbo []*DubboRoute
}

// DestinationRule is one kind: DestinationRule document.
type DestinationRule struct {
	Name string
	Doc  int
	Line int
	Host *string
	Spec *DestinationRuleSpec
	// Outlier is Istio's spec.trafficPolicy.outlierDetection, which Java's
	// model has no field for (Java ignores it) and dubboroute reads for
	// outlier ejection (nil: absent or not a mapping).
	Outlier *outlier.Istio
}

// DestinationRuleSpec is Java's DestinationRuleSpec.
type DestinationRuleSpec struct {
	Subsets []*Subset
}

// Subset is Java's Subset: providers whose parameters equal every label.
type Subset struct {
	Name   *string
	Labels []KV
	Line   int
}

// BindError is a document Java's PojoUtils.mapToPojo throws on: the whole
// update is rejected and the rules in force stay.
type BindError struct {
	Document int
	Line     int
	Field    string
	Msg      string
}

func (e *BindError) Error() string {
	return fmt.Sprintf("mesh rule, document %d, line %d: %s: %s", e.Document, e.Line, e.Field, e.Msg)
}

// binder converts one document into the model, recording unknown fields.
type binder struct {
	doc     int
	unknown []Finding
	// deferred is a failure of Java's subset computation (MeshRuleCache.build),
	// which runs only after the group is found valid.
	deferred error
}

func (b *binder) fail(v *jval, field, format string, a ...any) error {
	line := 0
	if v != nil {
		line = v.line
	}
	return &BindError{Document: b.doc, Line: line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// fields checks a mapping's keys against a Java class's fields.
func (b *binder) fields(m *jval, path string, known ...string) {
	for _, k := range m.keys {
		if k.kind != jString {
			continue
		}
		ok := false
		for _, n := range known {
			if k.str == n {
				ok = true
				break
			}
		}
		if !ok {
			b.unknown = append(b.unknown, Finding{Code: FindUnknownField, Document: b.doc, Line: k.line,
				Message: fmt.Sprintf("%s%s is not a field of Java's model: ignored%s", path, k.str, hint(k.str))})
		}
	}
}

func hint(name string) string {
	switch name {
	case "routeDetail", "route_detail", "routeDetails":
		return " (Java's key is routedetail)"
	case "nameMatch", "name-match":
		return " (Java's key is name_match)"
	case "strValue", "numValue", "boolValue":
		return " (Java's keys are str_value, num_value, bool_value)"
	case "dubbocontext", "eagleeyecontext", "dubbo_context":
		return " (Java's keys are dubboContext and tracingContext)"
	case "source_labels", "sourcelabels":
		return " (Java's key is sourceLabels)"
	case "oneOf", "one_of":
		return " (Java's key is oneof)"
	}
	return ""
}

// str binds a String field.
func (b *binder) str(v *jval, field string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	switch {
	case v.kind == jNull:
		return nil, nil
	case v.kind == jString || v.canBeString():
		s := v.str
		return &s, nil
	case v.kind == jMap:
		return nil, b.fail(v, field, "a mapping where Java expects a String (PojoUtils throws)")
	}
	return nil, nil // not convertible: Java leaves null
}

// primInt binds a primitive int field: only a YAML integer that fits an int.
func (b *binder) primInt(v *jval, field string) (int32, error) {
	if v == nil || v.kind == jNull {
		return 0, nil
	}
	if v.kind == jInt {
		return int32(v.i), nil
	}
	return 0, b.fail(v, field, "%q is not a 32-bit YAML integer (Java's int field rejects it)", v.str)
}

func (b *binder) boxedInt(v *jval, field string) (*int32, error) {
	if v == nil || v.kind == jNull {
		return nil, nil
	}
	switch v.kind {
	case jInt:
		i := int32(v.i)
		return &i, nil
	case jMap:
		return nil, b.fail(v, field, "a mapping where Java expects an Integer (PojoUtils throws)")
	}
	return nil, nil
}

func (b *binder) boxedDouble(v *jval, field string) (*float64, error) {
	if v == nil || v.kind == jNull {
		return nil, nil
	}
	switch v.kind {
	case jDouble:
		f := v.f
		return &f, nil
	case jMap:
		return nil, b.fail(v, field, "a mapping where Java expects a Double (PojoUtils throws)")
	}
	return nil, nil // an integer is not a Double: Java leaves the field null
}

func (b *binder) boxedBool(v *jval, field string) (*bool, error) {
	if v == nil || v.kind == jNull {
		return nil, nil
	}
	switch v.kind {
	case jBool:
		x := v.b
		return &x, nil
	case jMap:
		return nil, b.fail(v, field, "a mapping where Java expects a Boolean (PojoUtils throws)")
	}
	return nil, nil
}

// list binds a List field: each element with elem; a null element throws.
func list[T any](b *binder, v *jval, field string, elem func(*jval, string) (*T, error)) ([]*T, error) {
	if v == nil || v.kind != jList {
		return nil, nil
	}
	out := make([]*T, 0, len(v.vals))
	for i, e := range v.vals {
		f := fmt.Sprintf("%s[%d]", field, i)
		if e.kind == jNull {
			return nil, b.fail(e, f, "a null list element (PojoUtils throws)")
		}
		x, err := elem(e, f)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// mapKey converts a map key as PojoUtils converts it to String.
func (b *binder) mapKey(k *jval, field string) (string, error) {
	switch {
	case k.kind == jString || k.canBeString():
		return k.str, nil
	case k.kind == jNull:
		return "", b.fail(k, field, "a null map key (PojoUtils throws)")
	}
	return "", b.fail(k, field, "a map key that is not a scalar")
}

func (b *binder) strMap(v *jval, field string) ([]KV, bool, error) {
	var out []KV
	ok, err := b.eachEntry(v, field, func(key string, val *jval, f string) error {
		s, err := b.str(val, f)
		if err == nil {
			out = append(out, KV{Key: key, Value: s})
		}
		return err
	})
	return out, ok, err
}

func (b *binder) matchMap(v *jval, field string) ([]KM, bool, error) {
	var out []KM
	ok, err := b.eachEntry(v, field, func(key string, val *jval, f string) error {
		m, err := b.stringMatch(val, f)
		if err == nil {
			out = append(out, KM{Key: key, Match: m})
		}
		return err
	})
	return out, ok, err
}

// eachEntry binds every entry of a map node in order with bind (its field
// path is field.key); false when v is not a map. A null value fails, as
// PojoUtils throws on it.
func (b *binder) eachEntry(v *jval, field string, bind func(key string, val *jval, field string) error) (bool, error) {
	if v == nil || v.kind != jMap {
		return false, nil
	}
	for i, k := range v.keys {
		key, err := b.mapKey(k, field)
		if err != nil {
			return false, err
		}
		val := v.vals[i]
		if val.kind == jNull {
			return false, b.fail(val, field+"."+key, "a null value (PojoUtils throws)")
		}
		if err := bind(key, val, field+"."+key); err != nil {
			return false, err
		}
	}
	return true, nil
}

func (b *binder) stringMatch(v *jval, field string) (*StringMatch, error) {
	if v == nil || v.kind != jMap {
		return nil, nil
	}
	b.fields(v, field+".", "exact", "prefix", "regex", "noempty", "empty", "wildcard")
	m := &StringMatch{Line: v.line}
	var err error
	for _, f := range []struct {
		name string
		dst  **string
	}{{"exact", &m.Exact}, {"prefix", &m.Prefix}, {"regex", &m.Regex}, {"noempty", &m.Noempty}, {"empty", &m.Empty}, {"wildcard", &m.Wildcard}} {
		if *f.dst, err = b.str(v.get(f.name), field+"."+f.name); err != nil {
			return nil, err
		}
	}
	if m.Regex != nil {
		if m.CompileRegex() != nil {
			b.unknown = append(b.unknown, Finding{Code: FindBadRegex, Document: b.doc, Line: v.line,
				Message: fmt.Sprintf("%s.regex %q does not compile: Java throws PatternSyntaxException on every call that reaches it (the call fails)", field, *m.Regex)})
		}
	}
	return m, nil
}

func (b *binder) doubleMatch(v *jval, field string) (*DoubleMatch, error) {
	if v == nil || v.kind != jMap {
		return nil, nil
	}
	b.fields(v, field+".", "exact", "range", "mod")
	m := &DoubleMatch{}
	var err error
	if m.Exact, err = b.boxedDouble(v.get("exact"), field+".exact"); err != nil {
		return nil, err
	}
	if m.Mod, err = b.boxedDouble(v.get("mod"), field+".mod"); err != nil {
		return nil, err
	}
	for _, k := range []string{"exact", "mod"} {
		if x := v.get(k); x != nil && (x.kind == jInt || x.kind == jLong || x.kind == jBig) {
			b.unknown = append(b.unknown, Finding{Code: FindIntegerDouble, Document: b.doc, Line: x.line,
				Message: fmt.Sprintf("%s.%s: %s is a YAML integer; Java's Double field ignores it (write %s.0)", field, k, x.str, x.str)})
		}
	}
	if r := v.get("range"); r != nil && r.kind == jMap {
		b.fields(r, field+".range.", "start", "end")
		m.Range = &DoubleRangeMatch{}
		if m.Range.Start, err = b.boxedDouble(r.get("start"), field+".range.start"); err != nil {
			return nil, err
		}
		if m.Range.End, err = b.boxedDouble(r.get("end"), field+".range.end"); err != nil {
			return nil, err
		}
		for _, k := range []string{"start", "end"} {
			if x := r.get(k); x != nil && (x.kind == jInt || x.kind == jLong || x.kind == jBig) {
				b.unknown = append(b.unknown, Finding{Code: FindIntegerDouble, Document: b.doc, Line: x.line,
					Message: fmt.Sprintf("%s.range.%s: %s is a YAML integer; Java's Double field ignores it (write %s.0)", field, k, x.str, x.str)})
			}
		}
	}
	return m, nil
}

func (b *binder) methodArg(v *jval, field string) (*MethodArg, error) {
	if v.kind != jMap {
		return nil, nil
	}
	b.fields(v, field+".", "index", "type", "str_value", "num_value", "bool_value")
	a := &MethodArg{}
	var err error
	if a.Index, err = b.primInt(v.get("index"), field+".index"); err != nil {
		return nil, err
	}
	if _, err = b.str(v.get("type"), field+".type"); err != nil {
		return nil, err
	}
	if s := v.get("str_value"); s != nil && s.kind == jMap {
		b.fields(s, field+".str_value.", "oneof")
		a.StrValue = &ListStringMatch{}
		if a.StrValue.Oneof, err = list(b, s.get("oneof"), field+".str_value.oneof", b.stringMatch); err != nil {
			return nil, err
		}
	}
	if s := v.get("num_value"); s != nil && s.kind == jMap {
		b.fields(s, field+".num_value.", "oneof")
		a.NumValue = &ListDoubleMatch{}
		if a.NumValue.Oneof, err = list(b, s.get("oneof"), field+".num_value.oneof", b.doubleMatch); err != nil {
			return nil, err
		}
	}
	if s := v.get("bool_value"); s != nil && s.kind == jMap {
		b.fields(s, field+".bool_value.", "exact")
		a.BoolValue = &BoolMatch{}
		if a.BoolValue.Exact, err = b.boxedBool(s.get("exact"), field+".bool_value.exact"); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (b *binder) matchRequest(v *jval, field string) (*MatchRequest, error) {
	if v.kind != jMap {
		return nil, nil
	}
	b.fields(v, field+".", "name", "method", "sourceLabels", "attachments", "headers")
	r := &MatchRequest{Line: v.line}
	var err error
	if _, err = b.str(v.get("name"), field+".name"); err != nil {
		return nil, err
	}
	if _, _, err = b.matchMap(v.get("headers"), field+".headers"); err != nil {
		return nil, err
	}
	if m := v.get("method"); m != nil && m.kind == jMap {
		b.fields(m, field+".method.", "name_match", "argc", "args", "argp", "headers")
		mm := &MethodMatch{}
		if mm.NameMatch, err = b.stringMatch(m.get("name_match"), field+".method.name_match"); err != nil {
			return nil, err
		}
		if mm.Argc, err = b.boxedInt(m.get("argc"), field+".method.argc"); err != nil {
			return nil, err
		}
		if mm.Args, err = list(b, m.get("args"), field+".method.args", b.methodArg); err != nil {
			return nil, err
		}
		if mm.Argp, err = list(b, m.get("argp"), field+".method.argp", b.stringMatch); err != nil {
			return nil, err
		}
		if _, _, err = b.matchMap(m.get("headers"), field+".method.headers"); err != nil {
			return nil, err
		}
		r.Method = mm
	}
	if r.SourceLabels, r.sourceSet, err = b.strMap(v.get("sourceLabels"), field+".sourceLabels"); err != nil {
		return nil, err
	}
	if a := v.get("attachments"); a != nil && a.kind == jMap {
		b.fields(a, field+".attachments.", "dubboContext", "tracingContext")
		am := &AttachmentMatch{}
		if am.DubboContext, am.dubboSet, err = b.matchMap(a.get("dubboContext"), field+".attachments.dubboContext"); err != nil {
			return nil, err
		}
		if am.TracingContext, am.tracingSet, err = b.matchMap(a.get("tracingContext"), field+".attachments.tracingContext"); err != nil {
			return nil, err
		}
		if am.tracingSet && len(am.TracingContext) > 0 {
			b.unknown = append(b.unknown, Finding{Code: FindTracingContext, Document: b.doc, Line: a.line,
				Message: field + ".attachments.tracingContext: Java Dubbo 3.3.6 ships no TracingContextProvider, so this match request never matches"})
		}
		r.Attachments = am
	}
	return r, nil
}

func (b *binder) routeDestination(v *jval, field string, depth int) (*RouteDestination, error) {
	if v == nil || v.kind != jMap {
		return nil, nil
	}
	if depth > maxFallbackChain {
		return nil, b.fail(v, field, "fallbacks nested deeper than %d", maxFallbackChain)
	}
	b.fields(v, field+".", "destination", "weight")
	d := &RouteDestination{Line: v.line}
	var err error
	if d.Weight, err = b.primInt(v.get("weight"), field+".weight"); err != nil {
		return nil, err
	}
	if dv := v.get("destination"); dv != nil && dv.kind == jMap {
		b.fields(dv, field+".destination.", "host", "subset", "port", "fallback")
		dd := &Destination{Line: dv.line}
		if dd.Host, err = b.str(dv.get("host"), field+".destination.host"); err != nil {
			return nil, err
		}
		if dd.Subset, err = b.str(dv.get("subset"), field+".destination.subset"); err != nil {
			return nil, err
		}
		if _, err = b.primInt(dv.get("port"), field+".destination.port"); err != nil {
			return nil, err
		}
		if fb := dv.get("fallback"); fb != nil && fb.kind == jMap {
			if fb.get("destination") == nil && (fb.get("subset") != nil || fb.get("host") != nil) {
				b.unknown = append(b.unknown, Finding{Code: FindShortFallback, Document: b.doc, Line: fb.line,
					Message: field + ".destination.fallback has subset/host directly: Java ignores this form; write fallback: {destination: {subset: ...}}"})
			}
			if dd.Fallback, err = b.routeDestination(fb, field+".destination.fallback", depth+1); err != nil {
				return nil, err
			}
		}
		d.Destination = dd
	}
	return d, nil
}

func (b *binder) routeDetail(v *jval, field string) (*RouteDetail, error) {
	if v.kind != jMap {
		return nil, nil
	}
	b.fields(v, field+".", "name", "match", "route")
	d := &RouteDetail{Line: v.line}
	var err error
	if d.Name, err = b.str(v.get("name"), field+".name"); err != nil {
		return nil, err
	}
	if d.Match, err = list(b, v.get("match"), field+".match", b.matchRequest); err != nil {
		return nil, err
	}
	if d.Route, err = list(b, v.get("route"), field+".route", func(x *jval, f string) (*RouteDestination, error) {
		return b.routeDestination(x, f, 0)
	}); err != nil {
		return nil, err
	}
	return d, nil
}

func (b *binder) dubboRoute(v *jval, field string) (*DubboRoute, error) {
	if v.kind != jMap {
		return nil, nil
	}
	b.fields(v, field+".", "name", "services", "routedetail")
	r := &DubboRoute{Line: v.line}
	var err error
	if r.Name, err = b.str(v.get("name"), field+".name"); err != nil {
		return nil, err
	}
	if r.Services, err = list(b, v.get("services"), field+".services", b.stringMatch); err != nil {
		return nil, err
	}
	if r.RouteDetail, err = list(b, v.get("routedetail"), field+".routedetail", b.routeDetail); err != nil {
		return nil, err
	}
	return r, nil
}

// base binds BaseRule's fields (apiVersion, kind, metadata).
func (b *binder) base(doc *jval) error {
	if _, err := b.str(doc.get("apiVersion"), "apiVersion"); err != nil {
		return err
	}
	if _, err := b.str(doc.get("kind"), "kind"); err != nil {
		return err
	}
	_, _, err := b.strMap(doc.get("metadata"), "metadata")
	return err
}

func (b *binder) virtualService(doc *jval, name string) (*VirtualService, error) {
	b.fields(doc, "", "apiVersion", "kind", "metadata", "spec")
	if err := b.base(doc); err != nil {
		return nil, err
	}
	vs := &VirtualService{Name: name, Doc: b.doc, Line: doc.line}
	if s := doc.get("spec"); s != nil && s.kind == jMap {
		b.fields(s, "spec.", "hosts", "dubbo")
		var err error
		if vs.Hosts, err = list(b, s.get("hosts"), "spec.hosts", b.str); err != nil {
			return nil, err
		}
		vs.Spec = &VirtualServiceSpec{}
		if vs.Spec.Dubbo, err = list(b, s.get("dubbo"), "spec.dubbo", b.dubboRoute); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

func (b *binder) destinationRule(doc *jval, name string) (*DestinationRule, error) {
	b.fields(doc, "", "apiVersion", "kind", "metadata", "spec")
	if err := b.base(doc); err != nil {
		return nil, err
	}
	dr := &DestinationRule{Name: name, Doc: b.doc, Line: doc.line}
	s := doc.get("spec")
	if s == nil || s.kind != jMap {
		b.deferred = b.fail(doc, "spec", "a DestinationRule without spec (Java's subset computation throws a NullPointerException)")
		return dr, nil
	}
	b.fields(s, "spec.", "host", "subsets", "trafficPolicy")
	var err error
	if dr.Host, err = b.str(s.get("host"), "spec.host"); err != nil {
		return nil, err
	}
	if err := b.trafficPolicy(s.get("trafficPolicy"), dr); err != nil {
		return nil, err
	}
	dr.Spec = &DestinationRuleSpec{}
	subs, err := list(b, s.get("subsets"), "spec.subsets", func(v *jval, f string) (*Subset, error) {
		if v.kind != jMap {
			return nil, nil
		}
		b.fields(v, f+".", "name", "labels")
		sub := &Subset{Line: v.line}
		var err error
		if sub.Name, err = b.str(v.get("name"), f+".name"); err != nil {
			return nil, err
		}
		var set bool
		if sub.Labels, set, err = b.strMap(v.get("labels"), f+".labels"); err != nil {
			return nil, err
		}
		_ = set
		for _, kv := range sub.Labels {
			if kv.Value == nil && b.deferred == nil {
				b.deferred = b.fail(v, f+".labels."+kv.Key, "a label value that is not a scalar (Java's subset computation throws)")
			}
		}
		return sub, nil
	})
	if err != nil {
		return nil, err
	}
	if subs == nil && b.deferred == nil {
		b.deferred = b.fail(s, "spec.subsets", "a DestinationRule without a subsets list (Java's subset computation throws a NullPointerException)")
	}
	for i, sub := range subs {
		if sub == nil && b.deferred == nil {
			b.deferred = b.fail(s, fmt.Sprintf("spec.subsets[%d]", i), "a subset that is not a mapping (Java's subset computation throws a NullPointerException)")
		}
	}
	dr.Spec.Subsets = subs
	return dr, nil
}

func (b *binder) trafficPolicy(v *jval, dr *DestinationRule) error {
	if v == nil || v.kind != jMap {
		return nil
	}
	b.fields(v, "spec.trafficPolicy.", "loadBalancer", "outlierDetection")
	dr.Outlier = b.outlierDetection(v.get("outlierDetection"))
	lb := v.get("loadBalancer")
	if lb == nil || lb.kind != jMap {
		return nil
	}
	b.fields(lb, "spec.trafficPolicy.loadBalancer.", "simple", "consistentHash")
	if s := lb.get("simple"); s != nil && s.kind == jMap {
		return b.fail(s, "spec.trafficPolicy.loadBalancer.simple", "a mapping where Java expects an enum (PojoUtils throws)")
	}
	return nil
}
