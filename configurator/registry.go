package configurator

import (
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// ConsumerCategories are the categories a Java consumer subscribes in the
// registry (RegistryProtocol's subscribe URL): what a registry URL's
// category is matched against when the consumer URL names none.
const ConsumerCategories = "providers,configurators,routers"

// RegistryList is what a Java interface-level consumer makes of the child
// URLs of its registry's <interface>/configurators node (Dubbo 2.6's
// override:// and absent:// URLs): the registry keeps the URLs
// UrlUtils.isMatch accepts for the consumer (CacheableFailbackRegistry,
// which notifies an empty:// URL when none is left, so the list clears);
// RegistryDirectory.notify drops URLs with compatible_config and those
// that are not configurators; Configurator.toConfigurators turns the rest
// into the sorted registry list (applied before the config-center lists).
// urls are the parsed child nodes; origin names them in errors and explain
// (Item: the URL's index in urls). The error is the sort's (a priority
// that is not an integer): Java's notification fails and the previous list
// stays.
func RegistryList(consumer *router.URL, urls []*router.URL, origin Origin) (List, error) {
	var keep []*Configurator
	for i, u := range urls {
		if u == nil || !RegistryMatch(consumer, u) {
			continue
		}
		if u.Params["compatible_config"] != "" || !isConfiguratorURL(u) {
			continue
		}
		o := origin
		o.Item = i
		keep = append(keep, &Configurator{URL: u, Origin: o})
	}
	if len(keep) == 0 {
		return List{}, nil // the registry's empty:// URL: clear
	}
	l, _, err := ToList(keep)
	return l, err
}

// isConfiguratorURL is UrlUtils.isConfigurator: protocol override, or
// category configurators.
func isConfiguratorURL(u *router.URL) bool {
	return u.Protocol == "override" || category(u) == "configurators"
}

func category(u *router.URL) string {
	if c := u.Params[KeyCategory]; c != "" {
		return c
	}
	return "providers"
}

// RegistryMatch is UrlUtils.isMatch(consumer, u): the interface (or *),
// the category among the consumer's, u not disabled (enabled=false), the
// group, version and classifier.
func RegistryMatch(consumer, u *router.URL) bool {
	ci, pi := consumer.Interface(), u.Interface()
	if ci != "*" && pi != "*" && ci != pi {
		return false
	}
	cats := consumer.Params[KeyCategory]
	if cats == "" {
		cats = ConsumerCategories
	}
	if !matchCategory(category(u), cats) {
		return false
	}
	if v := u.Params[KeyEnabled]; v != "" && !strings.EqualFold(v, "true") && consumer.Params[KeyEnabled] != "*" {
		return false
	}
	cg, cgOK := param(consumer, KeyGroup)
	pg, pgOK := param(u, KeyGroup)
	groupOK := cg == "*" || (cgOK == pgOK && cg == pg) || (cg != "" && pgOK && containsItem(cg, pg))
	cv, cvOK := param(consumer, KeyVersion)
	pv, pvOK := param(u, KeyVersion)
	versionOK := cv == "*" || (cvOK == pvOK && cv == pv)
	cc, ccOK := param(consumer, "classifier")
	pc, pcOK := param(u, "classifier")
	classifierOK := !ccOK || cc == "*" || (pcOK && cc == pc)
	return groupOK && versionOK && classifierOK
}

// param is URL.getParameter: absent (Java's null) when missing or empty.
func param(u *router.URL, k string) (string, bool) {
	v := u.Params[k]
	return v, v != ""
}

// matchCategory is UrlUtils.isMatchCategory (substring tests, as Java's).
func matchCategory(c, cats string) bool {
	switch {
	case strings.Contains(cats, "*"):
		return true
	case strings.Contains(cats, "-"):
		return !strings.Contains(cats, "-"+c)
	}
	return strings.Contains(cats, c)
}

// containsItem is StringUtils.isContains(values, value): value is one of
// the comma-separated values.
func containsItem(values, value string) bool {
	for _, v := range strings.Split(values, ",") {
		if strings.TrimSpace(v) == value {
			return true
		}
	}
	return false
}
