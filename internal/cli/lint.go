package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/loadbalance/names"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/affinity"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/script"
	"github.com/dubboroute/dubboroute/router/tag"
	"github.com/dubboroute/dubboroute/rules"

	"github.com/dubboroute/dubboroute/internal/outcome"
)

// Finding is one lint finding, as printed by lint, push and watch.
type Finding struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Key      string `json:"key,omitempty"`
	// Condition is the 0-based condition index, absent for rule-level findings.
	Condition *int   `json:"condition,omitempty"`
	Message   string `json:"message"`
	Hint      string `json:"hint"`
}

// LintResult is the lint of one rule text.
type LintResult struct {
	File     string    `json:"file"`
	Key      string    `json:"key"`
	Kind     string    `json:"kind,omitempty"`
	Summary  string    `json:"summary,omitempty"`
	Findings []Finding `json:"findings"`
}

// counts returns the number of errors, warnings and infos.
func (r *LintResult) counts() (e, w, i int) {
	for _, f := range r.Findings {
		switch f.Severity {
		case SevError:
			e++
		case SevWarning:
			w++
		default:
			i++
		}
	}
	return
}

// lintOptions add cross-rule knowledge.
type lintOptions struct {
	providers []provider
	consumer  *router.URL
}

type linter struct {
	res  *LintResult
	opts lintOptions
}

func (l *linter) add(code string, line, cond int, format string, a ...any) {
	c, ok := codeByID[code]
	if !ok {
		c = Code{ID: code, Name: "unknown", Severity: SevWarning}
	}
	f := Finding{Code: c.ID, Name: c.Name, Severity: c.Severity, File: l.res.File, Line: line, Key: l.res.Key,
		Message: fmt.Sprintf(format, a...), Hint: c.Hint}
	if cond >= 0 {
		ci := cond
		f.Condition = &ci
	}
	l.res.Findings = append(l.res.Findings, f)
}

var lineRE = regexp.MustCompile(`line (\d+)`)

