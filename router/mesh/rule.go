package mesh

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// KeySuffix is the config-center key suffix of mesh rules:
// <provider-app>.MESHAPPRULE, group dubbo (Java's MeshRuleManager).
const KeySuffix = ".MESHAPPRULE"

// ErrIncomplete marks an update Java accepts but does not apply: its
// standard documents lack a VirtualService or a DestinationRule
// (VsDestinationGroup.isValid), so the rule already in force stays, silently.
var ErrIncomplete = errors.New("mesh rule needs at least one VirtualService and one DestinationRule; Java keeps the rule already in force")

// Rule is one <provider-app>.MESHAPPRULE value as Java's standard mesh
// router sees it: the VirtualService and DestinationRule documents whose
// metadata.name has no dot (rule type "standard"), in document order.
//
// A Rule with no document (Cleared) is what Java makes of a value without any
// standard document: it clears the application's mesh routing, like a delete.
type Rule struct {
	VirtualServices  []*VirtualService
	DestinationRules []*DestinationRule
	// Cleared says why the value clears the application's rule ("" when it
	// does not).
	Cleared string
	// Findings are Java-legal surprises (unknown fields, documents Java skips,
	// matchers that can never match), for lint and logs.
	Findings []Finding
}

// Empty reports whether the rule routes nothing (a clear).
func (r *Rule) Empty() bool { return r == nil || len(r.VirtualServices) == 0 }

// FindingCode is a stable code of a mesh rule finding.
type FindingCode string

// Finding codes.
const (
	FindUnknownField   FindingCode = "unknown-field"
	FindSkippedDoc     FindingCode = "skipped-document"
	FindOtherType      FindingCode = "other-rule-type"
	FindOtherKind      FindingCode = "other-kind"
	FindIntegerDouble  FindingCode = "integer-for-double"
	FindTracingContext FindingCode = "tracing-context"
	FindShortFallback  FindingCode = "short-fallback"
	FindBadRegex       FindingCode = "bad-regex"
	FindUndefinedSub   FindingCode = "undefined-subset"
	FindWeights        FindingCode = "weights"
	FindHeaders        FindingCode = "headers-ignored"
)

// Finding is one lint-level remark about a rule.
type Finding struct {
	Code     FindingCode
	Document int
	Line     int
	Message  string
}

// ParseRule parses a MESHAPPRULE value the way Java's MeshAppRuleListener
// and MeshRuleRouter.onRuleChange do (SnakeYAML loadAll with default limits,
// metadata.name → rule type, kind → DestinationRule / VirtualService bound
// with PojoUtils' rules). Errors reject the whole value (Java logs them and
// the rule in force stays): *YAMLError, *BindError, or an error wrapping
// ErrIncomplete for a value Java ignores without a log.
func ParseRule(content string) (*Rule, error) {
	docs, err := loadAll(content)
	if err != nil {
		return nil, err
	}
	r := &Rule{}
	var std []int
	types := map[string]bool{}
	for i, d := range docs {
		if d.kind != jMap {
			r.Findings = append(r.Findings, Finding{Code: FindSkippedDoc, Document: i, Line: d.line,
				Message: "the document is not a mapping: Java skips it"})
			continue
		}
		md := d.get("metadata")
		if md == nil || md.kind != jMap || len(md.keys) == 0 {
			r.Findings = append(r.Findings, Finding{Code: FindSkippedDoc, Document: i, Line: d.line,
				Message: "the document has no (non-empty) metadata mapping: Java skips it"})
			continue
		}
		name := md.get("name")
		if name == nil || name.kind == jNull {
			return nil, &BindError{Document: i, Line: md.line, Field: "metadata.name",
				Msg: "metadata without a name (Java's rule type computation throws; the rule in force stays)"}
		}
		if name.kind != jString {
			return nil, &BindError{Document: i, Line: name.line, Field: "metadata.name",
				Msg: fmt.Sprintf("%q is not a YAML string (Java's cast to String throws; the rule in force stays)", name.str)}
		}
		typ := "standard"
		if j := strings.IndexByte(name.str, '.'); j >= 0 {
			typ = name.str[j+1:]
			r.Findings = append(r.Findings, Finding{Code: FindOtherType, Document: i, Line: name.line,
				Message: fmt.Sprintf("metadata.name %q has a dot: Java files it under rule type %q, which no router reads; the standard router does not see this document", name.str, typ)})
		}
		types[typ] = true
		if typ == "standard" {
			std = append(std, i)
		}
	}
	if len(std) == 0 {
		switch {
		case len(types) > 0:
			r.Cleared = "no document of rule type standard (every metadata.name has a dot): Java clears the application's mesh rule"
		default:
			r.Cleared = "no document with metadata.name: Java clears the application's mesh rule"
		}
		return r, nil
	}
	var deferred error
	for _, i := range std {
		d := docs[i]
		b := &binder{doc: i}
		name := d.get("metadata").get("name").str
		kind := d.get("kind")
		switch {
		case kind != nil && kind.kind == jString && kind.str == "DestinationRule":
			dr, err := b.destinationRule(d, name)
			if err != nil {
				return nil, err
			}
			r.DestinationRules = append(r.DestinationRules, dr)
		case kind != nil && kind.kind == jString && kind.str == "VirtualService":
			vs, err := b.virtualService(d, name)
			if err != nil {
				return nil, err
			}
			r.VirtualServices = append(r.VirtualServices, vs)
		default:
			k := "no kind"
			if kind != nil {
				k = "kind " + kind.str
			}
			r.Findings = append(r.Findings, Finding{Code: FindOtherKind, Document: i, Line: d.line,
				Message: k + ": Java's mesh router reads only kind DestinationRule and kind VirtualService (case-sensitive); ignored"})
		}
		r.Findings = append(r.Findings, b.unknown...)
		if deferred == nil {
			deferred = b.deferred
		}
	}
	if len(r.VirtualServices) == 0 || len(r.DestinationRules) == 0 {
		missing := "VirtualService"
		if len(r.VirtualServices) > 0 {
			missing = "DestinationRule"
		}
		return nil, fmt.Errorf("mesh rule, document %d: no %s among the standard documents: %w", std[0], missing, ErrIncomplete)
	}
	if deferred != nil {
		return nil, deferred
	}
	r.lint()
	return r, nil
}

