package cli

import (
	"errors"
	"fmt"

	"github.com/dubboroute/dubboroute/cluster/outlier"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/rules"
)

// meshCodes maps router/mesh finding codes to CLI codes.
var meshCodes = map[mesh.FindingCode]string{
	mesh.FindUnknownField:   "DR401",
	mesh.FindSkippedDoc:     "DR402",
	mesh.FindOtherType:      "DR403",
	mesh.FindOtherKind:      "DR404",
	mesh.FindIntegerDouble:  "DR405",
	mesh.FindTracingContext: "DR406",
	mesh.FindShortFallback:  "DR407",
	mesh.FindBadRegex:       "DR408",
	mesh.FindUndefinedSub:   "DR409",
	mesh.FindWeights:        "DR410",
	mesh.FindOutlierValue:   "DR414",
}

func meshLine(err error) int {
	var ye *mesh.YAMLError
	var be *mesh.BindError
	switch {
	case errors.As(err, &ye):
		return ye.Line
	case errors.As(err, &be):
		return be.Line
	}
	return lineOf(err)
}

// mesh lints a <provider-app>.MESHAPPRULE value.
func (l *linter) mesh(k rules.Key, content string) {
	r, err := mesh.ParseRule(content)
	switch {
	case errors.Is(err, mesh.ErrIncomplete):
		l.add("DR009", 0, -1, "%v", err)
		return
	case err != nil:
		l.add("DR008", meshLine(err), -1, "%v", err)
		return
	}
	for _, f := range r.Findings {
		code, ok := meshCodes[f.Code]
		if !ok {
			code = "DR401"
		}
		l.add(code, f.Line, -1, "document %d: %s", f.Document, f.Message)
	}
	if r.Empty() {
		l.add("DR412", 0, -1, "%s", r.Cleared)
		l.res.Summary = "mesh rule that clears the application's mesh routing"
		return
	}
	l.res.Summary = fmt.Sprintf("mesh rule for application %s: %d VirtualService(s), %d DestinationRule(s)", k.Prefix, len(r.VirtualServices), len(r.DestinationRules))
	for _, dr := range r.DestinationRules {
		if dr.Host != nil && *dr.Host != k.Prefix {
			l.add("DR411", dr.Line, -1, "document %d: DestinationRule host %q is not the key's application %q", dr.Doc, *dr.Host, k.Prefix)
		}
	}
	for _, vs := range r.VirtualServices {
		for _, h := range vs.Hosts {
			if h != nil && *h != k.Prefix {
				l.add("DR411", vs.Line, -1, "document %d: VirtualService host %q is not the key's application %q", vs.Doc, *h, k.Prefix)
			}
		}
	}
	if l.opts.providers == nil {
		return
	}
	// Subsets against the given providers (only the application's count).
	consumer := l.opts.consumer
	if consumer == nil {
		consumer = &router.URL{}
	}
	var mine []*router.URL
	for _, p := range l.opts.providers {
		if p.u != nil && p.u.Application() == k.Prefix {
			mine = append(mine, p.u)
		}
	}
	if len(mine) == 0 {
		l.add("DR411", 0, -1, "no provider of application %q in the provider list: no consumer of these providers reads this key", k.Prefix)
		return
	}
	if o := r.OutlierOf(); o != nil {
		cfg := outlier.New(outlier.FromIstio(*o)).Config()
		if cfg.Enabled() && 100 > cfg.MaxEjectionPercent*len(mine) {
			l.add("DR415", 0, -1, "outlierDetection: with maxEjectionPercent %d and %d provider(s) of %s, no provider can be ejected (100 × 1 / %d > %d)",
				cfg.MaxEjectionPercent, len(mine), k.Prefix, len(mine), cfg.MaxEjectionPercent)
		}
	}
	for _, dr := range r.DestinationRules {
		for _, s := range dr.Spec.Subsets {
			n := 0
			for _, u := range mine {
				ok := true
				for _, kv := range s.Labels {
					if v, present := mesh.LabelValue(consumer, u, kv.Key); !present || v != *kv.Value {
						ok = false
						break
					}
				}
				if ok {
					n++
				}
			}
			if n == 0 {
				name := "<none>"
				if s.Name != nil {
					name = *s.Name
				}
				l.add("DR413", s.Line, -1, "document %d: subset %s matches none of the %d providers of %s", dr.Doc, name, len(mine), k.Prefix)
			}
		}
	}
}