func lineOf(err error) int {
	var pe *condition.ParseError
	if errors.As(err, &pe) && pe.Line > 0 {
		return pe.Line
	}
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// lintRule lints one rule text for a config-center key.
func lintRule(file, key, content string, opts lintOptions) *LintResult {
	res := &LintResult{File: file, Key: key, Findings: []Finding{}}
	l := &linter{res: res, opts: opts}
	k, err := rules.ParseKey(key)
	if err != nil {
		l.add("DR006", 0, -1, "%v", err)
		return res
	}
	res.Kind = string(k.Kind)
	if strings.TrimSpace(content) == "" {
		l.add("DR007", 0, -1, "the rule is empty")
		return res
	}
	if err := rules.CheckText(k.Kind, content); err != nil {
		code := map[rules.Kind]string{rules.KindCondition: "DR001", rules.KindTag: "DR002", rules.KindGray: "DR003", rules.KindMesh: "DR008", rules.KindAffinity: "DR011", rules.KindScript: "DR010", rules.KindConfigurators: "DR014"}[k.Kind]
		l.add(code, lineOf(err), -1, "%v", err)
		sort.SliceStable(res.Findings, func(i, j int) bool { return res.Findings[i].Line < res.Findings[j].Line })
		return res
	}
	switch k.Kind {
	case rules.KindCondition:
		l.condition(k, content)
	case rules.KindTag:
		l.tag(k, content)
	case rules.KindMesh:
		l.mesh(k, content)
	case rules.KindAffinity:
		r, err := affinity.ParseRule(content)
		switch {
		case errors.Is(err, affinity.ErrInvalid):
			l.add("DR012", lineOf(err), -1, "%v", err)
		case err != nil:
			l.add("DR011", lineOf(err), -1, "%v", err)
		default:
			res.Summary = fmt.Sprintf("affinity rule: key %s, ratio %v%%, enabled=%t", r.Key, r.Ratio, r.Enabled)
			l.add("DR013", 0, -1, "affinity rule for %s: read only by consumers with dubboroute.affinity=true (Java: only where the application registers the affinity factories)", k.Prefix)
			if r.Ratio == 0 {
				l.add("DR013", 0, -1, "ratio 0: when no provider has the consumer's %s, Java returns no provider; dubboroute keeps all", r.Key)
			}
		}
	case rules.KindScript:
		l.script(content)
	case rules.KindGray:
		if _, err := gray.ParseRule(content); err != nil {
			l.add("DR003", lineOf(err), -1, "%v", err)
		} else {
			res.Summary = "gray rule"
		}
	case rules.KindConfigurators:
		l.configurators(k, content)
	}
	// Report in file order (rule-level findings without a line first).
	sort.SliceStable(res.Findings, func(i, j int) bool { return res.Findings[i].Line < res.Findings[j].Line })
	return res
}

// script lints a script rule as the runtime reads it by default
// (script.DialectAuto): rejected with the script's position, never routing
// (and why), or routing in which dialect.
func (l *linter) script(content string) {
	sr, err := rules.ParseScript(content)
	if err != nil {
		line := lineOf(err)
		var se *script.SyntaxError
		if errors.As(err, &se) {
			line = se.RuleLine
		}
		l.add("DR015", line, -1, "%v", err)
		return
	}
	if sr.Why != "" {
		l.add("DR010", 0, -1, "script rule (type %s): %s", sr.Type, sr.Why)
		l.res.Summary = "script rule (never routes)"
		return
	}
	l.res.Summary = "script rule (" + sr.Dialect.String() + " dialect)"
	switch sr.Dialect {
	case script.DialectDubboGo:
		l.add("DR016", 0, -1, "runs in dubbo-go's dialect (the script uses dubbo-go's Go names): Java consumers cannot run it (every call passes through there)")
	default:
		l.add("DR016", 0, -1, "runs in Java's dialect, as Java 8/11 consumers (Nashorn) run it; Java consumers on Java 15+ without a script engine pass every call through (the off script dialect does the same)")
	}
	for _, f := range sr.Rule.Findings {
		l.add("DR016", 0, -1, "%s", f)
	}
}

// configurators lints a dynamic configuration rule.
func (l *linter) configurators(k rules.Key, content string) {
	r, err := configurator.Parse(k.Key, content)
	if err != nil {
		l.add("DR014", lineOf(err), -1, "%v", err)
		return
	}
	l.res.Summary = fmt.Sprintf("configurators rule (%s), %d override URL(s)", r.Form, len(r.URLs))
	if r.Keep {
		l.add("DR501", 0, -1, "the rule yields no configurator: Java keeps the configurators already in force (delete the key to clear them)")
	}
	for _, f := range r.Findings {
		l.add("DR501", f.Line, -1, "%s: %s", f.Field, f.Message)
	}
	for _, c := range r.URLs {
		for k, v := range c.URL.Params.All() {
			if k == "loadbalance" || strings.HasSuffix(k, ".loadbalance") {
				l.loadbalance(c.Origin.Line, k, v)
			}
			if msg := resilienceParam(k, v); msg != "" {
				l.add("DR503", c.Origin.Line, -1, "%s", msg)
			}
		}
	}
	if r.Form == "yaml" && r.RuleKey != "" {
		scope := r.Scope
		if scope != "application" {
			scope = "service"
			if strings.HasSuffix(r.RuleKey, "::") {
				l.add("DR501", 0, -1, "key %q (Dubbo Admin's service key form) is read as version %q: the rule never applies to a service without that version", r.RuleKey, strings.TrimPrefix(r.RuleKey[strings.IndexByte(r.RuleKey, ':'):], ":"))
			}
		}
		l.keyChecks(k, "", scope)
	}
}

// loadbalance reports a balancer name Java Dubbo 3.3.6 does not have.
func (l *linter) loadbalance(line int, key, name string) {
	if name == "" || names.IsJava(name) {
		return
	}
	if names.IsDubboGoKept(name) {
		l.add("DR502", line, -1, "%s: %q is dubbo-go's own balancer (adaptiveService's, by provider capacity): Java consumers fail every call (no LoadBalance extension %q); dubboroute keeps dubbo-go's", key, name, name)
		return
	}
	if c, ok := names.Canonical(name); ok {
		l.add("DR502", line, -1, "%s: %q is dubbo-go's name: Java consumers fail every call (no LoadBalance extension %q); dubboroute runs Java's %s, write %q", key, name, name, c, c)
		return
	}
	l.add("DR502", line, -1, "%s: no balancer %q: Java consumers fail every call (IllegalStateException), plain dubbo-go consumers panic; dubboroute warns once, counts it (dubboroute_unknown_loadbalance_total) and uses random", key, name)
}

var adminListRE = regexp.MustCompile(`^host (!?=) (.+) =>$`)

func (l *linter) condition(k rules.Key, content string) {
	r, err := condition.ParseRule(content)
	switch {
	case errors.Is(err, condition.ErrUnsupportedVersion):
		l.add("DR004", lineOf(err), -1, "%v", err)
		return
	case errors.Is(err, condition.ErrRuleInvalid):
		l.add("DR005", lineOf(err), -1, "%v", err)
		return
	case err != nil:
		l.add("DR001", lineOf(err), -1, "%v", err)
		return
	}
	l.res.Summary = fmt.Sprintf("condition rule %s, %d condition(s), force=%t, enabled=%t", r.Version, len(r.Conditions), r.Force, r.Enabled)
	admin := map[int]bool{}
	for _, c := range r.Conditions {
		m := adminListRE.FindStringSubmatch(strings.TrimSpace(c.Text))
		if m == nil || r.Version != condition.V30 {
			continue
		}
		admin[c.Index] = true
		hosts := strings.ReplaceAll(m[2], " ", "")
		if m[1] == "=" {
			l.add("DR301", c.Line, c.Index, "Dubbo Admin blacklist: consumers on hosts %s get no provider", hosts)
		} else {
			l.add("DR302", c.Line, c.Index, "Dubbo Admin whitelist: consumers on any host other than %s get no provider", hosts)
		}
	}
	for _, f := range r.Findings() {
		if f.Code == condition.FindBlacklist && admin[f.Condition] {
			continue // explained above
		}
		code, ok := conditionCodes[f.Code]
		if !ok {
			code = "DR199"
		}
		l.add(code, f.Line, f.Condition, "%s", f.Message)
	}
	l.keyChecks(k, r.Key, r.Scope)
	if r.Enabled {
		l.shadowing(r)
		if r.Force && l.opts.providers != nil {
			l.forceNoProvider(r)
		}
	}
}

// keyChecks compares the config key with what the rule says about itself.
func (l *linter) keyChecks(k rules.Key, yamlKey, scope string) {
	if k.Kind == rules.KindCondition {
		if k.Service {
			if n := strings.Count(k.Prefix, ":"); n != 2 {
				l.add("DR306", 0, -1, "service key %q has %d colon(s); Java's key is <interface>:<version>:<group>, so no consumer reads this rule", k.Key, n)
			}
		} else if looksLikeInterface(k.Prefix) {
			l.add("DR305", 0, -1, "key %q looks like an interface name but has no :<version>:<group>; it is read as the rule of an application named %q (service rule key: %s::%s)", k.Key, k.Prefix, k.Prefix, rules.ConditionSuffix)
		}
	}
	if yamlKey != "" {
		want := k.Prefix
		if k.Service {
			want, _, _ = strings.Cut(k.Prefix, ":")
			want = strings.ReplaceAll(want, "/", "*")
		}
		if yamlKey != want {
			l.add("DR307", 0, -1, "YAML key %q differs from %q, which the config key %q names", yamlKey, want, k.Key)
		}
	}
	switch {
	case scope == "service" && !k.Service:
		l.add("DR307", 0, -1, "scope: service, but %q is an application key", k.Key)
	case scope == "application" && k.Service:
		l.add("DR307", 0, -1, "scope: application, but %q is a service key", k.Key)
	}
}

// looksLikeInterface: a dotted name whose last segment starts upper-case
// (com.foo.BarService), as Java interface names do and application names
// rarely do.
func looksLikeInterface(s string) bool {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	r := []rune(s[i+1:])
	return unicode.IsUpper(r[0])
}

func blocks(c condition.Condition, v31 bool) bool {
	if v31 {
		return len(c.Targets) == 0
	}
	return c.Then == nil
}

func sameWhen(a, b *condition.Part) bool {
	if a == nil || b == nil {
		return a == b
	}
	return reflect.DeepEqual(a.Terms, b.Terms)
}

func describeWhen(p *condition.Part) string {
	if p == nil {
		return "every call"
	}
	return "calls where " + p.Text
}

// shadowing reports conditions that an earlier condition of the same rule
// already decides: a blacklist with the same (or no) when-part empties the
// list first; with force and a provider list, an earlier condition with the
// same (or no) when-part whose then-part shares no provider with this one's.
func (l *linter) shadowing(r *condition.Rule) {
	v31 := r.Version == condition.V31
	for j, cj := range r.Conditions {
		if !cj.Parsed {
			continue
		}
		for i := 0; i < j; i++ {
			ci := r.Conditions[i]
			if !ci.Parsed || !(ci.When == nil || sameWhen(ci.When, cj.When)) {
				continue
			}
			if blocks(ci, v31) {
				l.add("DR303", cj.Line, cj.Index, "never sees a provider: condition #%d (line %d) gives %s no provider first", i, ci.Line, describeWhen(ci.When))
				break
			}
			if !v31 && r.Force && l.opts.providers != nil && cj.Then != nil {
				si, oki := l.thenSet(ci.Then.Text)
				sj, okj := l.thenSet(cj.Then.Text)
				if oki && okj && len(si) > 0 && !intersects(si, sj) {
					l.add("DR303", cj.Line, cj.Index, "with force: true, condition #%d (line %d) keeps only providers that this then-part excludes: %s get no provider", i, ci.Line, describeWhen(cj.When))
					break
				}
			}
		}
	}
}

func intersects(a, b []int) bool {
	m := map[int]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if m[x] {
			return true
		}
	}
	return false
}

