package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/cluster/mock"
	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/internal/outcome"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/rules"
)

// Explanation is explain's answer (its --json form).
type Explanation struct {
	Consumer  string     `json:"consumer_url"`
	Method    string     `json:"method"`
	Arguments []string   `json:"arguments"`
	Attach    []string   `json:"attachments,omitempty"`
	Providers []provider `json:"providers"`
	Rules     []RuleInfo `json:"rules"`
	// Reports are printed as the fields rejected, ignored and unread.
	Reports
	Trace    []router.Step `json:"trace"`
	Eligible []string      `json:"eligible"`
	Gray     *GrayInfo     `json:"gray,omitempty"`
	// Configured is what dynamic configuration did before any router:
	// per provider (and for the consumer URL, id "consumer") the
	// configurators that applied and the parameters they changed, or that
	// they left the provider out.
	Configured []ConfiguredInfo `json:"configured,omitempty"`
	// Mock is the service downgrade the configured consumer URL asks for
	// this method (nil: none), as Java's MockClusterInvoker reads it.
	Mock *MockInfo `json:"mock,omitempty"`
}

// MockInfo says how a call is downgraded.
type MockInfo struct {
	// Value is the mock parameter in force (<method>.mock or mock).
	Value string `json:"value"`
	// Mode is force (no provider is called) or fail (only failed calls).
	Mode string `json:"mode"`
	// Action is what the mock does: return <value>, throw [<class>] or the
	// mock implementation called.
	Action string `json:"action"`
}

// mockInfo reads the consumer URL's mock for method.
func mockInfo(consumer *router.URL, method string) *MockInfo {
	if consumer == nil {
		return nil
	}
	v := mock.ValueOf(urlParams{consumer}, method)
	mode := mock.ModeOf(v)
	if mode == mock.None {
		return nil
	}
	mi := &MockInfo{Value: v, Mode: mode.String()}
	a, err := mock.Parse(v)
	switch {
	case err != nil:
		mi.Action = "invalid: " + err.Error()
	case a.Kind == mock.Return:
		mi.Action = "return " + a.Text
	case a.Kind == mock.Throw:
		mi.Action = strings.TrimSpace("throw " + a.Text)
	default:
		mi.Action = "mock implementation " + a.Text
	}
	return mi
}

type urlParams struct{ u *router.URL }

func (p urlParams) Param(k string) string { return p.u.Params.Value(k) }

// ConfiguredInfo is what the configurators did to one provider (or to the
// consumer URL).
type ConfiguredInfo struct {
	ID       string            `json:"id"`
	Disabled bool              `json:"disabled,omitempty"`
	By       []string          `json:"by"`
	Params   map[string]string `json:"params,omitempty"`
}

// RuleInfo names one rule the explanation read.
type RuleInfo struct {
	Key    string `json:"key"`
	Source string `json:"source"`
}

type explainFlags struct {
	rulesDir, providers, consumer        string
	service, version, group, app, method string
	args, attach                         multiFlag
	zk, root, group2, registryRoot       string
	sec                                  zkSecFlags
	nacos, namespace, nacosAuth          string
	timeout                              time.Duration
	asJSON                               bool
	seed                                 uint64
	now                                  string
}