// lint adds findings that need the whole rule: destinations naming
// subsets no DestinationRule defines, weights that do not do what they say.
func (r *Rule) lint() {
	defined := map[string]bool{}
	for _, dr := range r.DestinationRules {
		for _, s := range dr.Spec.Subsets {
			if s.Name != nil {
				defined[*s.Name] = true
			}
		}
	}
	for _, vs := range r.VirtualServices {
		if vs.Spec == nil {
			r.Findings = append(r.Findings, Finding{Code: FindSkippedDoc, Document: vs.Doc, Line: vs.Line,
				Message: "a VirtualService without spec: Java throws a NullPointerException on every call (the call fails)"})
			continue
		}
		for _, dr := range vs.Spec.Dubbo {
			if dr == nil {
				continue
			}
			for _, d := range dr.RouteDetail {
				if d == nil {
					continue
				}
				var ws []int64
				unnamed := 0
				for _, rd := range d.Route {
					if rd == nil {
						continue
					}
					if rd.Weight > 0 {
						ws = append(ws, int64(rd.Weight))
					} else {
						ws = append(ws, 1)
						unnamed++
					}
					for dst := rd.Destination; dst != nil; {
						if dst.Subset == nil || !defined[*dst.Subset] {
							s := "(none)"
							if dst.Subset != nil {
								s = *dst.Subset
							}
							r.Findings = append(r.Findings, Finding{Code: FindUndefinedSub, Document: vs.Doc, Line: dst.Line,
								Message: fmt.Sprintf("subset %s is not defined by any DestinationRule of this key: it never has providers", s)})
						}
						if dst.Fallback == nil {
							break
						}
						dst = dst.Fallback.Destination
					}
				}
				if len(ws) > 1 {
					msg := weightsMessage(ws, unnamed)
					r.Findings = append(r.Findings, Finding{Code: FindWeights, Document: vs.Doc, Line: d.Line, Message: msg})
				}
			}
		}
	}
}

// weightsMessage explains Java's weighted draw over a route list with
// effective weights ws (max(weight, 1); unnamed of them had no positive
// weight): randomSelectDestination draws r in [0, W) and takes the first
// destination with r <= its cumulative weight, so the first gets one draw
// value more than its weight and the last one fewer.
func weightsMessage(ws []int64, unnamed int) string {
	var total int64
	for _, w := range ws {
		total += w
	}
	var b strings.Builder
	if unnamed > 0 {
		fmt.Fprintf(&b, "%d of %d destinations have no positive weight: Java counts each as 1. ", unnamed, len(ws))
	}
	if total > math.MaxInt32 {
		fmt.Fprintf(&b, "The weights sum to %d, beyond Java's int: the sum wraps and the draw is not what the weights say", total)
		return b.String()
	}
	counts, _, shares := router.JavaDrawShares(ws)
	fmt.Fprintf(&b, "Java draws r in [0, %d) and takes the first destination with r <= its cumulative weight: here %s", total, shares)
	switch {
	case counts[0] == total:
		b.WriteString("; Java always picks the first and never draws the last (reached only as a fallback when the first has no providers)")
	case counts[len(counts)-1] == 0:
		b.WriteString("; the last destination is never drawn (only reached as a fallback when the drawn one has no providers)")
	}
	return b.String()
}
