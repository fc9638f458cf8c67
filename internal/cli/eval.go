package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/rules"
	"github.com/dubboroute/dubboroute/rules/assembly"
)

// ruleInput is one element of a case's "rules": a config-center rule
// {"key","content"} (content null: a delete), a single condition
// {"condition","force","enabled"}, or a registry router URL {"url"}.
type ruleInput struct {
	Key       *string `json:"key,omitempty"`
	Content   *string `json:"content,omitempty"`
	Condition *string `json:"condition,omitempty"`
	Force     *bool   `json:"force,omitempty"`
	Enabled   *bool   `json:"enabled,omitempty"`
	URL       *string `json:"url,omitempty"`
}

// invocationInput is a case's "invocation".
type invocationInput struct {
	Method      string                     `json:"method"`
	Arguments   []json.RawMessage          `json:"arguments"`
	Attachments map[string]json.RawMessage `json:"attachments"`
}

// Case is one routing case of the route command (the contract shared with
// the Java oracle in integration/java).
type Case struct {
	ID          json.RawMessage `json:"id"`
	Rules       []ruleInput     `json:"rules"`
	ConsumerURL string          `json:"consumer_url"`
	Invocation  invocationInput `json:"invocation"`
	Providers   []provider      `json:"providers"`
	Samples     *int            `json:"samples,omitempty"`
	// Affinity puts Java's service affinity router (order 130) in the chain,
	// as an application that registers its factory does (Java 3.3.6 does
	// not by default; dubboroute's reference parameter dubboroute.affinity).
	Affinity     *bool `json:"affinity,omitempty"`
	Destinations *bool `json:"destinations,omitempty"`
	// RegistryConfigurators are the URLs under the registry's
	// <interface>/configurators node (Dubbo 2.6 override:// and absent://
	// URLs, decoded), as the consumer's registry notifies them: applied
	// before the config-center lists (configurator.RegistryList).
	RegistryConfigurators []string `json:"registry_configurators,omitempty"`
	// Ignored: free-form fields a test harness may carry.
	Comment  json.RawMessage `json:"comment,omitempty"`
	Expect   json.RawMessage `json:"expect,omitempty"`
	Expected json.RawMessage `json:"expected,omitempty"`
}

// RegistryConfiguratorsKey names the registry's override:// URLs where a
// result names the configurator list that disabled a provider.
const RegistryConfiguratorsKey = "registry"

// The reports of a case (the contract shared with the Java oracle): the
// assembly of a reference's rules decides them (package rules/assembly).
type (
	// Rejection is a rule the runtime would not apply because it fails to parse.
	Rejection = assembly.Rejection
	// Unread is a config-center key no router of this consumer reads.
	Unread = assembly.Unread
	// Ignored is a rule Java accepts but does not apply: the previous rule
	// of the key stays in force, without an error.
	Ignored = assembly.Ignored
	// Reports are a case's rejections, ignored rules and unread keys.
	Reports = assembly.Reports
)

// prepared is a case ready to route: the parsed consumer, providers and
// call, and the rules assembled into the chain's slots by the assembly the
// runtime uses too (package rules/assembly): per key, the last accepted
// content; the provider-app slot holds whichever of the consumer-app and
// provider-app rules changed last (Java's ProviderAppStateRouter quirk).
type prepared struct {
	consumer    *router.URL
	providers   []provider
	urls        []*router.URL
	call        router.Call
	rules       cluster.Rules
	extras      []cluster.ExtraRouter
	gray        *gray.Rule
	grayKey     string
	grayVersion string
	// providerApp and earlierApp: see assembly.Batch.
	providerApp, earlierApp string
	affinity                bool
	reports                 Reports
	// cfg are the consumer's configurator lists; index maps the members of
	// the last evaluated snapshot to providers (disabled ones are not
	// members); snap is that snapshot.
	cfg   configurator.Lists
	index []int
	snap  *cluster.Snapshot
	// hasConfigurators: the case has a .configurators key.
	hasConfigurators bool
}