func runExplain(ctx context.Context, sio Stdio, argv []string) int {
	fs := newFlags(sio, "explain", "[flags]",
		`Explain, router by router, which providers a call may reach and why: the
same evaluation as route, printed as a tree (router -> in/out -> branch ->
rule key/version, and each condition), ending with the eligible providers and,
when a gray rule exists, the pool and delegate balancer that would pick.

From files:   --rules DIR --providers FILE (--consumer URL | --service IFACE --app APP)
Live:         --zk HOST:PORT --service IFACE --app APP [--version V --group G]
              --nacos HOST:PORT (--zk HOST:PORT | --providers FILE) --service IFACE --app APP
In DIR every file is one rule named by its config-center key (optionally with
.yaml/.yml). Providers in FILE: a JSON array of {"id","url"} or URL strings, or
one URL per line. Live, the providers are read from /dubbo/<iface>/providers
(--zk) and the rules from the config center at the keys this consumer would
read: ZooKeeper (--zk), or Nacos (--nacos: dataId = key, group --config-group,
namespace --namespace) when given. The explanation names where each rule came
from.`)
	var f explainFlags
	fs.StringVar(&f.rulesDir, "rules", "", "`dir`ectory of rule files named by their keys")
	fs.StringVar(&f.providers, "providers", "", "provider list `file`")
	fs.StringVar(&f.consumer, "consumer", "", "consumer `url` (default: built from --service, --app, --version, --group)")
	fs.StringVar(&f.service, "service", "", "`interface` of the service")
	fs.StringVar(&f.version, "version", "", "service `version`")
	fs.StringVar(&f.group, "group", "", "service `group`")
	fs.StringVar(&f.app, "app", "", "consumer `application`")
	fs.StringVar(&f.method, "method", "", "`method` called")
	fs.Var(&f.args, "arg", "call argument `value` (string; repeat for each argument)")
	fs.Var(&f.attach, "attach", "invocation attachment `k=v` (repeatable), e.g. dubbo.tag=gray or userId=7")
	fs.StringVar(&f.zk, "zk", "", "ZooKeeper `host:port` (comma-separated ensemble) for a live explanation")
	addZKSecFlags(fs, &f.sec, false)
	fs.StringVar(&f.root, "root", zookeeper.DefaultRoot, "config-center root `path`")
	fs.StringVar(&f.group2, "config-group", zookeeper.DefaultGroup, "config-center `group`")
	fs.StringVar(&f.registryRoot, "registry-root", zookeeper.DefaultRegistryRoot, "registry root `path` of provider nodes")
	fs.StringVar(&f.nacos, "nacos", "", "Nacos `host:port` to read the rules from (providers still from --zk or --providers)")
	fs.StringVar(&f.namespace, "namespace", "", "Nacos `namespace` id of the rules (default public)")
	fs.StringVar(&f.nacosAuth, "nacos-auth", "", "Nacos credentials `user:pass`")
	fs.DurationVar(&f.timeout, "timeout", zookeeper.DefaultTimeout, "connect and read `timeout`")
	fs.BoolVar(&f.asJSON, "json", false, "print the explanation as JSON")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for weighted and gray picks (0: random)")
	fs.StringVar(&f.now, "now", "", "evaluate gray time conditions and ramps at this RFC 3339 `time` (default: now)")
	pos, code, ok := fs.parse(argv)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fs.usageErr("unexpected argument %q", pos[0])
	}
	if f.method == "" {
		return fs.usageErr("--method is required")
	}
	now := time.Now
	if f.now != "" {
		t, err := time.Parse(time.RFC3339, f.now)
		if err != nil {
			return fs.usageErr("--now: %v", err)
		}
		now = func() time.Time { return t }
	}
	consumer := f.consumer
	if consumer == "" {
		if f.service == "" || f.app == "" {
			return fs.usageErr("give --consumer, or --service and --app")
		}
		consumer = consumerURL(f.service, f.app, f.version, f.group)
	}
	c := &Case{ID: json.RawMessage(`"explain"`), ConsumerURL: consumer}
	c.Invocation.Method = f.method
	for _, a := range f.args {
		b, _ := json.Marshal(a)
		c.Invocation.Arguments = append(c.Invocation.Arguments, b)
	}
	c.Invocation.Attachments = map[string]json.RawMessage{}
	for _, kv := range f.attach {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fs.usageErr("--attach %q: want key=value", kv)
		}
		b, _ := json.Marshal(v)
		c.Invocation.Attachments[k] = b
	}
	var infos []RuleInfo
	switch {
	case f.zk != "" || f.nacos != "":
		if f.rulesDir != "" {
			return fs.usageErr("--zk and --nacos read the rules from the config center: drop --rules")
		}
		if f.zk != "" && f.providers != "" {
			return fs.usageErr("--zk reads the providers from ZooKeeper: drop --providers")
		}
		if f.zk == "" && f.providers == "" {
			return fs.usageErr("--nacos reads only the rules: give the providers with --zk or --providers FILE")
		}
		if f.service == "" {
			return fs.usageErr("live explain needs --service")
		}
		var err error
		infos, err = loadLive(ctx, c, &f)
		if err != nil {
			return fail(sio, "explain", err)
		}
	default:
		if f.providers == "" {
			return fs.usageErr("give --providers FILE (and --rules DIR), or --zk")
		}
		ps, err := readProviders(f.providers)
		if err != nil {
			return fail(sio, "explain", err)
		}
		c.Providers = ps
		if f.rulesDir != "" {
			infos, err = loadRulesDir(c, f.rulesDir)
			if err != nil {
				return fail(sio, "explain", err)
			}
		}
	}
	ex, err := explainCase(c, infos, randFor(f.seed), now)
	if err != nil {
		return fail(sio, "explain", err)
	}
	if f.asJSON {
		enc := json.NewEncoder(sio.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(ex)
	} else {
		writeExplanation(sio.Out, sio.Color, ex)
	}
	return ExitOK
}

