package condition

import (
	"fmt"
	"strings"

	"github.com/dubboroute/dubboroute/internal/javastr"
	"github.com/dubboroute/dubboroute/router"
)

// Finding is a lint observation about an accepted rule: something Java
// does that a rule author probably did not expect (spec §9). Findings never
// change routing; the CLI's lint command prints them.
type Finding struct {
	// Code is one of the Find* constants.
	Code string
	// Condition is the condition index, or -1 for rule-level findings.
	Condition int
	// Line is the 1-based YAML line (0 when not from YAML).
	Line int
	// Message explains the finding.
	Message string
}

// Finding codes.
const (
	FindUnknownField        = "unknown-field"         // YAML field Java ignores
	FindNoEffectField       = "no-effect-field"       // scope/key/runtime/priority: parsed, never used in 3.x
	FindPrefixRemoved       = "prefix-removed"        // "consumer."/"provider." deleted from the text (§9.1)
	FindWhitespaceSeparator = "whitespace-separator"  // whitespace between tokens acts like "&" (§9.2)
	FindSkippedSeparator    = "skipped-separator"     // "a = = b": a separator without content is dropped (§9.2)
	FindKeyReplaced         = "key-replaced"          // the same key started twice: earlier values lost
	FindInnerStar           = "inner-star"            // only the last "*" of a glob is a wildcard (§9.3)
	FindRefInWhen           = "ref-in-when"           // "$x" in a when-part is compared literally (§9.3)
	FindBareKey             = "bare-key"              // a key without values never matches in 3.2+ (§9.4)
	FindBrokenRange         = "broken-range"          // "a~", "~", "~~b": Java returns the default result (§9.5)
	FindRangeNonNumeric     = "range-non-numeric"     // range bound that is not digits counts as 0 (§9.5)
	FindAttachmentDot       = "attachment-dot"        // attachments[a.b] is cut at the first "." (§9.6)
	FindBadArgumentKey      = "bad-argument-key"      // arguments key without [N]: always the sentinel
	FindCallKeyInThen       = "call-key-in-then"      // method/arguments/attachments in a then-part
	FindBlacklist           = "blacklist"             // then-part blank/false: no provider, force irrelevant (§9.7)
	FindEmptyThen           = "empty-then"            // then-part without any key matches no provider
	FindDisabledUnparsable  = "disabled-unparsable"   // disabled v3.0 condition that would fail to parse
	FindTrafficDisabled     = "traffic-disabled"      // v3.1 condition without destinations (§9.9)
	FindTargetAll           = "target-all-providers"  // v3.1 to.match blank/false: every provider (§9.9)
	FindWeightDefaulted     = "weight-defaulted"      // v3.1 weight <= 0 replaced by 100 (§9.9)
	FindFirstDestinationOdd = "first-destination-odd" // v3.1: Java's draw gives the first destination one extra unit, the last one less (§9.9)
)

// Findings returns the lint findings of the rule, in discovery order. The
// slice is a copy.
func (r *Rule) Findings() []Finding {
	return append([]Finding(nil), r.findings...)
}

// lintTerm records the surprising-but-accepted shapes of one term.
func lintTerm(t Term, idx, line int, when bool, fs *[]Finding) {
	note := func(code, format string, a ...any) {
		*fs = append(*fs, Finding{Code: code, Condition: idx, Line: line, Message: fmt.Sprintf(format, a...)})
	}
	if len(t.Match) == 0 && len(t.Mismatch) == 0 {
		note(FindBareKey, "key %q has no value: since Dubbo 3.2 it never matches", t.Key)
	}
	kind, _, _ := classifyKey(t.Key)
	switch {
	case strings.HasPrefix(t.Key, "attachments"):
		head, _, cut := strings.Cut(t.Key, ".")
		if cut {
			note(FindAttachmentDot, "key %q is cut at the first \".\" to %q: attachment names with a dot cannot be matched", t.Key, head)
		}
	case strings.HasPrefix(t.Key, "arguments") && kind == keySentinel:
		note(FindBadArgumentKey, "key %q has no arguments[N] index: its value is always Java's not-found sentinel", t.Key)
	}
	if !when && (kind != keyParam || t.Key == "method" || t.Key == "methods") {
		note(FindCallKeyInThen, "key %q in a then-part is looked up on the provider (method: a URL parameter; arguments/attachments: the not-found sentinel)", t.Key)
	}
	for _, list := range [][]string{t.Match, t.Mismatch} {
		for _, v := range list {
			if strings.Contains(v, "~") {
				lintRange(t.Key, v, when, note)
				continue
			}
			if when && strings.HasPrefix(v, "$") {
				note(FindRefInWhen, "%s: %q in a when-part is compared literally; $ references work only in then-parts", t.Key, v)
			}
			if strings.Count(v, "*") > 1 {
				note(FindInnerStar, "%s: in %q only the last \"*\" is a wildcard, the others are literal", t.Key, v)
			}
		}
	}
}

func lintRange(key, v string, when bool, note func(code, format string, a ...any)) {
	rp := compileRange(v)
	if rp.broken {
		def := "no match"
		if !when {
			def = "a match"
		}
		note(FindBrokenRange, "%s: range %q is not a closed or upper-bounded range; Java returns the default result (%s)", key, v, def)
		return
	}
	for _, b := range rp.rawBounds {
		if b != "" && !javastr.Digits(b) {
			note(FindRangeNonNumeric, "%s: range bound %q of %q is not a non-negative integer; Java reads it as 0", key, b, v)
		}
	}
}

// drawMessage explains Java's weighted pick over the destinations ts (with
// effective weights) when all of them have providers:
// DestinationSet.randDestination draws r in [0, W) and takes the first
// candidate with r <= its cumulative weight, so the first gets w1+1 of the
// W draw values and the last wn-1.
func drawMessage(ts []Target) string {
	ws := make([]int64, len(ts))
	for i, t := range ts {
		ws[i] = t.Weight
	}
	counts, total, shares := router.JavaDrawShares(ws)
	var b strings.Builder
	fmt.Fprintf(&b, "weighted pick: Java draws r in [0, %d) and takes the first destination with r <= its cumulative weight: when every destination has providers, %s", total, shares)
	if counts[len(counts)-1] == 0 {
		b.WriteString("; the last is never drawn")
	}
	b.WriteString(" (a destination without providers leaves the draw: W shrinks, and the extra and missing value go to the first and last candidates left)")
	return b.String()
}