func prepare(c *Case, grayRead bool) (*prepared, error) {
	if strings.TrimSpace(c.ConsumerURL) == "" {
		return nil, errors.New("consumer_url: missing")
	}
	consumer, err := router.ParseURL(c.ConsumerURL)
	if err != nil {
		return nil, fmt.Errorf("consumer_url: %w", err)
	}
	if err := resolveProviders(c.Providers); err != nil {
		return nil, fmt.Errorf("providers: %w", err)
	}
	p := &prepared{consumer: consumer, providers: c.Providers, affinity: c.Affinity != nil && *c.Affinity}
	for _, pr := range c.Providers {
		p.urls = append(p.urls, pr.u)
	}
	call, err := buildCall(&c.Invocation)
	if err != nil {
		return nil, fmt.Errorf("invocation: %w", err)
	}
	p.call = call
	if c.RegistryConfigurators != nil {
		var urls []*router.URL
		for i, raw := range c.RegistryConfigurators {
			u, err := router.ParseURL(raw)
			if err != nil {
				return nil, fmt.Errorf("registry_configurators[%d]: %w", i, err)
			}
			urls = append(urls, u)
		}
		l, err := configurator.RegistryList(consumer, urls, configurator.Origin{Key: RegistryConfiguratorsKey})
		if err != nil {
			return nil, fmt.Errorf("registry_configurators: %w", err)
		}
		p.cfg[configurator.ListRegistry] = l
		p.hasConfigurators = true
	}
	if err := p.assemble(c.Rules, grayRead); err != nil {
		return nil, err
	}
	return p, nil
}

// buildCall turns the JSON invocation into the call the chain sees, through
// a dubbo-go invocation and cluster.CallOf, as the runtime does.
func buildCall(in *invocationInput) (router.Call, error) {
	args := make([]any, len(in.Arguments))
	for i, raw := range in.Arguments {
		v, err := JavaValue(raw)
		if err != nil {
			return router.Call{}, fmt.Errorf("arguments[%d]: %w", i, err)
		}
		args[i] = v
	}
	atts := map[string]any{}
	for k, raw := range in.Attachments {
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			atts[k] = s
			continue
		}
		t := strings.TrimSpace(string(raw))
		if t == "null" {
			continue
		}
		atts[k] = t // numbers and booleans as written, as the oracle's getAsString
	}
	inv := invocation.NewRPCInvocation(in.Method, args, atts)
	return cluster.CallOf(inv), nil
}

// JavaValue decodes a JSON argument into the value a Java consumer would
// pass, as the route command does for a case's arguments: integers as
// int64, other numbers as float64 (rendered like Java's Double.toString),
// strings, booleans, nil, []any and map[string]any.
func JavaValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON value: %w", err)
	}
	return convertNumbers(v), nil
}

func convertNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	case []any:
		for i := range x {
			x[i] = convertNumbers(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = convertNumbers(x[k])
		}
		return x
	}
	return v
}

// assemble applies the rules in input order: single conditions and router
// URLs become extra routers here; keyed rules go to the assembly of the
// reference's rules (rules/assembly), which the running consumer uses too.
// The first content of every key is in place before the chain is built
// (the initial read); later contents of the same key are change events,
// applied in input order.
//
// With grayRead false (route), gray keys are reported as unread without being
// parsed, as the Java oracle reports them: gray rules do not change which
// providers are eligible. explain reads them.
func (p *prepared) assemble(inputs []ruleInput, grayRead bool) error {
	var events []assembly.Event
	for i, r := range inputs {
		switch {
		case r.Key != nil:
			if r.Condition != nil || r.URL != nil || r.Force != nil || r.Enabled != nil {
				return fmt.Errorf("rules[%d]: a keyed rule has only \"key\" and \"content\"", i)
			}
			k, err := rules.ParseKey(*r.Key)
			if err != nil {
				return fmt.Errorf("rules[%d]: %w", i, err)
			}
			events = append(events, assembly.Event{Index: i, Key: k, Content: r.Content})
		case r.Condition != nil:
			if r.URL != nil || r.Content != nil {
				return fmt.Errorf("rules[%d]: a single condition has only \"condition\", \"force\" and \"enabled\"", i)
			}
			force := r.Force != nil && *r.Force
			enabled := r.Enabled == nil || *r.Enabled
			cr, err := condition.ParseCondition(*r.Condition, force, enabled)
			if err != nil {
				p.reports.Rejected = append(p.reports.Rejected, Rejection{Rule: i, Error: err.Error()})
				continue
			}
			p.extras = append(p.extras, cluster.ExtraRouter{Name: fmt.Sprintf("condition[%d]", i), Rule: cr})
		case r.URL != nil:
			if r.Content != nil || r.Force != nil || r.Enabled != nil {
				return fmt.Errorf("rules[%d]: a router URL rule has only \"url\"", i)
			}
			cr, err := condition.ParseRouterURL(*r.URL)
			if err != nil {
				p.reports.Rejected = append(p.reports.Rejected, Rejection{Rule: i, Error: err.Error()})
				continue
			}
			p.extras = append(p.extras, cluster.ExtraRouter{Name: fmt.Sprintf("url[%d]", i), Rule: cr})
		default:
			return fmt.Errorf("rules[%d]: unknown rule shape (want {\"key\",\"content\"}, {\"condition\",\"force\",\"enabled\"} or {\"url\"})", i)
		}
	}
	ref := &assembly.Reference{Consumer: p.consumer, App: p.consumer.Application(), Affinity: p.affinity}
	b := ref.Assemble(p.urls, p.cfg[configurator.ListRegistry], events, grayRead)
	p.rules, p.cfg = b.Rules, b.Configurators
	p.hasConfigurators = p.hasConfigurators || b.HasConfigurators
	p.gray, p.grayKey, p.grayVersion = b.Gray, b.GrayKey, b.GrayVersion
	p.providerApp, p.earlierApp = b.ProviderApp, b.EarlierApp
	p.reports.Add(b.Reports)
	return nil
}