// consumerURL is the consumer URL Java would build for a reference.
func consumerURL(service, app, version, group string) string {
	q := url.Values{}
	q.Set("application", app)
	q.Set("interface", service)
	q.Set("side", "consumer")
	if version != "" {
		q.Set("version", version)
	}
	if group != "" {
		q.Set("group", group)
	}
	// Dubbo URL parameters are not encoded here; keep them readable.
	var parts []string
	for _, k := range []string{"application", "group", "interface", "side", "version"} {
		if v := q.Get(k); v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	return "consumer://127.0.0.1/" + service + "?" + strings.Join(parts, "&")
}

// loadRulesDir reads every rule file of dir (sorted by name) into c.Rules.
func loadRulesDir(c *Case, dir string) ([]RuleInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read rules: %w", err)
	}
	var infos []RuleInfo
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		key := keyFromFileName(e.Name())
		if _, err := rules.ParseKey(key); err != nil {
			continue // not a rule file (README, ...)
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read rule: %w", err)
		}
		content := string(b)
		k := key
		c.Rules = append(c.Rules, ruleInput{Key: &k, Content: &content})
		infos = append(infos, RuleInfo{Key: key, Source: path})
	}
	return infos, nil
}

// loadLive reads the providers and the rules this consumer would read.
// loadLive reads the providers (from ZooKeeper, or the --providers file)
// and the rules this consumer would read (from ZooKeeper or Nacos).
func loadLive(ctx context.Context, c *Case, f *explainFlags) ([]RuleInfo, error) {
	var st ruleStore
	if f.zk != "" {
		cl, err := dialZK(f.zk, f.root, f.group2, f.registryRoot, f.timeout, &f.sec)
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		if err := liveProviders(ctx, c, f, cl); err != nil {
			return nil, err
		}
		st = zkStore{cl}
	} else {
		ps, err := readProviders(f.providers)
		if err != nil {
			return nil, err
		}
		c.Providers = ps
	}
	if f.nacos != "" {
		ns, err := dialNacosStore(f.nacos, f.namespace, f.group2, f.nacosAuth, f.timeout)
		if err != nil {
			return nil, err
		}
		defer ns.Close()
		st = ns
	}
	if err := resolveProviders(c.Providers); err != nil {
		return nil, err
	}
	return liveRules(ctx, c, st)
}

// liveProviders reads the providers of the service from ZooKeeper.
func liveProviders(ctx context.Context, c *Case, f *explainFlags, cl *zookeeper.Client) error {
	wctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	ch, err := cl.WatchProviders(wctx, f.service)
	if err != nil {
		return fmt.Errorf("providers of %s: %w", f.service, err)
	}
	var state zookeeper.Providers
	select {
	case st, ok := <-ch:
		if !ok {
			return fmt.Errorf("providers of %s: watch ended before the first read", f.service)
		}
		state = st
	case <-wctx.Done():
		return fmt.Errorf("providers of %s: no answer within %v", f.service, f.timeout)
	}
	for _, u := range state.URLs {
		if !matchesService(u, f.version, f.group) {
			continue
		}
		raw := u.Raw()
		if raw == "" {
			raw = u.String()
		}
		c.Providers = append(c.Providers, provider{URL: raw})
	}
	if len(c.Providers) == 0 {
		return fmt.Errorf("no provider of %s (version %q, group %q) under %s", f.service, f.version, f.group, state.Path)
	}
	return nil
}

