package router

import (
	"fmt"
	"strings"
)

// Branch is a stable reason code saying what a router (or one condition of
// it) did with a call. Codes are part of the CLI's JSON output.
type Branch string

// Branches of condition routing (one condition, Java's ConditionStateRouter).
const (
	BranchDisabled      Branch = "disabled"       // rule enabled=false: input passed through
	BranchNotApplicable Branch = "not-applicable" // when-part did not match the call
	BranchMatched       Branch = "matched"        // then-part kept a non-empty subset
	BranchBlacklist     Branch = "blacklist"      // then-part empty/false (or v3.1 empty to): no provider
	BranchForceEmpty    Branch = "force-empty"    // then-part matched nobody and force=true
	BranchFallback      Branch = "fallback"       // then-part matched nobody, force=false: input kept
	BranchWeighted      Branch = "weighted-pick"  // v3.1: one destination drawn by weight
	BranchEmptyInput    Branch = "empty-input"    // nothing to route
	BranchNoRule        Branch = "no-rule"        // router has no rule in force
)

// Branches of tag routing (Java's TagStateRouter).
const (
	BranchStatic            Branch = "static"              // static dubbo.tag routing, tag hit
	BranchStaticFallback    Branch = "static-fallback"     // static: tag missed, untagged providers
	BranchStaticForcedEmpty Branch = "static-forced-empty" // static: tag missed and dubbo.force.tag=true
	BranchDynamicHit        Branch = "dynamic-hit"         // dynamic rule: addresses of the tag present
	BranchDynamicForceEmpty Branch = "dynamic-force-empty" // dynamic rule: tag's addresses absent, rule force=true
	BranchStaticInDynamic   Branch = "static-tag-hit"      // dynamic rule without the tag: static tag hit
	BranchFallbackUntagged  Branch = "fallback-untagged"   // dynamic rule: no hit, untagged unclaimed providers
	BranchForcedEmpty       Branch = "forced-empty"        // dynamic rule: no hit and dubbo.force.tag=true
	BranchTagless           Branch = "tagless"             // request without tag: untagged unclaimed providers
)

// Branches of the mock router and of the gray balancer.
const (
	BranchMockOnly Branch = "mock-only"
	BranchNoMock   Branch = "no-mock"
	BranchGray     Branch = "gray"          // gray request, gray pool
	BranchNormal   Branch = "normal"        // normal request, normal pool
	BranchGrayFall Branch = "gray-fallback" // gray request, empty gray pool, normal pool used
	BranchGrayFail Branch = "gray-fail"     // gray request, empty gray pool, fallback: fail
)

// ConditionStep is what one condition of a condition rule did.
type ConditionStep struct {
	Index       int    `json:"index"`
	Text        string `json:"condition"`
	WhenMatched bool   `json:"when_matched"`
	In          int    `json:"in"`
	ThenKept    int    `json:"then_kept"`
	Out         int    `json:"out"`
	Branch      Branch `json:"branch"`
	// Destination is the chosen v3.1 destination index (-1 otherwise); for
	// a mesh draw, the index of the drawn route destination.
	Destination int `json:"destination,omitempty"`
	// Weights are the effective weights of the candidates of a weighted
	// draw (BranchWeighted), in draw order: the v3.1 destinations whose
	// subset keeps a provider, or every destination of a mesh route (each
	// max(weight, 1)). Filled only when tracing.
	Weights []int64 `json:"weights,omitempty"`
	// Candidate is the position in Weights of the drawn candidate.
	Candidate int `json:"candidate,omitempty"`
}

// Step is what one router of the chain did with a call.
type Step struct {
	Router     string          `json:"router"`
	Key        string          `json:"key,omitempty"`
	Version    string          `json:"version,omitempty"`
	In         int             `json:"in"`
	Out        int             `json:"out"`
	Branch     Branch          `json:"branch"`
	Detail     string          `json:"detail,omitempty"`
	Conditions []ConditionStep `json:"conditions,omitempty"`
}

// Trace records a routing decision router by router. A nil *Trace records
// nothing and costs nothing, which is how the hot path runs.
type Trace struct {
	Steps []Step `json:"steps"`
}

// Enabled reports whether t records.
func (t *Trace) Enabled() bool { return t != nil }

// Add appends a step and returns a pointer to it for the router to fill in.
// It returns nil when t is nil.
func (t *Trace) Add(s Step) *Step {
	if t == nil {
		return nil
	}
	t.Steps = append(t.Steps, s)
	return &t.Steps[len(t.Steps)-1]
}

// Last returns the last step, or nil.
func (t *Trace) Last() *Step {
	if t == nil || len(t.Steps) == 0 {
		return nil
	}
	return &t.Steps[len(t.Steps)-1]
}

// String renders the trace as one line per router (and per condition), the
// form used in "no provider" errors and logs.
func (t *Trace) String() string {
	if t == nil || len(t.Steps) == 0 {
		return "(no routing steps)"
	}
	var b strings.Builder
	for i, s := range t.Steps {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %d->%d %s", s.Router, s.In, s.Out, s.Branch)
		if s.Key != "" {
			fmt.Fprintf(&b, " [%s", s.Key)
			if s.Version != "" {
				fmt.Fprintf(&b, " v%s", s.Version)
			}
			b.WriteString("]")
		}
		if s.Detail != "" {
			fmt.Fprintf(&b, " (%s)", s.Detail)
		}
		for _, c := range s.Conditions {
			fmt.Fprintf(&b, " {#%d %q when=%t %d->%d %s}", c.Index, c.Text, c.WhenMatched, c.In, c.Out, c.Branch)
		}
	}
	return b.String()
}
