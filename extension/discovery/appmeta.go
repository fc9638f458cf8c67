package discovery

import (
	"strings"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/metadata"
	"dubbo.apache.org/dubbo-go/v3/metadata/info"
	"dubbo.apache.org/dubbo-go/v3/registry"

	// dubbo-go's revision customizers register before ours (same
	// priority: ours runs after them).
	_ "dubbo.apache.org/dubbo-go/v3/registry/servicediscovery/customizer"
)

// Application-level registrations of Go providers as Java providers
// publish them (provider side; the consumer side is in applevel.go).
//
// dubbo-go v3.3.2 publishes a service's metadata with a fixed set of
// parameters (info.IncludeKeys: application, group, version, timestamp,
// serialization, cluster, loadbalance, path, timeout, token, warmup,
// weight, release, and their method forms). A provider's static dubbo.tag,
// its custom parameters (status=gray) and everything else a condition rule
// may name are lost, so Java consumers in APPLICATION_FIRST or
// FORCE_APPLICATION (and dubbo-go consumers) route Go providers differently
// than when they register interface-level. Java publishes the exported URL's
// parameters minus DefaultMetadataParamsFilter's exclusions, method
// parameters as <method>.<key>, and puts timestamp in the instance
// metadata (spec §6.2). With the extension a Go provider does the same: the
// revision is computed over those parameters (two providers that differ in
// a tag get different revisions, as in Java) and the metadata published
// under it carries them.

func registerRevisionCustomizer() {
	dgext.AddCustomizers(javaRevisionCustomizer{})
}

// javaRevisionCustomizer recomputes the exported-services revision over the
// Java-shaped service parameters and adds the instance timestamp.
type javaRevisionCustomizer struct{}

// GetPriority implements registry.ServiceInstanceCustomizer: after
// dubbo-go's exported-revision customizer (priority 1, registered first).
func (javaRevisionCustomizer) GetPriority() int { return 1 }

// Customize implements registry.ServiceInstanceCustomizer.
func (javaRevisionCustomizer) Customize(instance registry.ServiceInstance) {
	md := instance.GetMetadata()
	if md == nil {
		return
	}
	mi := metadata.GetMetadataInfo(md[constant.RegistryIdKey])
	if mi == nil {
		return
	}
	urls := mi.GetExportedServiceURLs()
	if len(urls) == 0 {
		return
	}
	services := make(map[string]*info.ServiceInfo, len(urls))
	app := ""
	for _, u := range urls {
		si := javaServiceInfo(u)
		services[si.GetMatchKey()] = si
		if app == "" {
			app = u.GetParam(constant.ApplicationKey, "")
		}
	}
	md[constant.ExportedServicesRevisionPropertyName] = info.CalRevision(app, services)
	if ts := urls[0].GetParam(constant.TimestampKey, ""); ts != "" {
		md[constant.TimestampKey] = ts
	}
}

// javaMetadata is mi with every service's parameters in Java's form (a
// copy; mi is not changed).
func javaMetadata(mi *info.MetadataInfo) *info.MetadataInfo {
	if mi == nil {
		return nil
	}
	out := &info.MetadataInfo{App: mi.App, Revision: mi.Revision, Tag: mi.Tag, LastUpdatedTime: mi.LastUpdatedTime, Services: map[string]*info.ServiceInfo{}}
	for k, si := range mi.GetServices() {
		if si.URL != nil {
			si = javaServiceInfo(si.URL)
		}
		out.Services[k] = si
	}
	return out
}

// javaServiceInfo is the service info of an exported URL with Java's
// parameters (MetadataInfo.ServiceInfo.extractServiceParams with
// DefaultMetadataParamsFilter): every parameter except the excluded and the
// hidden (".key") ones, method parameters as <method>.<key>, and dubbo-go's
// methods list.
func javaServiceInfo(u *common.URL) *info.ServiceInfo {
	si := info.NewServiceInfoWithURL(u)
	p := make(map[string]string, 16)
	u.RangeParams(func(k, v string) bool {
		if v == "" || strings.HasPrefix(k, ".") || metadataExcluded(k) {
			return true
		}
		if m, ok := strings.CutPrefix(k, "methods."); ok && strings.IndexByte(m, '.') > 0 {
			k = m
		}
		p[k] = v
		return true
	})
	p[constant.MethodsKey] = si.Params[constant.MethodsKey]
	si.Params = p
	return si
}

// metadataExcluded reports whether Java leaves key out of the service
// parameters: equal to an excluded key ignoring case, or containing
// ".<excluded>". The excluded keys are Java's DefaultMetadataParamsFilter
// serviceParamsExcluded, plus dubbo-go's registry.id (which registry a
// provider registered with, not a service parameter).
func metadataExcluded(key string) bool {
	excluded := [...]string{
		"monitor", "bind.ip", "bind.port", "qos.enable", "qos.host", "qos.port", "qos.accept.foreign.ip",
		"validation", "interfaces", "pid", "timestamp", "heartbeat", "ipv6", constant.RegistryIdKey,
	}
	for _, ex := range excluded {
		if strings.EqualFold(key, ex) || strings.Contains(key, "."+ex) {
			return true
		}
	}
	return false
}