// liveRules reads, from st, the rule keys a consumer of c's providers
// reads, and names where each came from.
func liveRules(ctx context.Context, c *Case, st ruleStore) ([]RuleInfo, error) {
	if len(c.Providers) == 0 {
		return nil, errors.New("no provider given")
	}
	consumer, err := router.ParseURL(c.ConsumerURL)
	if err != nil {
		return nil, fmt.Errorf("consumer url: %w", err)
	}
	papp := c.Providers[0].u.Application()
	keys := []string{consumer.ServiceKey() + rules.ConditionSuffix, consumer.ServiceKey() + rules.ConfiguratorsSuffix}
	if a := consumer.Application(); a != "" {
		keys = append(keys, a+rules.ConditionSuffix, a+rules.ConfiguratorsSuffix)
	}
	if papp != "" {
		keys = append(keys, papp+rules.ConditionSuffix, papp+rules.TagSuffix, papp+rules.GraySuffix)
	}
	// Mesh rules: the key of every provider application (Java's mesh router).
	for _, p := range c.Providers {
		if a := p.u.Application(); a != "" && a != "unknown" {
			keys = append(keys, a+rules.MeshSuffix)
		}
	}
	var infos []RuleInfo
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		content, _, err := st.Get(ctx, k)
		if errors.Is(err, errNoRule) || (err == nil && strings.TrimSpace(content) == "") {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("rule %s: %w", k, err)
		}
		key, text := k, content
		c.Rules = append(c.Rules, ruleInput{Key: &key, Content: &text})
		src := st.Where(k)
		if _, ok := st.(zkStore); ok {
			src = "zookeeper " + src
		}
		infos = append(infos, RuleInfo{Key: k, Source: src})
	}
	return infos, nil
}

// matchesService is the registry's version/group filter (UrlUtils.isMatch):
// equal values, or "*" on the consumer side.
func matchesService(u *router.URL, version, group string) bool {
	ok := func(want, have string) bool { return want == "*" || want == have }
	return ok(version, u.Params.Value("version")) && ok(group, u.Params.Value("group"))
}

// explainCase evaluates the case like route and adds the gray decision.
func explainCase(c *Case, infos []RuleInfo, rnd router.Rand, now func() time.Time) (*Explanation, error) {
	p, err := prepare(c, true)
	if err != nil {
		return nil, err
	}
	ev := p.evaluator(rnd)
	tr := &router.Trace{}
	set := ev.RouteSet(&p.call, tr)
	ex := &Explanation{
		Consumer: c.ConsumerURL, Method: p.call.Method, Providers: p.providers,
		Rules: infos, Reports: p.reports,
		Trace: tr.Steps, Eligible: p.ids(set),
	}
	if ex.Rules == nil {
		ex.Rules = []RuleInfo{}
	}
	if ex.Rejected == nil {
		ex.Rejected = []Rejection{}
	}
	for _, a := range p.call.Args {
		ex.Arguments = append(ex.Arguments, fmt.Sprint(a))
	}
	if ex.Arguments == nil {
		ex.Arguments = []string{}
	}
	var keys []string
	for k := range c.Invocation.Attachments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := p.call.Attachment(k)
		ex.Attach = append(ex.Attach, k+"="+v)
	}
	ex.Configured = p.configuredInfo()
	consumer := p.consumer
	if p.snap != nil && p.snap.Consumer != nil {
		consumer = p.snap.Consumer
	}
	ex.Mock = mockInfo(consumer, p.call.Method)
	if p.gray != nil && !set.Empty() {
		var eligible []*router.URL
		var ids []string
		set.ForEach(func(i int) {
			eligible = append(eligible, p.urls[p.member(i)])
			ids = append(ids, p.providers[p.member(i)].ID)
		})
		plan := gray.Compile(gray.Input{Rule: p.gray, Consumer: p.consumer, Providers: eligible}, gray.Options{Rand: rnd, Now: now})
		g := &GrayInfo{Key: p.grayKey, Version: p.grayVersion}
		idx, err := plan.Pick(&p.call, &g.Decision)
		if err != nil {
			g.Error = err.Error()
		} else if idx >= 0 && idx < len(ids) {
			g.Picked = ids[idx]
		}
		gp, np := plan.Pools()
		g.Pools = map[string]int{"gray": gp, "normal": np}
		ex.Gray = g
	}
	return ex, nil
}