// forceNoProvider reports then-parts of a force rule that match no provider
// of the given list.
func (l *linter) forceNoProvider(r *condition.Rule) {
	for _, c := range r.Conditions {
		if !c.Parsed {
			continue
		}
		if r.Version == condition.V31 {
			if len(c.Targets) == 0 {
				continue // traffic-disabled is its own finding
			}
			any := false
			for _, t := range c.Targets {
				if t.Then == nil {
					any = true
					break
				}
				if s, ok := l.thenSet(t.Then.Text); !ok || len(s) > 0 {
					any = true
					break
				}
			}
			if !any {
				l.add("DR304", c.Line, c.Index, "force: true and no destination matches any of the %d providers: %s get no provider", len(l.opts.providers), describeWhen(c.When))
			}
			continue
		}
		if c.Then == nil {
			continue // blacklist is its own finding
		}
		if s, ok := l.thenSet(c.Then.Text); ok && len(s) == 0 {
			l.add("DR304", c.Line, c.Index, "force: true and then-part %q matches none of the %d providers: %s get no provider", c.Then.Text, len(l.opts.providers), describeWhen(c.When))
		}
	}
}

// thenSet evaluates a then-part over the provider list with the same
// compiled matcher the runtime uses (a single forced condition "=> then").
// ok is false when it cannot be decided (a $reference without --consumer).
func (l *linter) thenSet(then string) ([]int, bool) {
	if strings.Contains(then, "$") && l.opts.consumer == nil {
		return nil, false
	}
	r, err := condition.ParseCondition("=> "+then, true, true)
	if err != nil {
		return nil, false
	}
	urls := make([]*router.URL, len(l.opts.providers))
	for i, p := range l.opts.providers {
		urls[i] = p.u
	}
	u := router.NewUniverse(len(urls))
	out := r.Compile(u, l.opts.consumer, urls, condition.CompileOptions{}).Route(u.All(), &router.Call{}, nil)
	return out.AppendMembers(nil), true
}

