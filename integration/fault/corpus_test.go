package fault

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/rules"
)

// ruleKind says which config-center key a corpus entry is pushed to.
type ruleKind string

const (
	kindCondition ruleKind = "condition"
	kindTag       ruleKind = "tag"
	kindGray      ruleKind = "gray"
)

// badRule is one malformed rule of the corpus: what it is (name, for test
// output), which key it goes to, and its content with {P1}/{P2}/{P3}
// standing for the providers' ports. Where it can, an entry is "tempting":
// were it accepted, it would move traffic (to p2 for the service rule, to
// p1 for the tag rule, nowhere for the gray rule), so acceptance would show
// in the per-call check as well as in the log.
type badRule struct {
	name string
	kind ruleKind
	// line is the line the rejection must name (binary garbage: the line
	// of the first byte that is not UTF-8, which rules.Parse reports).
	line    int
	content string
}

// mb is the size of the "1 MB" values: under ZooKeeper's default
// jute.maxbuffer (1 MiB - 1 for the whole request), so the write succeeds
// and the consumer has to deal with it.
const mb = 1000 * 1000

// deep nests n flow sequences: [[[[...]]]].
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// deepBlock nests n block mappings, one level per line.
func deepBlock(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s- a%d:\n", strings.Repeat("  ", i), i)
	}
	return b.String()
}

// indent prefixes every line of s with n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad) + "\n"
}

// garbage is deterministic binary junk: NUL, control bytes, invalid UTF-8.
func garbage(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	b[0] = 0xff // never valid UTF-8 at the start
	return string(b)
}

// aliasBomb is the "billion laughs" YAML: each level refers to the previous
// one ten times.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		name := string(c)
		fmt.Fprintf(&b, "%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = name
	}
	return b.String()
}

const svcHead = "scope: service\nforce: true\nruntime: true\nenabled: true\nkey: com.muke.dubbocourse.common.api.BookFacade\n"

const tagHead = "force: false\nruntime: true\nenabled: true\nkey: demo-provider\n"

const grayHead = "key: demo-provider\nenabled: true\n"

// corpus is every malformed rule the MalformedRules test pushes.
func corpus() []badRule {
	big := strings.Repeat("9", mb)
	return []badRule{
		// Condition rules (service key).
		{"cond/yaml-tab-indent", kindCondition, 7, svcHead + "conditions:\n\t- method=queryAll => address=*:{P2}\n"},
		{"cond/yaml-unclosed-quote", kindCondition, 7, svcHead + "conditions:\n  - \"method=queryAll => address=*:{P2}\n"},
		{"cond/yaml-unclosed-flow", kindCondition, 5, svcHead + "conditions: [method=queryAll => address=*:{P2}\n"},
		{"cond/yaml-bad-indent", kindCondition, 2, "scope: service\n  force: true\n key: x\nconditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/two-documents", kindCondition, 8, svcHead + "conditions:\n  - method=queryAll => address=*:{P2}\n---\nscope: service\n"},
		{"cond/root-is-a-list", kindCondition, 1, "- method=queryAll => address=*:{P2}\n"},
		{"cond/scope-is-a-list", kindCondition, 1, "scope: [service, application]\nforce: true\nkey: x\nconditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/key-is-a-mapping", kindCondition, 3, "scope: service\nforce: true\nkey: {a: 1}\nconditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/priority-not-int", kindCondition, 6, svcHead + "priority: high\nconditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/conditions-is-a-string", kindCondition, 6, svcHead + "conditions: method=queryAll => address=*:{P2}\n"},
		{"cond/double-equals", kindCondition, 8, svcHead + "conditions:\n  - method=queryAll => address=*:{P2}\n  - method == queryByName => address=*:{P1}\n"},
		{"cond/two-arrows", kindCondition, 7, svcHead + "conditions:\n  - method=queryAll => => address=*:{P2}\n"},
		{"cond/no-key", kindCondition, 7, svcHead + "conditions:\n  - =queryAll => address=*:{P2}\n"},
		{"cond/v31-bad-match", kindCondition, 8, "configVersion: v3.1\n" + svcHead + "conditions:\n  - from:\n      match: method == queryAll\n    to:\n      - match: address=*:{P2}\n"},
		{"cond/v31-to-not-a-list", kindCondition, 10, "configVersion: v3.1\n" + svcHead + "conditions:\n  - from:\n      match: method=queryAll\n    to: address=*:{P2}\n"},
		{"cond/unsupported-version", kindCondition, 1, "configVersion: v9.0\n" + svcHead + "conditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/valid-false", kindCondition, 8, svcHead + "valid: false\nconditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/1MB-priority", kindCondition, 6, svcHead + "priority: " + big + "\nconditions:\n  - method=queryAll => address=*:{P2}\n"},
		{"cond/deep-flow", kindCondition, 6, svcHead + "conditions: " + deep(20000) + "\n"},
		{"cond/alias-bomb", kindCondition, 12, svcHead + aliasBomb()}, // the 51st alias to a collection (SnakeYAML's limit)
		{"cond/binary", kindCondition, 1, garbage(4096)},

		// Tag rules.
		{"tag/yaml-unclosed-flow", kindTag, 4, tagHead + "tags: [{name: t, addresses: [127.0.0.1:{P1}]\n"},
		{"tag/yaml-bad-indent", kindTag, 5, tagHead + "tags:\n  - name: t\n   addresses: [127.0.0.1:{P1}]\n"},
		// (tags: t is not malformed: Java reads it as a rule without tags.)
		{"tag/name-is-a-list", kindTag, 6, tagHead + "tags:\n  - name: [t]\n    addresses: [127.0.0.1:{P1}]\n"},
		{"tag/address-is-a-mapping", kindTag, 8, tagHead + "tags:\n  - name: t\n    addresses:\n      - {ip: 127.0.0.1}\n"},
		{"tag/bad-address-any-port", kindTag, 6, tagHead + "tags:\n  - name: t\n    addresses: [127.0.0.1:{P1}, \"127.0.0.1:*\"]\n"},
		{"tag/bad-address-glob-octet", kindTag, 6, tagHead + "tags:\n  - name: t\n    addresses: [127.0.0.1:{P1}, \"127.0.0.1*:{P1}\"]\n"},
		{"tag/bad-address-cidr", kindTag, 6, tagHead + "tags:\n  - name: t\n    addresses: [127.0.0.0/33]\n"},
		{"tag/bad-match-regex", kindTag, 9, "configVersion: v3.0\n" + tagHead + "tags:\n  - name: t\n    match:\n      - key: port\n        value:\n          regex: \"([a-\"\n"},
		{"tag/v30-tag-without-addresses-or-match", kindTag, 7, "configVersion: v3.0\n" + tagHead + "tags:\n  - name: t\n"},
		{"tag/1MB-bad-port", kindTag, 6, tagHead + "tags:\n  - name: t\n    addresses: [\"127.0.0.1:" + big + "\"]\n"},
		{"tag/deep-flow", kindTag, 5, tagHead + "tags: " + deep(20000) + "\n"},
		{"tag/deep-block-in-addresses", kindTag, 31, tagHead + "tags:\n  - name: t\n    addresses:\n" + indent(deepBlock(500), 6)},
		{"tag/binary", kindTag, 1, garbage(4096)},

		// Gray rules.
		{"gray/yaml-unclosed-quote", kindGray, 3, grayHead + "fallback: \"normal\n"},
		{"gray/unknown-field", kindGray, 3, grayHead + "percentage: 100\n"},
		{"gray/enabled-is-a-list", kindGray, 2, "key: demo-provider\nenabled: [yes]\n"},
		{"gray/unknown-fallback", kindGray, 3, grayHead + "fallback: sometimes\n"},
		{"gray/unknown-delegate", kindGray, 3, grayHead + "delegate: fastest\n"},
		{"gray/bad-provider-regex", kindGray, 6, grayHead + "grayProviders:\n  match:\n    - param: status\n      regex: \"gr(ay\"\n"},
		{"gray/bad-provider-address", kindGray, 5, grayHead + "grayProviders:\n  match:\n    - address: 127.0.0.256\n"},
		{"gray/unknown-operator", kindGray, 8, grayHead + "requests:\n  - name: r\n    conditions:\n      - source: attachment\n        key: userId\n        operator: like\n        value: \"1\"\n"},
		{"gray/bad-range", kindGray, 9, grayHead + "requests:\n  - name: r\n    conditions:\n      - source: attachment\n        key: userId\n        operator: range\n        value: \"ten~one\"\n"},
		{"gray/percent-over-100", kindGray, 5, grayHead + "requests:\n  - name: r\n    percent: 250\n"},
		{"gray/1MB-bad-regex", kindGray, 6, grayHead + "grayProviders:\n  match:\n    - param: status\n      regex: \"(" + strings.Repeat("a", mb) + "\"\n"},
		{"gray/deep-flow", kindGray, 3, grayHead + "requests: " + deep(20000) + "\n"},
		{"gray/binary", kindGray, 1, garbage(4096)},
	}
}