// evaluator compiles the prepared case with rnd for v3.1 picks.
func (p *prepared) evaluator(rnd router.Rand) *cluster.Evaluator {
	opts := cluster.Options{Rand: rnd}
	var cfg *configurator.Lists
	if !p.cfg.Empty() {
		cfg = &p.cfg
	}
	snap, index := cluster.NewConfiguredSnapshot(p.consumer, p.urls, p.rules, cfg, opts)
	p.index, p.snap = index, snap
	return cluster.NewEvaluator(snap, p.extras, opts)
}

// ids lists the provider ids of a set, in input order.
func (p *prepared) ids(s *router.Set) []string {
	out := make([]string, 0, s.Len())
	s.ForEach(func(i int) { out = append(out, p.providers[p.member(i)].ID) })
	return out
}

// member is the provider index of snapshot member i.
func (p *prepared) member(i int) int {
	if p.index != nil && i < len(p.index) {
		return p.index[i]
	}
	return i
}

// reportConfigured fills the weights and disabled providers of a result
// from the last evaluated snapshot.
func (p *prepared) reportConfigured(res *Result) {
	if p.snap == nil {
		p.evaluator(nil)
	}
	s := p.snap
	res.Weights = map[string]string{}
	for i := range s.URLs {
		var prov *configurator.Provider
		if i < len(s.Configured) {
			prov = s.Configured[i]
		}
		if prov == nil {
			prov = &configurator.Provider{URL: s.URLs[i], Consumer: p.consumer}
		}
		res.Weights[p.providers[p.member(i)].ID] = prov.Weight(p.call.Method)
	}
	byURL := map[*router.URL]string{}
	for i, u := range p.urls {
		byURL[u] = p.providers[i].ID
	}
	for _, d := range s.Disabled {
		info := DisabledInfo{ID: byURL[d.URL]}
		if d.Provider != nil {
			if by := d.Provider.DisabledBy(); by != nil {
				info.Key = by.Configurator.Origin.Key
			}
		}
		res.Disabled = append(res.Disabled, info)
	}
}

// configuredInfo lists what the configurators did in the last evaluated
// snapshot: the consumer URL, every changed provider, every disabled one.
func (p *prepared) configuredInfo() []ConfiguredInfo {
	s := p.snap
	if s == nil {
		return nil
	}
	by := func(as []configurator.Applied) []string {
		out := make([]string, 0, len(as))
		for _, a := range as {
			out = append(out, configurator.ListNames[a.List]+" "+a.Configurator.Origin.String())
		}
		return out
	}
	var out []ConfiguredInfo
	if len(s.ConsumerApplied) > 0 {
		ci := ConfiguredInfo{ID: "consumer", By: by(s.ConsumerApplied), Params: map[string]string{}}
		for _, a := range s.ConsumerApplied {
			for k := range a.Configurator.Params() {
				if v, ok := s.Consumer.Params.Get(k); ok {
					ci.Params[k] = v
				}
			}
		}
		out = append(out, ci)
	}
	for i, pr := range s.Configured {
		if pr == nil || len(pr.Applied) == 0 {
			continue
		}
		out = append(out, ConfiguredInfo{ID: p.providers[p.member(i)].ID, By: by(pr.Applied), Params: pr.Changed()})
	}
	byURL := map[*router.URL]string{}
	for i, u := range p.urls {
		byURL[u] = p.providers[i].ID
	}
	for _, d := range s.Disabled {
		ci := ConfiguredInfo{ID: byURL[d.URL], Disabled: true, By: []string{"its own enabled/disabled parameter"}}
		if d.Provider != nil && len(d.Provider.Applied) > 0 {
			ci.By, ci.Params = by(d.Provider.Applied), d.Provider.Changed()
		}
		out = append(out, ci)
	}
	return out
}
