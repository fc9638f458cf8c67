package configurator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/javayaml"
	"github.com/dubboroute/dubboroute/router"
)

// ParseError is a rejected configurator rule: the field and YAML line at
// fault (Line 0 when the text has no position, e.g. empty content).
type ParseError struct {
	Field string
	Line  int
	Msg   string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("configurators rule")
	if e.Line > 0 {
		fmt.Fprintf(&b, ", line %d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(", ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func perr(n *yaml.Node, field, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &ParseError{Field: field, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Finding is something Java accepts silently that a user should know: a
// rule part that never applies.
type Finding struct {
	Line    int    `json:"line"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Rule is one parsed configurators value.
type Rule struct {
	// Key is the config-center key the rule was parsed for ("" if none).
	Key string
	// Form is "yaml" or "json-urls".
	Form string
	// ConfigVersion, Scope, RuleKey and Enabled are the YAML top-level
	// fields (RuleKey is the rule's own key field).
	ConfigVersion string
	Scope         string
	RuleKey       string
	Enabled       bool
	// keyNull: the key field is missing or YAML null (Java's getKey() is
	// null, which an application-scope item appends as the text "null").
	keyNull bool
	// URLs are what Java's ConfigParser returns, in its order.
	URLs []*Configurator
	// List is URLs after Configurator.toConfigurators (sorted, empty://
	// handled). Keep reports ok=false from it: the input produced no URL,
	// and Java keeps the configurators it had.
	List List
	Keep bool
	// Findings are silent no-ops Java accepts (lint shows them).
	Findings []Finding
}

// Parse parses a configurators value as Java's AbstractConfiguratorListener
// does (ConfigParser.parseConfigurators, then toConfigurators), for the
// config-center key key (used in origins; may be empty). A rule Java fails
// to parse (and keeps the previous configurators for) is an error naming
// the field and line. Empty content is such an error too: in Java only a
// delete clears configurators.
func Parse(key, content string) (*Rule, error) {
	if strings.TrimSpace(content) == "" {
		return nil, &ParseError{Msg: "empty content (Java fails to parse it and keeps the previous configurators; only a delete clears them)"}
	}
	r := &Rule{Key: key, Enabled: true}
	if urls, ok := parseJSONArray(content); ok {
		r.Form = "json-urls"
		for i, s := range urls {
			u, err := parseJavaURL(s)
			if err != nil {
				return nil, &ParseError{Field: fmt.Sprintf("[%d]", i), Line: 1, Msg: err.Error()}
			}
			r.URLs = append(r.URLs, &Configurator{URL: u, Origin: Origin{Key: key, Item: i, Line: 1}})
		}
	} else {
		r.Form = "yaml"
		// Java's ConfigParser loads YAML with SnakeYAML's default limits,
		// as every other rule kind is read (a JSON array is not YAML).
		if err := javayaml.Check(content); err != nil {
			var le *javayaml.Error
			if errors.As(err, &le) {
				return nil, &ParseError{Line: le.Line, Msg: le.Msg}
			}
			return nil, &ParseError{Msg: err.Error()}
		}
		if err := r.parseYAML(content); err != nil {
			return nil, err
		}
	}
	// AbstractConfiguratorListener strips these "security keys" first.
	for _, c := range r.URLs {
		for _, k := range securityKeys {
			if _, ok := c.URL.Params.Get(k); ok {
				cp := *c.URL
				cp.Params = router.ParamsOf(make(map[string]string, c.URL.Params.Len()))
				for pk, pv := range c.URL.Params.All() {
					if !isSecurityKey(pk) {
						cp.Params.Set(pk, pv)
					}
				}
				c.URL = &cp
				break
			}
		}
	}
	list, ok, err := ToList(r.URLs)
	if err != nil {
		return nil, err
	}
	r.List, r.Keep = list, !ok
	return r, nil
}

// securityKeys are removed from every configurator URL of a rule
// (AbstractConfiguratorListener.initSecurityKey).
var securityKeys = []string{"accesslog.fixed.path", "router", "rule", "runtime", "type"}

func isSecurityKey(k string) bool {
	for _, s := range securityKeys {
		if s == k {
			return true
		}
	}
	return false
}

// parseJSONArray is ConfigParser.parseJsonArray: a non-empty JSON array of
// strings.
func parseJSONArray(content string) ([]string, bool) {
	t := strings.TrimSpace(content)
	if !strings.HasPrefix(t, "[") {
		return nil, false
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(t), &raw); err != nil || len(raw) == 0 {
		return nil, false
	}
	out := make([]string, 0, len(raw))
	for _, m := range raw {
		var s string
		if err := json.Unmarshal(m, &s); err != nil {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// parseJavaURL is URL.valueOf for a built (undecoded) string, with Java's
// check of the side parameter: consumer or provider in any case, stored
// lower-case; another value fails (FixedParamValue).
func parseJavaURL(s string) (*router.URL, error) {
	u, err := router.ParseURL(s)
	if err != nil {
		return nil, err
	}
	if v, ok := u.Params.Get(KeySide); ok && v != "" {
		switch strings.ToLower(v) {
		case SideConsumer, SideProvider:
			u.Params.Set(KeySide, strings.ToLower(v))
		default:
			return nil, fmt.Errorf("side %q: Java accepts only consumer or provider", v)
		}
	}
	return u, nil
}

func (r *Rule) parseYAML(content string) error {
	dec := yaml.NewDecoder(strings.NewReader(content))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return perr(nil, "", "empty rule")
		}
		return perr(nil, "", "bad YAML: %v", err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return perr(&more, "", "more than one YAML document (Java's yaml.load fails)")
	}
	root := javayaml.Deref(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = javayaml.Deref(root.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		return perr(root, "", "the rule must be a YAML mapping")
	}
	fields, err := mapping(root, "")
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"configVersion", &r.ConfigVersion}, {"scope", &r.Scope}, {"key", &r.RuleKey}} {
		v, _, err := castString(fields[f.name], f.name)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	r.keyNull = fields["key"] == nil || javayaml.IsNull(fields["key"])
	cv := r.ConfigVersion
	if _, ok := fields["configVersion"]; !ok || javayaml.IsNull(fields["configVersion"]) {
		cv = "null" // Java appends the null reference as text
		r.Findings = append(r.Findings, Finding{Line: root.Line, Field: "configVersion",
			Message: "no configVersion: Java writes configVersion=null and applies the rule with v2.7 semantics (match is ignored)"})
	}
	if n := fields["enabled"]; n != nil && !javayaml.IsNull(n) {
		r.Enabled = javaParseBoolean(n)
	}
	cn := fields["configs"]
	if cn == nil || javayaml.IsNull(cn) {
		return perr(root, "configs", "configs is missing (Java: NullPointerException; the previous configurators stay)")
	}
	cn = javayaml.Deref(cn)
	if cn.Kind != yaml.SequenceNode {
		return perr(cn, "configs", "configs must be a list (Java: NullPointerException; the previous configurators stay)")
	}
	appScope := r.Scope == "application"
	if appScope && r.keyNull {
		r.Findings = append(r.Findings, Finding{Line: root.Line, Field: "key",
			Message: "no key: Java writes application=null, so this application-scope rule applies to no application"})
	}
	for i, itemNode := range cn.Content {
		itemNode = javayaml.Deref(itemNode)
		field := fmt.Sprintf("configs[%d]", i)
		if itemNode.Kind != yaml.MappingNode {
			return perr(itemNode, field, "a config item must be a mapping")
		}
		it, err := parseItem(itemNode, field)
		if err != nil {
			return err
		}
		it.line = itemNode.Line
		it.index = i
		if it.side == "" {
			r.Findings = append(r.Findings, Finding{Line: itemNode.Line, Field: field + ".side",
				Message: "no side: the item never applies (Java compares the target's side with a missing one)"})
		}
		if it.typ != "" && it.typ != "general" && it.enabled == nil {
			r.Findings = append(r.Findings, Finding{Line: itemNode.Line, Field: field + ".enabled",
				Message: fmt.Sprintf("type %q without enabled: Java writes enabled=null and the item never applies", it.typ)})
		}
		if !r.Enabled && (it.typ == "" || it.typ == "general") {
			r.Findings = append(r.Findings, Finding{Line: itemNode.Line, Field: field,
				Message: "top-level enabled: false disables this general item"})
		}
		if _, ok := it.params["enabled"]; ok {
			r.Findings = append(r.Findings, Finding{Line: itemNode.Line, Field: field + ".parameters.enabled",
				Message: "enabled inside parameters is overwritten by the generated enabled and never disables a provider; use disabled: true"})
		}
		if it.match != nil && !strings.HasPrefix(cv, "v3.0") {
			r.Findings = append(r.Findings, Finding{Line: itemNode.Line, Field: field + ".match",
				Message: fmt.Sprintf("match is applied only with configVersion v3.0 (this rule: %s)", cv)})
		}
		it.findings(r, field, appScope)
		for _, n := range it.matchNotes {
			r.Findings = append(r.Findings, Finding{Line: itemNode.Line, Field: field + ".match", Message: n})
		}
		var urls []*Configurator
		if appScope {
			urls, err = r.appItemToURLs(it, cv)
		} else {
			urls, err = r.serviceItemToURLs(it, cv)
		}
		if err != nil {
			return err
		}
		r.URLs = append(r.URLs, urls...)
	}
	return nil
}

// item is one parsed config item.
type item struct {
	index, line       int
	typ               string
	enabled           *bool
	addresses         []string
	providerAddresses []string
	services          []string
	applications      []string
	params            map[string]string
	paramOrder        []string
	paramsNode        *yaml.Node
	match             *Match
	matchNotes        []string
	side              string
	node              *yaml.Node
}

func (it *item) findings(r *Rule, field string, appScope bool) {
	if appScope && it.applications != nil {
		r.Findings = append(r.Findings, Finding{Line: it.line, Field: field + ".applications",
			Message: "applications is read only in service scope"})
	}
	if !appScope && it.services != nil {
		r.Findings = append(r.Findings, Finding{Line: it.line, Field: field + ".services",
			Message: "services is read only in application scope"})
	}
}

func parseItem(n *yaml.Node, field string) (*item, error) {
	fs, err := mapping(n, field)
	if err != nil {
		return nil, err
	}
	it := &item{node: n}
	if it.typ, _, err = castString(fs["type"], field+".type"); err != nil {
		return nil, err
	}
	if it.side, _, err = castString(fs["side"], field+".side"); err != nil {
		return nil, err
	}
	if v := fs["enabled"]; v != nil && !javayaml.IsNull(v) {
		b := javaParseBoolean(v)
		it.enabled = &b
	}
	for _, l := range []struct {
		name string
		dst  *[]string
	}{{"addresses", &it.addresses}, {"providerAddresses", &it.providerAddresses}, {"services", &it.services}, {"applications", &it.applications}} {
		v := javayaml.Deref(fs[l.name])
		if v == nil || v.Kind != yaml.SequenceNode {
			continue // Java: not a List -> ignored
		}
		out := []string{}
		for _, e := range v.Content {
			s, err := javayaml.ToString(e)
			if err != nil {
				return nil, perr(e, field+"."+l.name, "%v", err)
			}
			out = append(out, s)
		}
		*l.dst = out
	}
	if pn := javayaml.Deref(fs["parameters"]); pn != nil && pn.Kind == yaml.MappingNode {
		it.paramsNode = pn
		it.params = map[string]string{}
		for i := 0; i+1 < len(pn.Content); i += 2 {
			k, err := javayaml.ToString(pn.Content[i])
			if err != nil {
				return nil, perr(pn.Content[i], field+".parameters", "%v", err)
			}
			vn := pn.Content[i+1]
			if javayaml.IsNull(vn) {
				return nil, perr(vn, field+".parameters."+k, "a parameter value is null (Java: NullPointerException)")
			}
			v, err := javayaml.ToString(vn)
			if err != nil {
				return nil, perr(vn, field+".parameters."+k, "%v", err)
			}
			if _, dup := it.params[k]; !dup {
				it.paramOrder = append(it.paramOrder, k)
			}
			it.params[k] = v
		}
	}
	if mn := javayaml.Deref(fs["match"]); mn != nil && !javayaml.IsNull(mn) {
		if mn.Kind == yaml.MappingNode {
			it.match, it.matchNotes = parseMatch(mn)
		} else {
			// Java reads match only from a Map: the item applies as if it
			// had none.
			it.matchNotes = []string{"match is not a mapping: Java ignores it and the item applies to every target"}
		}
	}
	return it, nil
}

// mapping returns a mapping's fields by their string keys.
func mapping(m *yaml.Node, prefix string) (map[string]*yaml.Node, error) {
	fs := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := javayaml.Deref(m.Content[i])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		fs[k.Value] = m.Content[i+1]
	}
	return fs, nil
}

// castString is Java's (String) cast of a map value: null is absent,
// another type fails.
func castString(n *yaml.Node, field string) (string, bool, error) {
	if n == nil {
		return "", false, nil
	}
	if v, isString, ok := javayaml.CastString(n); ok {
		return v, isString, nil
	}
	return "", false, perr(n, field, "%s must be a string (Java casts it; %q is not)", field, javayaml.Deref(n).Value)
}

// javaParseBoolean is Boolean.parseBoolean(value.toString()).
func javaParseBoolean(n *yaml.Node) bool {
	s, err := javayaml.ToString(n)
	return err == nil && strings.EqualFold(s, "true")
}

// toParameterString is ConfigParser.toParameterString.
func (it *item) toParameterString(field string) (string, error) {
	var b strings.Builder
	b.WriteString("category=dynamicconfigurators")
	if it.side != "" {
		b.WriteString("&side=")
		b.WriteString(it.side)
	}
	if len(it.params) == 0 {
		return "", perr(it.node, field+".parameters", "Invalid configurator rule, please specify at least one parameter you want to change in the rule")
	}
	// Java iterates a HashMap; the order matters only when a parameter
	// name repeats a generated key, and the generated ones come later.
	keys := append([]string(nil), it.paramOrder...)
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("&")
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(it.params[k])
	}
	if len(it.providerAddresses) > 0 {
		b.WriteString("&providerAddresses=")
		b.WriteString(strings.Join(it.providerAddresses, ","))
	} else if it.side == SideProvider {
		b.WriteString("&providerAddresses=")
		b.WriteString(strings.Join(it.addressList(), ","))
	}
	return b.String(), nil
}

func (it *item) addressList() []string {
	if len(it.addresses) == 0 {
		return []string{AnyHost}
	}
	return it.addresses
}

// appendService is ConfigParser.appendService: iface?[group=g&][version=v&].
func appendService(serviceKey, field string, n *yaml.Node) (string, error) {
	if serviceKey == "" {
		return "", perr(n, field, "service field in configuration is null (the rule's key is missing or empty)")
	}
	var b strings.Builder
	iface := serviceKey
	if i := strings.IndexByte(iface, '/'); i > 0 {
		b.WriteString("group=")
		b.WriteString(iface[:i])
		b.WriteString("&")
		iface = iface[i+1:]
	}
	if j := strings.IndexByte(iface, ':'); j > 0 {
		b.WriteString("version=")
		b.WriteString(iface[j+1:])
		b.WriteString("&")
		iface = iface[:j]
	}
	return iface + "?" + b.String(), nil
}

func (it *item) enabledText(r *Rule) string {
	if it.typ == "" || it.typ == "general" {
		if r.Enabled {
			return "true"
		}
		return "false"
	}
	if it.enabled == nil {
		return "null"
	}
	if *it.enabled {
		return "true"
	}
	return "false"
}

func (r *Rule) build(s string, it *item, field string) (*Configurator, error) {
	u, err := parseJavaURL(s)
	if err != nil {
		return nil, perr(it.node, field, "%v", err)
	}
	return &Configurator{URL: u, Match: it.match, Origin: Origin{Key: r.Key, Item: it.index, Line: it.line}}, nil
}

func (r *Rule) serviceItemToURLs(it *item, cv string) ([]*Configurator, error) {
	field := fmt.Sprintf("configs[%d]", it.index)
	var out []*Configurator
	for _, addr := range it.addressList() {
		svc, err := appendService(r.RuleKey, "key", it.node)
		if err != nil {
			return nil, err
		}
		ps, err := it.toParameterString(field)
		if err != nil {
			return nil, err
		}
		base := "override://" + addr + "/" + svc + ps + "&enabled=" + it.enabledText(r) + "&configVersion=" + cv
		if len(it.applications) > 0 {
			for _, app := range it.applications {
				c, err := r.build(base+"&application="+app, it, field)
				if err != nil {
					return nil, err
				}
				out = append(out, c)
			}
			continue
		}
		c, err := r.build(base, it, field)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (r *Rule) appItemToURLs(it *item, cv string) ([]*Configurator, error) {
	field := fmt.Sprintf("configs[%d]", it.index)
	var out []*Configurator
	services := it.services
	if len(services) == 0 {
		services = []string{"*"}
	}
	for _, addr := range it.addressList() {
		for _, s := range services {
			svc, err := appendService(s, field+".services", it.node)
			if err != nil {
				return nil, err
			}
			ps, err := it.toParameterString(field)
			if err != nil {
				return nil, err
			}
			app := r.RuleKey
			if r.keyNull {
				app = "null" // Java appends the null reference: the item applies to an application named "null"
			}
			str := "override://" + addr + "/" + svc + ps + "&application=" + app + "&enabled=" + it.enabledText(r) +
				"&category=appdynamicconfigurators&configVersion=" + cv
			c, err := r.build(str, it, field)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// parseMatch binds a match mapping as PojoUtils.mapToPojo does for
// ConditionMatch: a field whose value has the wrong shape (a scalar where a
// mapping belongs, a mapping where a list belongs) is left unset, and so
// is ignored; a list element that is not a mapping becomes an entry that
// never matches (Java: a null element, NullPointerException when reached).
// Each such case is reported in notes.
func parseMatch(n *yaml.Node) (*Match, []string) {
	var notes []string
	note := func(format string, a ...any) { notes = append(notes, fmt.Sprintf(format, a...)) }
	fs, _ := mapping(n, "match")
	m := &Match{}
	for k := range fs {
		switch k {
		case "address", "providerAddress", "service", "app", "param":
		default:
			note("match.%s is not a ConditionMatch field (address, providerAddress, service, app, param) and is ignored", k)
		}
	}
	m.Address = bindAddress(fs["address"], "match.address", note)
	m.ProviderAddress = bindAddress(fs["providerAddress"], "match.providerAddress", note)
	m.Service = bindList(fs["service"], "match.service", note)
	m.App = bindList(fs["app"], "match.app", note)
	if pn := fs["param"]; pn != nil && !javayaml.IsNull(pn) {
		pn = javayaml.Deref(pn)
		if pn.Kind != yaml.SequenceNode {
			note("match.param is not a list and is ignored")
		} else {
			m.hasParam = true
			m.Param = []ParamMatch{}
			for _, e := range pn.Content {
				e = javayaml.Deref(e)
				if e.Kind != yaml.MappingNode {
					note("a match.param entry is not a mapping: it never matches")
					m.Param = append(m.Param, ParamMatch{})
					continue
				}
				pf, _ := mapping(e, "match.param")
				var pm ParamMatch
				pm.Key = bindString(pf["key"])
				if vn := pf["value"]; vn != nil && !javayaml.IsNull(vn) {
					if javayaml.Deref(vn).Kind == yaml.MappingNode {
						pm.Value = bindStringMatch(vn)
					} else {
						note("a match.param value is not a mapping and is ignored (the entry never matches)")
					}
				}
				m.Param = append(m.Param, pm)
			}
		}
	}
	return m, notes
}

// bindString is PojoUtils for a String field: a scalar as Java's toString
// (null stays unset); a list is ignored; a mapping binds to "" (an empty
// String bean).
func bindString(n *yaml.Node) *string {
	if n == nil || javayaml.IsNull(n) {
		return nil
	}
	d := javayaml.Deref(n)
	switch d.Kind {
	case yaml.ScalarNode:
		if javayaml.Resolve(d) == javayaml.Timestamp {
			return nil // a Date is not converted to String
		}
		s, err := javayaml.ToString(d)
		if err != nil {
			return nil
		}
		return &s
	case yaml.MappingNode:
		s := ""
		return &s
	}
	return nil
}

// bindBean is the fields of a bean-typed match field: ok is false for an
// absent or null value and for one that is not a mapping, which is noted
// as ignored (holds says what the mapping should hold).
func bindBean(n *yaml.Node, field, holds string, note func(string, ...any)) (fs map[string]*yaml.Node, ok bool) {
	if n == nil || javayaml.IsNull(n) {
		return nil, false
	}
	d := javayaml.Deref(n)
	if d.Kind != yaml.MappingNode {
		note("%s is not a mapping %s and is ignored", field, holds)
		return nil, false
	}
	fs, _ = mapping(d, field)
	return fs, true
}

func bindAddress(n *yaml.Node, field string, note func(string, ...any)) *AddressMatch {
	fs, ok := bindBean(n, field, "(cird, wildcard or exact)", note)
	if !ok {
		return nil
	}
	return &AddressMatch{Cird: bindString(fs["cird"]), Wildcard: bindString(fs["wildcard"]), Exact: bindString(fs["exact"])}
}

func bindList(n *yaml.Node, field string, note func(string, ...any)) *ListStringMatch {
	fs, ok := bindBean(n, field, "with oneof", note)
	if !ok {
		return nil
	}
	l := &ListStringMatch{}
	on := fs["oneof"]
	if on == nil || javayaml.Deref(on).Kind != yaml.SequenceNode {
		note("%s has no oneof list: it never matches (Java throws when it is evaluated)", field)
		return l
	}
	for _, e := range javayaml.Deref(on).Content {
		if javayaml.Deref(e).Kind != yaml.MappingNode {
			note("a %s.oneof entry is not a mapping: it never matches", field)
			l.Oneof = append(l.Oneof, StringMatch{})
			continue
		}
		l.Oneof = append(l.Oneof, *bindStringMatch(e))
	}
	return l
}

func bindStringMatch(n *yaml.Node) *StringMatch {
	fs, _ := mapping(javayaml.Deref(n), "")
	s := &StringMatch{Exact: bindString(fs["exact"]), Prefix: bindString(fs["prefix"]), Regex: bindString(fs["regex"]),
		Noempty: bindString(fs["noempty"]), Empty: bindString(fs["empty"]), Wildcard: bindString(fs["wildcard"])}
	_ = s.CompileRegex() // a regex RE2 cannot compile never matches here (lint reports it)
	return s
}