// expand fills in the ports.
func (r badRule) expand(p1, p2, p3 int) string {
	return strings.NewReplacer("{P1}", strconv.Itoa(p1), "{P2}", strconv.Itoa(p2), "{P3}", strconv.Itoa(p3)).Replace(r.content)
}

// parse runs the parser the consumer runs for the entry's key.
func (r badRule) parse(content string) error {
	// rules.Parse is the consumer's path (extension) and the CLI's.
	_, err := rules.Parse(rules.Kind(r.kind), content)
	return err
}

// lineRE matches "line N" for N = line, and not a longer number.
func lineRE(line int) *regexp.Regexp {
	return regexp.MustCompile(`\bline ` + strconv.Itoa(line) + `\b`)
}

// TestCorpusIsMalformed checks the corpus itself, in process and fast:
// every entry is refused by the parser the consumer uses for its key, with
// an error naming the expected line, and the corpus is as large and as
// varied as the issue asks.
func TestCorpusIsMalformed(t *testing.T) {
	perKind := map[ruleKind]int{}
	names := map[string]bool{}
	for _, r := range corpus() {
		perKind[r.kind]++
		if names[r.name] {
			t.Errorf("duplicate corpus name %s", r.name)
		}
		names[r.name] = true
		content := r.expand(20880, 20881, 20882)
		if strings.TrimSpace(content) == "" {
			t.Errorf("%s: empty content means delete, not a malformed rule", r.name)
		}
		err := r.parse(content)
		if err == nil {
			t.Errorf("%s: accepted by the %s parser", r.name, r.kind)
			continue
		}
		if r.line > 0 && !lineRE(r.line).MatchString(err.Error()) {
			t.Errorf("%s: error does not name line %d: %.300s", r.name, r.line, err)
		}
	}
	if n := len(corpus()); n < 30 {
		t.Errorf("corpus has %d entries, want at least 30", n)
	}
	for _, k := range []ruleKind{kindCondition, kindTag, kindGray} {
		if perKind[k] < 10 {
			t.Errorf("corpus has %d %s rules, want at least 10", perKind[k], k)
		}
	}
}
