package cli

import (
	"sort"

	"github.com/dubboroute/dubboroute/router/condition"
)

// Severities of lint findings. Errors and warnings make lint exit 1;
// infos explain and never fail.
const (
	SevError   = "error"
	SevWarning = "warning"
	SevInfo    = "info"
)

// Code is one stable lint finding code.
type Code struct {
	ID       string `json:"code"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Hint     string `json:"hint"`
}

// codes are the finding codes. IDs never change meaning; new findings get
// new IDs. DR0xx: the runtime rejects or ignores the rule. DR1xx: condition
// rule findings (router/condition). DR2xx: tag rule findings (router/tag).
// DR3xx: findings that need more than one condition, the key or a provider
// list (this package).
var codes = []Code{
	{"DR001", "condition-rejected", SevError, "fix the condition or field at this line; the runtime (like Java) rejects the whole rule and keeps the previous one"},
	{"DR002", "tag-rejected", SevError, "fix the tag rule at this line; the runtime rejects it whole and keeps the previous one"},
	{"DR003", "gray-rejected", SevError, "fix the gray rule at this line; the runtime rejects it whole and keeps the previous one"},
	{"DR004", "unsupported-version", SevError, "use configVersion v3.0 or v3.1; Java ignores rules above v3.1 and keeps the previous one"},
	{"DR005", "no-conditions", SevError, "give the rule at least one condition; an empty list does not clear the old conditions, delete the key instead"},
	{"DR006", "unknown-key", SevError, "name the file <app>.condition-router, <interface>:<version>:<group>.condition-router, <app>.tag-router, <app>.gray-router, <app>.MESHAPPRULE or <app|interface:version:group>.configurators, or pass --key"},
	{"DR008", "mesh-rejected", SevError, "fix the mesh rule at this line; Java logs it and keeps the mesh rule already in force"},
	{"DR009", "mesh-incomplete", SevError, "put a VirtualService and a DestinationRule (metadata.name without a dot) in the same value; Java ignores a value with only one of them and keeps the rule in force"},
	{"DR010", "script-never-routes", SevWarning, "the script rule passes every call through (disabled, no script, or script rules switched off as on Java 15+ without a script engine); delete it or enable it"},
	{"DR015", "script-rejected", SevError, "fix the script rule at this line (YAML field, engine type, or the script's syntax: ES5 only for Java's dialect); the runtime keeps the previous rule"},
	{"DR016", "script-dialect", SevInfo, "which meaning the script has: Java's (Java 8/11 consumers with Nashorn) or dubbo-go's; Java consumers on Java 15+ without a script engine ignore every script rule"},
	{"DR011", "affinity-rejected", SevError, "fix the affinity rule at this line; Java logs it and keeps the affinity rule in force"},
	{"DR012", "affinity-ignored", SevError, "use configVersion: v3.1, a non-empty affinityAware.key and a ratio from 0 to 100; Java ignores this rule and keeps the one in force"},
	{"DR013", "affinity-off-by-default", SevInfo, "affinity rules apply only to consumers that enable the router (reference parameter dubboroute.affinity=true); Java 3.3.6 registers no affinity router by default"},
	{"DR007", "empty-rule", SevError, "write the rule; empty content is a delete to the config center (use rm to delete)"},

	{"DR101", "unknown-field", SevWarning, "remove the field or fix its spelling; Java ignores it"},
	{"DR102", "no-effect-field", SevInfo, "harmless: in Dubbo 3.x the config key decides the scope and the chain decides the order"},
	{"DR103", "prefix-removed", SevWarning, "Java deletes \"consumer.\" and \"provider.\" everywhere, values included; avoid them in keys and values"},
	{"DR104", "whitespace-separator", SevWarning, "join a key and its value with '=' and separate keys with '&'; a blank between tokens starts a new key"},
	{"DR105", "skipped-separator", SevWarning, "remove the doubled separator"},
	{"DR106", "key-replaced", SevWarning, "list all values of a key in one term (key=a,b); a key started again loses its earlier values"},
	{"DR107", "inner-star", SevWarning, "use at most one '*' per value: only the last one is a wildcard"},
	{"DR108", "ref-in-when", SevWarning, "write the literal value: $references only work in then-parts"},
	{"DR109", "bare-key", SevWarning, "give the key a value (key=v or key!=v): since Dubbo 3.2 a bare key never matches"},
	{"DR110", "broken-range", SevWarning, "write a closed range a~b or an upper bound ~b: Java 3.3 does not honour \"a~\""},
	{"DR111", "range-non-numeric", SevWarning, "use non-negative integers as range bounds: anything else counts as 0"},
	{"DR112", "attachment-dot", SevWarning, "use an attachment name without '.': the key is cut at the first dot"},
	{"DR113", "bad-argument-key", SevWarning, "write arguments[N] with an index"},
	{"DR114", "call-key-in-then", SevWarning, "move method/arguments/attachments to the when-part (before =>): a then-part matches provider URLs"},
	{"DR115", "blacklist", SevInfo, "intended? a blank or false then-part gives matching consumers no provider, whatever force says"},
	{"DR116", "empty-then", SevWarning, "write key=value after =>: a then-part without a key matches no provider"},
	{"DR117", "disabled-unparsable", SevWarning, "fix this condition before enabling the rule: Java does not parse disabled conditions"},
	{"DR118", "traffic-disabled", SevWarning, "add a 'to' list: a v3.1 condition without destinations blocks every matching consumer"},
	{"DR119", "target-all-providers", SevWarning, "write a real match: in v3.1 a blank or false to.match selects ALL providers (in v3.0 it blocks)"},
	{"DR120", "weight-defaulted", SevWarning, "use a positive weight: Java replaces weights <= 0 by 100"},
	{"DR121", "first-destination-odd", SevInfo, "expect w1+1 of W draw values for the first destination and wn-1 for the last, as Java draws (a last destination of weight 1 is never drawn)"},
	{"DR199", "condition-finding", SevWarning, "see the message"},

	{"DR201", "tag-warning", SevWarning, "see the message"},
	{"DR202", "tag-no-tags", SevWarning, "add tags: a tag rule without tags is invalid and routing falls back to static dubbo.tag"},
	{"DR203", "tag-addresses-not-list", SevWarning, "write addresses as a YAML list"},
	{"DR204", "tag-no-name", SevWarning, "name the tag: no request can select it, but its addresses still count as claimed"},
	{"DR205", "tag-match-ignored-version", SevWarning, "set configVersion: v3.0 to use match (Java reads match only when configVersion starts with v3.0)"},
	{"DR206", "tag-match-ignored-addresses", SevWarning, "use either addresses or match in one tag: match is ignored when addresses are given"},
	{"DR207", "tag-match-empty", SevWarning, "add match conditions: an empty match list claims every provider"},
	{"DR208", "tag-empty", SevWarning, "give the tag addresses or a match, or remove it"},
	{"DR209", "tag-match-incomplete", SevWarning, "give every match entry a key and a value"},

	{"DR401", "mesh-unknown-field", SevWarning, "use Java's field names (routedetail, name_match, str_value/num_value/bool_value, sourceLabels, dubboContext, oneof); Java ignores unknown keys"},
	{"DR402", "mesh-skipped-document", SevWarning, "give every document a metadata mapping with a name (and a spec); Java skips or fails on documents without them"},
	{"DR403", "mesh-other-rule-type", SevWarning, "remove the dot from metadata.name: Java files a dotted name under another rule type, and the standard router ignores (and clears) it"},
	{"DR404", "mesh-other-kind", SevWarning, "use kind: VirtualService or kind: DestinationRule (case-sensitive)"},
	{"DR405", "mesh-integer-for-double", SevWarning, "write the number with a decimal point (10.0): Java's Double fields ignore YAML integers"},
	{"DR406", "mesh-tracing-context", SevWarning, "use dubboContext: Java Dubbo 3.3.6 has no TracingContextProvider, so a tracingContext match never holds"},
	{"DR407", "mesh-short-fallback", SevWarning, "write fallback: {destination: {subset: ...}}: Java ignores fallback: {subset: ...}"},
	{"DR408", "mesh-bad-regex", SevWarning, "fix the regex: Java throws on every call that reaches it and the call fails with no provider"},
	{"DR409", "mesh-subset-not-defined", SevWarning, "define the subset in a DestinationRule of the same key: an undefined subset never has providers"},
	{"DR410", "mesh-weights", SevInfo, "give every destination an explicit weight (Java counts a missing one as 1); as Java draws, the first destination gets one draw value more than its weight and the last one fewer"},
	{"DR411", "mesh-host-not-app", SevWarning, "Java never reads host: the key's application decides which providers a rule routes; name the host after it to avoid confusion"},
	{"DR412", "mesh-clears", SevWarning, "the value has no standard VirtualService/DestinationRule: Java clears this application's mesh rule (delete the key if that is meant)"},
	{"DR413", "mesh-subset-empty", SevWarning, "check the subset labels against the providers (labels are read consumer value first for most keys)"},
	{"DR414", "mesh-outlier-value", SevWarning, "give trafficPolicy.outlierDetection fields Istio's types (integers, durations such as 10s, true/false); dubboroute ignores a field it cannot read, Java ignores the whole message"},
	{"DR415", "mesh-outlier-no-ejection", SevWarning, "raise maxEjectionPercent so that 100 / providers fits under it (e.g. 50): Envoy's cap counts the ejection itself, so with the default 10 fewer than 10 providers eject nothing"},
	{"DR014", "configurators-rejected", SevError, "fix the configurators rule at this line; Java (and the runtime) log it and keep the previous configurators"},
	{"DR502", "loadbalance-unknown", SevWarning, "name one of Java's balancers (random, roundrobin, leastactive, shortestresponse, consistenthash, adaptive): a Java consumer fails every call on another name, a plain dubbo-go consumer panics"},
	{"DR503", "resilience-param", SevWarning, "see docs/resilience.md for the dubboroute.outlier.* and dubboroute.retry.* parameters and their values; an unknown name or a bad value leaves the feature off"},
	{"DR501", "configurator-no-effect", SevWarning, "see the message: Java accepts this part of the rule and silently never applies it"},

	{"DR301", "admin-blacklist", SevInfo, "Dubbo Admin blacklist: the consumers listed get no provider"},
	{"DR302", "admin-whitelist", SevInfo, "Dubbo Admin whitelist: every consumer NOT listed gets no provider"},
	{"DR303", "shadowed-condition", SevWarning, "reorder or merge the conditions: an earlier one already decides every call this one applies to"},
	{"DR304", "force-no-provider", SevWarning, "check the then-part against the provider list, or set force: false to fall back to all providers"},
	{"DR305", "interface-as-app-key", SevWarning, "a service rule key is <interface>:<version>:<group>.condition-router (e.g. com.foo.Bar::.condition-router); this key is read as an application"},
	{"DR306", "malformed-service-key", SevWarning, "a service key has exactly two colons: <interface>:<version>:<group> (empty parts allowed)"},
	{"DR307", "yaml-key-mismatch", SevWarning, "make the YAML key/scope agree with the config key: only the config key decides where a rule applies"},
}

var codeByID = func() map[string]Code {
	m := map[string]Code{}
	for _, c := range codes {
		m[c.ID] = c
	}
	return m
}()

// conditionCodes maps router/condition finding codes to CLI codes.
var conditionCodes = map[string]string{
	condition.FindUnknownField:        "DR101",
	condition.FindNoEffectField:       "DR102",
	condition.FindPrefixRemoved:       "DR103",
	condition.FindWhitespaceSeparator: "DR104",
	condition.FindSkippedSeparator:    "DR105",
	condition.FindKeyReplaced:         "DR106",
	condition.FindInnerStar:           "DR107",
	condition.FindRefInWhen:           "DR108",
	condition.FindBareKey:             "DR109",
	condition.FindBrokenRange:         "DR110",
	condition.FindRangeNonNumeric:     "DR111",
	condition.FindAttachmentDot:       "DR112",
	condition.FindBadArgumentKey:      "DR113",
	condition.FindCallKeyInThen:       "DR114",
	condition.FindBlacklist:           "DR115",
	condition.FindEmptyThen:           "DR116",
	condition.FindDisabledUnparsable:  "DR117",
	condition.FindTrafficDisabled:     "DR118",
	condition.FindTargetAll:           "DR119",
	condition.FindWeightDefaulted:     "DR120",
	condition.FindFirstDestinationOdd: "DR121",
}

// Codes returns every finding code, sorted by ID.
func Codes() []Code {
	out := append([]Code(nil), codes...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