var tagWarningCodes = []struct{ substr, code string }{
	{"rule has no tags", "DR202"},
	{"addresses is not a list", "DR203"},
	{"has no name", "DR204"},
	{"match is ignored because configVersion", "DR205"},
	{"match is ignored because the tag has addresses", "DR206"},
	{"empty match list", "DR207"},
	{"neither addresses nor match", "DR208"},
	{"has no key", "DR209"},
	{"has no value", "DR209"},
}

func (l *linter) tag(k rules.Key, content string) {
	r, err := tag.ParseRule(content)
	if err != nil {
		l.add("DR002", lineOf(err), -1, "%v", err)
		return
	}
	l.res.Summary = fmt.Sprintf("tag rule, %d tag(s), force=%t, enabled=%t", len(r.Tags), r.Force, r.Enabled)
	for _, f := range r.UnknownFields {
		l.add("DR101", f.Line, -1, "field %q is not part of a tag rule; Java ignores it", f.Path)
	}
	for _, w := range r.Warnings {
		code := "DR201"
		for _, tc := range tagWarningCodes {
			if strings.Contains(w.Message, tc.substr) {
				code = tc.code
				break
			}
		}
		l.add(code, w.Line, -1, "%s", w.Message)
	}
	l.keyChecks(k, r.Key, "")
}

// ---------------------------------------------------------------------------