func writeExplanation(w io.Writer, color bool, ex *Explanation) {
	bold := func(s string) string { return paint(color, outcome.Bold, s) }
	fmt.Fprintf(w, "%s %s(%s)", bold("call"), ex.Method, strings.Join(ex.Arguments, ", "))
	if len(ex.Attach) > 0 {
		fmt.Fprintf(w, " attachments %s", strings.Join(ex.Attach, " "))
	}
	fmt.Fprintf(w, "\n%s %s\n", bold("consumer"), ex.Consumer)
	fmt.Fprintf(w, "%s %d\n", bold("providers"), len(ex.Providers))
	for _, p := range ex.Providers {
		fmt.Fprintf(w, "  %-16s %s\n", p.ID, p.URL)
	}
	fmt.Fprintf(w, "%s %d\n", bold("rules"), len(ex.Rules))
	for _, r := range ex.Rules {
		fmt.Fprintf(w, "  %-40s %s\n", r.Key, paint(color, outcome.Dim, r.Source))
	}
	for _, r := range ex.Rejected {
		fmt.Fprintf(w, "  %s rules[%d]: %s\n", paint(color, outcome.Red, "rejected"), r.Rule, r.Error)
	}
	for _, r := range ex.Ignored {
		fmt.Fprintf(w, "  %s rules[%d]: %s\n", paint(color, outcome.Yellow, "ignored"), r.Rule, r.Reason)
	}
	for _, r := range ex.Unread {
		fmt.Fprintf(w, "  %s %s: %s\n", paint(color, outcome.Yellow, "unread"), r.Key, r.Reason)
	}
	if len(ex.Configured) > 0 {
		fmt.Fprintf(w, "%s\n", bold("configurators"))
		for _, ci := range ex.Configured {
			what := ""
			if ci.Disabled {
				what = paint(color, outcome.Red, "disabled") + " "
			}
			var ps []string
			for k, v := range ci.Params {
				ps = append(ps, k+"="+v)
			}
			sort.Strings(ps)
			fmt.Fprintf(w, "  %-16s %s%s  %s\n", ci.ID, what, strings.Join(ps, " "), paint(color, outcome.Dim, "by "+strings.Join(ci.By, ", ")))
		}
	}
	if m := ex.Mock; m != nil {
		what := "only failed calls are mocked"
		if m.Mode == "force" {
			what = "no provider is called"
		}
		fmt.Fprintf(w, "%s %s: %s (%s; mock=%s)\n", bold("mock"), paint(color, outcome.Yellow, m.Mode), m.Action, what, m.Value)
	}
	fmt.Fprintf(w, "%s\n", bold("route"))
	WriteTrace(w, color, ex.Trace)
	fmt.Fprintf(w, "%s (%d)\n", bold("eligible"), len(ex.Eligible))
	byID := map[string]string{}
	for _, p := range ex.Providers {
		byID[p.ID] = p.URL
	}
	for _, id := range ex.Eligible {
		fmt.Fprintf(w, "  %-16s %s\n", paint(color, outcome.Green, id), byID[id])
	}
	if g := ex.Gray; g != nil {
		d := g.Decision
		class := "normal"
		if d.Gray {
			class = "gray"
		}
		fmt.Fprintf(w, "%s [%s %s]\n", bold("gray"), g.Key, g.Version)
		fmt.Fprintf(w, "  request %s: %s\n", class, d.Reason)
		fmt.Fprintf(w, "  pools gray %d, normal %d → %s\n", g.Pools["gray"], g.Pools["normal"], d.Branch)
		if g.Error != "" {
			fmt.Fprintf(w, "  %s %s\n", paint(color, outcome.Red, "no pick:"), g.Error)
		} else {
			fmt.Fprintf(w, "  delegate %s picks %s\n", d.Delegate, paint(color, outcome.Green, g.Picked))
		}
	}
}
