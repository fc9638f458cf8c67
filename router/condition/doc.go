// Package condition implements Java Dubbo 3.3's condition router for
// dubbo-go consumers, compiled for a zero-allocation hot path:
//
//	parse (once per rule text) -> compile (once per rule x consumer x provider snapshot) -> route (per call)
//
// # Parsing
//
//   - ParseRule reads the config-center YAML Dubbo Admin stores at
//     /dubbo/config/dubbo/<key>.condition-router. configVersion absent or
//     below "v3.1" (a case-insensitive string comparison, so "v10" is below)
//     selects the v3.0 format (conditions: list of strings); a value starting
//     with "v3.1" selects the multi-destination format (from.match,
//     to[].match, to[].weight). Scalars are resolved as SnakeYAML's YAML 1.1
//     SafeConstructor does (yes/on are booleans, 0x10 is 16), because Java's
//     field-type rules depend on it: a non-string configVersion/scope/key
//     and a non-integer priority or weight reject the rule.
//   - ParseCondition reads one condition string with force/enabled (what one
//     registry router URL or one list element carries).
//   - ParseRouterURL reads condition://... and route://...&router=condition
//     registry URLs (2.6/2.7 form; Java 3.x ignores them, dubboroute offers
//     them as an opt-in source).
//
// The tokeniser reproduces Java's regex-driven parser exactly (spec §4),
// quirks included: consumer./provider. deleted everywhere (v3.0 only; Java's
// v3.1 parser does not do it), whitespace acting as "&", "a = = b", a
// restarted key dropping its values, "," appending to the last set written.
//
// Errors: a rule that fails anywhere is rejected whole with a *ParseError
// naming the field, the YAML line, and for a bad condition its index and
// text. Two wrapped sentinels mark rules Java accepts but does not apply,
// so the caller keeps the rule in force and logs: ErrUnsupportedVersion
// (configVersion above v3.1) and ErrRuleInvalid (missing/empty conditions
// or valid: false — Java keeps the previous conditions; only a delete
// clears them). As in Java, conditions of a disabled v3.0 rule are not
// parsed, so a syntax error there does not reject the rule.
//
// Lint hooks: Rule.Conditions keep each condition's text, line and parsed
// when/then terms (keys, "=" and "!=" values); Rule.UnknownFields lists
// YAML fields Java ignores; Rule.Findings reports the spec §9 surprises
// (Find* codes: prefix-removed, whitespace-separator, skipped-separator,
// inner-star, ref-in-when, bare-key, broken-range, range-non-numeric,
// attachment-dot, blacklist, traffic-disabled, target-all-providers,
// weight-defaulted, ...).
//
// # Compiling and routing
//
// Rule.Compile(u, consumer, providers, opt) evaluates, once, every when-part
// key that depends only on the consumer URL (all keys except method,
// methods, arguments[N] and attachments[k]) and computes every then-part
// and every v3.1 destination as an interned *router.Set over the providers'
// own URL parameters (with $x resolved against the consumer). Compiled.Route
// then tests only the call's method, arguments and attachments and combines
// Sets with the universe's memoised operations: it does not allocate, does
// not scan providers, and costs the same at 10 and at 10,000 providers. The
// result is always a subset of the input, so registry order is kept.
//
// Per condition (spec §5.6): disabled or empty input -> input; when-part not
// matching -> input; blacklist (then blank/false) -> empty, whatever force
// says; otherwise input ∩ then-set, or empty with force, or the input
// (fallback). Conditions chain in list order. v3.1 (spec §5.8): no "to" ->
// empty; otherwise the destinations whose set meets the input are the
// candidates; one -> it; several -> one whole subset drawn by weight as
// Java's DestinationSet draws it (r in [0, W), the first candidate with
// r <= its cumulative weight: the first gets (w1+1)/W, the last (wn-1)/W,
// so Go and Java consumers split traffic the same); none
// -> empty with force, else the input. A non-nil *router.Step receives one
// router.ConditionStep per condition (when matched, kept, branch, chosen
// destination and, for a weighted pick, the candidates' weights) and a
// summary branch; with a nil step nothing is recorded.
//
// Values follow Java 3.2+ exactly: a missing key fails both "=" and "!=";
// a missing or unresolvable argument/attachment key is the sentinel string
// NotFoundValue (so "!=" matches it and a range reads it as 0); only the
// last "*" of a glob is special; ranges "a~b" and "~b" are integer ranges,
// while "a~", "~" and bounds that overflow int32 give the default result
// (false in when-parts, true in then-parts).
//
// # Deliberate divergences from Java
//
//  1. Argument rendering. Java's String.valueOf is reproduced for strings,
//     nil ("null"), booleans, integers and floats (Double.toString /
//     Float.toString with shortest digits, as JDK 19+). Go's int32 is
//     rendered as a number even when it stands for a Java char. Other types
//     (structs, slices, maps, pointers other than *string) are rendered with
//     fmt.Sprint, where Java would print ClassName@hash: only "*" and "!="
//     patterns are meaningful for them in either language. Strings and
//     integers below 100 do not allocate; other values may.
//  2. configVersion above v3.1. Java 3.3 sets its rule to null and keeps
//     whatever v3.0 per-condition routers it had (even from an older rule);
//     dubboroute returns ErrUnsupportedVersion and the caller keeps the
//     previous rule whatever its version.
//  3. YAML details that only change how a broken rule fails: merge keys
//     ("<<") are rejected; nested maps or lists inside v3.1 from/to values are
//     rejected (fastjson would render them as JSON text); a v3.0 condition
//     that is a map or list is rendered like Java's LinkedHashMap/ArrayList
//     toString; values expanding through aliases beyond 10,000 nodes are
//     rejected (SnakeYAML refuses more than 50 collection aliases).
//  4. A nil *router.Call is treated as a call with an empty method name, no
//     arguments and no attachments (Java always has an invocation).
package condition