func runLint(_ context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "lint", "[flags] FILE... | -",
		`Lint condition, tag and gray rules as the runtime would load them. Each file's
config-center key (which decides the rule kind) is its name without .yaml/.yml,
e.g. com.foo.Bar::.condition-router, demo-provider.tag-router; use --key for
stdin ("-") or other names. Every finding has a stable code (--codes lists
them), a severity, file:line and a one-line fix hint. Exit status 1 when any
error or warning is found (infos do not fail).`)
	key := fs.String("key", "", "config-center `key` of the rule(s), instead of the file name")
	asJSON := fs.Bool("json", false, "print findings as JSON")
	providersFile := fs.String("providers", "", "provider list `file` (JSON or one URL per line): enables force/no-provider and shadowing checks")
	consumer := fs.String("consumer", "", "consumer `url` for $references in then-parts (with --providers)")
	listCodes := fs.Bool("codes", false, "list every finding code and exit")
	files, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if *listCodes {
		return printCodes(sio, *asJSON)
	}
	if len(files) == 0 {
		return fs.usageErr("no rule file given (use - for stdin)")
	}
	var opts lintOptions
	if *providersFile != "" {
		ps, err := readProviders(*providersFile)
		if err != nil {
			return fail(sio, "lint", err)
		}
		opts.providers = ps
	}
	if *consumer != "" {
		u, err := router.ParseURL(*consumer)
		if err != nil {
			return fs.usageErr("--consumer: %v", err)
		}
		opts.consumer = u
	}
	var results []*LintResult
	failed := false
	for _, f := range files {
		content, name, err := readInput(sio, f)
		if err != nil {
			fail(sio, "lint", err)
			failed = true
			continue
		}
		k := *key
		if k == "" {
			if f == "-" {
				fail(sio, "lint", errors.New("stdin: no key: pass --key <config-center key>"))
				failed = true
				continue
			}
			k = keyFromFileName(f)
		}
		results = append(results, lintRule(name, k, content, opts))
	}
	e, w := printLint(sio, results, *asJSON)
	if failed || e+w > 0 {
		return ExitFail
	}
	return ExitOK
}

// readInput reads a file, or stdin for "-".
func readInput(sio Stdio, f string) (content, name string, err error) {
	if f == "-" {
		b, err := io.ReadAll(sio.In)
		if err != nil {
			return "", "<stdin>", fmt.Errorf("read stdin: %w", err)
		}
		return string(b), "<stdin>", nil
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return "", f, fmt.Errorf("read input: %w", err)
	}
	return string(b), f, nil
}

func printLint(sio Stdio, results []*LintResult, asJSON bool) (errs, warns int) {
	infos := 0
	for _, r := range results {
		e, w, i := r.counts()
		errs, warns, infos = errs+e, warns+w, infos+i
	}
	if asJSON {
		out := struct {
			Files    []*LintResult  `json:"files"`
			Summary  map[string]int `json:"summary"`
			Findings int            `json:"findings"`
		}{results, map[string]int{"errors": errs, "warnings": warns, "infos": infos}, errs + warns + infos}
		if out.Files == nil {
			out.Files = []*LintResult{}
		}
		enc := json.NewEncoder(sio.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return errs, warns
	}
	for _, r := range results {
		writeFindings(sio.Out, sio.Color, r)
	}
	fmt.Fprintf(sio.Out, "%d file(s): %d error(s), %d warning(s), %d info(s)\n", len(results), errs, warns, infos)
	return errs, warns
}

func writeFindings(w io.Writer, color bool, r *LintResult) {
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "%s: %s (%s)\n", r.File, paint(color, outcome.Green, "ok"), r.Summary)
		return
	}
	for _, f := range r.Findings {
		loc := r.File
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		sev := f.Severity
		switch sev {
		case SevError:
			sev = paint(color, outcome.Red+outcome.Bold, sev)
		case SevWarning:
			sev = paint(color, outcome.Yellow, sev)
		default:
			sev = paint(color, outcome.Blue, sev)
		}
		cond := ""
		if f.Condition != nil {
			cond = fmt.Sprintf(" condition #%d:", *f.Condition)
		}
		fmt.Fprintf(w, "%s: %s %s %s:%s %s\n", loc, sev, f.Code, f.Name, cond, f.Message)
		fmt.Fprintf(w, "    %s %s\n", paint(color, outcome.Dim, "fix:"), f.Hint)
	}
}

func printCodes(sio Stdio, asJSON bool) int {
	if asJSON {
		enc := json.NewEncoder(sio.Out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(Codes())
		return ExitOK
	}
	for _, c := range Codes() {
		fmt.Fprintf(sio.Out, "%s  %-8s %-28s %s\n", c.ID, c.Severity, c.Name, c.Hint)
	}
	return ExitOK
}
