package configurator

import (
	"sort"
	"strconv"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// Parameter keys and values Java's configurators use.
const (
	KeyEnabled           = "enabled"
	KeyDisabled          = "disabled"
	KeyConfigVersion     = "configVersion"
	KeySide              = "side"
	KeyApplication       = "application"
	KeyProviderAddresses = "providerAddresses"
	KeyPriority          = "priority"
	KeyCategory          = "category"
	KeyGroup             = "group"
	KeyVersion           = "version"
	KeyInterface         = "interface"
	AnyHost              = "0.0.0.0"
	AnyValue             = "*"
	SideConsumer         = "consumer"
	SideProvider         = "provider"
)

// conditionKeys are removed from a configurator URL before its parameters
// are written into the target (AbstractConfigurator.genConditionKeys).
var conditionKeys = map[string]bool{
	"category": true, "check": true, "dynamic": true, "enabled": true, "group": true, "version": true,
	"application": true, "side": true, "configVersion": true, "compatible_config": true, "interfaces": true,
}

// Origin says where a configurator came from, for errors and explain.
type Origin struct {
	// Key is the config-center key, or "registry" for override:// URLs
	// notified by the registry.
	Key string `json:"key"`
	// Item is the index of the config item in configs (-1: a URL form).
	Item int `json:"item"`
	// Line is the YAML line of the item (0: unknown).
	Line int `json:"line,omitempty"`
}

// String renders the origin as key[#item@line].
func (o Origin) String() string {
	s := o.Key
	if o.Item >= 0 {
		s += "#" + strconv.Itoa(o.Item)
		if o.Line > 0 {
			s += "@line " + strconv.Itoa(o.Line)
		}
	}
	return s
}

// Configurator is one override:// (or absent://) URL with its v3.0 match.
// It is immutable once built.
type Configurator struct {
	// URL is the configurator URL as Java builds it.
	URL *router.URL
	// Match is the item's v3.0 match (nil: none, or dropped because it did
	// not bind, as Java's PojoUtils failure drops it).
	Match *Match
	// Origin is where it came from.
	Origin Origin
}

// Absent reports whether the configurator only fills parameters the target
// lacks (absent://) instead of overwriting them (override://).
func (c *Configurator) Absent() bool { return c.URL.Protocol == "absent" }

// priority is the URL's priority parameter as Java's getParameter(key, 0)
// reads it; ok is false when it is set but not an int (Java throws).
func (c *Configurator) priority() (int, bool) {
	v := c.URL.Params.Value(KeyPriority)
	if v == "" {
		return 0, true
	}
	p, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(p), true
}

// javaBool is URL.getParameter(key, def): empty or missing -> def, else
// Boolean.parseBoolean.
func javaBool(v string, def bool) bool {
	if v == "" {
		return def
	}
	return strings.EqualFold(v, "true")
}

// Configure applies the configurator to u as Java's AbstractConfigurator.
// configure does. localHost is NetUtils.getLocalHost() of the process (the
// consumer's IP on a consumer). It returns u itself when nothing applies,
// else a new URL (u is never modified), and whether it applied.
func (c *Configurator) Configure(u *router.URL, localHost string) (*router.URL, bool) {
	cu := c.URL
	if u == nil || !javaBool(cu.Params.Value(KeyEnabled), true) || cu.Host == "" || u.Host == "" {
		return u, false
	}
	if cu.Params.Value(KeyConfigVersion) != "" { // v2.7 and above
		cur, ok := u.Params.Get(KeySide)
		if !ok { // Java: url.getSide() is null and equals() throws; nothing applies
			return u, false
		}
		cs := cu.Params.Value(KeySide)
		switch {
		case cur == cs && cs == SideConsumer:
			return c.configureIfMatch(localHost, u)
		case cur == cs && cs == SideProvider:
			return c.configureIfMatch(u.Host, u)
		}
		return u, false
	}
	// Before 2.7 (configureDeprecated).
	if cu.Port != 0 {
		if u.Port == cu.Port {
			return c.configureIfMatch(u.Host, u)
		}
		return u, false
	}
	side := u.Params.Value(KeySide)
	if side == "" {
		side = SideProvider
	}
	if side == SideConsumer {
		return c.configureIfMatch(localHost, u)
	}
	side = u.Params.Value(KeySide)
	if side == "" {
		side = SideConsumer
	}
	if side == SideProvider {
		return c.configureIfMatch(AnyHost, u)
	}
	return u, false
}

func (c *Configurator) configureIfMatch(host string, u *router.URL) (*router.URL, bool) {
	cu := c.URL
	if cu.Host != AnyHost && host != cu.Host {
		return u, false
	}
	if !c.v27MatchOrUnset(u) {
		return u, false
	}
	if strings.HasPrefix(cu.Params.Value(KeyConfigVersion), "v3.0") {
		if c.Match != nil && !c.Match.IsMatch(host, u) {
			return u, false
		}
		return c.doConfigure(u, nil), true
	}
	tilde, ok := c.deprecatedConditionMatch(u)
	if !ok {
		return u, false
	}
	return c.doConfigure(u, tilde), true
}

// v27MatchOrUnset is isV27ConditionMatchOrUnset: providerAddresses, the
// application and the service key.
func (c *Configurator) v27MatchOrUnset(u *router.URL) bool {
	cu := c.URL
	if providers := cu.Params.Value(KeyProviderAddresses); providers != "" {
		match := false
		addr, port := u.Address(), strconv.Itoa(u.Port)
		for _, a := range javaSplitComma(providers) {
			if a == addr || a == AnyHost || a == AnyHost+":"+AnyValue || a == AnyHost+":"+port || a == u.Host {
				match = true
			}
		}
		if !match {
			return false
		}
	}
	if app := application(cu); app != "" && app != AnyValue && app != application(u) {
		return false
	}
	if sk := ServiceKey(cu); sk != AnyValue && sk != ServiceKey(u) {
		return false
	}
	return true
}

// application is URL.getApplication(username): the application parameter,
// else the user name.
func application(u *router.URL) string {
	if v := u.Params.Value(KeyApplication); v != "" {
		return v
	}
	return u.Username
}

// ServiceKey is Java's URL.getServiceKey: [group/]interface[:version], the
// interface being the interface parameter, else the path.
func ServiceKey(u *router.URL) string {
	iface := u.Params.Value(KeyInterface)
	if _, ok := u.Params.Get(KeyInterface); !ok {
		iface = u.Path
	}
	var b strings.Builder
	if g := u.Params.Value(KeyGroup); g != "" {
		b.WriteString(g)
		b.WriteByte('/')
	}
	b.WriteString(iface)
	if v := u.Params.Value(KeyVersion); v != "" {
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
}

// deprecatedConditionMatch is isDeprecatedConditionMatch: every parameter
// named application, side or ~key must be * or equal the target's value.
// It returns the ~ keys (removed before configuring).
func (c *Configurator) deprecatedConditionMatch(u *router.URL) ([]string, bool) {
	var tilde []string
	for k, v := range c.URL.Params.All() {
		t := strings.HasPrefix(k, "~")
		if !t && k != KeyApplication && k != KeySide {
			continue
		}
		name := k
		if t {
			tilde = append(tilde, k)
			name = k[1:]
		}
		if v == AnyValue {
			continue
		}
		if got, ok := u.Params.Get(name); !ok || got != v {
			return nil, false
		}
	}
	return tilde, true
}

// doConfigure writes the configurator's parameters (minus the condition
// keys and extra) into a copy of u: overwriting for override://, only
// missing keys for absent://.
func (c *Configurator) doConfigure(u *router.URL, extra []string) *router.URL {
	out := *u
	out.Params = router.ParamsOf(make(map[string]string, u.Params.Len()+c.URL.Params.Len()))
	for k, v := range u.Params.All() {
		out.Params.Set(k, v)
	}
	skip := func(k string) bool {
		if conditionKeys[k] {
			return true
		}
		for _, e := range extra {
			if e == k {
				return true
			}
		}
		return false
	}
	for k, v := range c.URL.Params.All() {
		if skip(k) {
			continue
		}
		if c.Absent() {
			if _, ok := out.Params.Get(k); ok {
				continue
			}
		}
		out.Params.Set(k, v)
	}
	return &out
}

// Params are the parameters the configurator writes into a target (its
// URL's parameters minus the condition keys; ~ keys of a pre-v3.0 rule
// included only as Java would remove them).
func (c *Configurator) Params() map[string]string {
	out := map[string]string{}
	for k, v := range c.URL.Params.All() {
		if conditionKeys[k] || (strings.HasPrefix(k, "~") && !strings.HasPrefix(c.URL.Params.Value(KeyConfigVersion), "v3.0")) {
			continue
		}
		out[k] = v
	}
	return out
}

// javaSplitComma is String.split(","): trailing empty strings dropped.
func javaSplitComma(s string) []string {
	parts := strings.Split(s, ",")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// List is a sorted list of configurators, applied in order (later wins).
type List []*Configurator

// sortList sorts as Collections.sort with Configurator.compareTo: by host
// (String.compareTo), then by the priority parameter. It fails when two
// configurators of the same host need their priorities compared and one is
// not an integer (Java's NumberFormatException).
func sortList(l List) error {
	var bad *Configurator
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if c := javaCompare(a.URL.Host, b.URL.Host); c != 0 {
			return c < 0
		}
		pa, ok1 := a.priority()
		pb, ok2 := b.priority()
		if !ok1 {
			bad = a
		}
		if !ok2 {
			bad = b
		}
		return pa < pb
	})
	if bad != nil {
		return &ParseError{Field: "parameters.priority", Line: bad.Origin.Line,
			Msg: "priority " + strconv.Quote(bad.URL.Params.Value(KeyPriority)) + " is not an integer (Java fails sorting the configurators)"}
	}
	return nil
}

// javaCompare is String.compareTo (UTF-16 code units; hosts are ASCII).
func javaCompare(a, b string) int {
	return strings.Compare(a, b)
}

// Apply runs every configurator of the list over u in order.
func (l List) Apply(u *router.URL, localHost string) (*router.URL, []*Configurator) {
	var applied []*Configurator
	for _, c := range l {
		var ok bool
		u, ok = c.Configure(u, localHost)
		if ok {
			applied = append(applied, c)
		}
	}
	return u, applied
}

// FromURLs is Configurator.toConfigurators for registry (or JSON-array)
// URLs, see ToList. origin.Item is replaced by each URL's index.
func FromURLs(urls []*router.URL, origin Origin) (List, bool, error) {
	cs := make([]*Configurator, 0, len(urls))
	for i, u := range urls {
		if u == nil {
			continue
		}
		o := origin
		o.Item = i
		cs = append(cs, &Configurator{URL: u, Origin: o})
	}
	return ToList(cs)
}

// ToList is Configurator.toConfigurators: an empty input gives ok=false
// (the caller keeps the list it has), an empty:// URL clears the list, a URL
// without parameters other than anyhost is skipped; the result is sorted.
func ToList(cs []*Configurator) (List, bool, error) {
	if len(cs) == 0 {
		return nil, false, nil
	}
	out := List{}
	for _, c := range cs {
		u := c.URL
		if u.Protocol == "empty" {
			out = List{}
			break
		}
		n := u.Params.Len()
		if _, ok := u.Params.Get("anyhost"); ok {
			n--
		}
		if n == 0 {
			continue
		}
		out = append(out, c)
	}
	if err := sortList(out); err != nil {
		return nil, false, err
	}
	return out, true, nil
}
