package discovery

import (
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/metadata/info"
	"dubbo.apache.org/dubbo-go/v3/registry"
)

// dubboGoURL is the URL dubbo-go v3.3.2 builds for an application-level
// provider (DefaultServiceInstance.ToURLs): the service parameters with
// method parameters renamed, then dubbo.tag and weight from the instance.
func dubboGoURL(t *testing.T, svc, meta map[string]string) *common.URL {
	t.Helper()
	md := map[string]string{"dubbo.endpoints": `[{"port":20880,"protocol":"dubbo"}]`}
	for k, v := range meta {
		md[k] = v
	}
	inst := &registry.DefaultServiceInstance{ID: "127.0.0.1:20880", ServiceName: "demo-provider", Host: "127.0.0.1", Port: 20880, Metadata: md}
	si := info.NewServiceInfo("com.foo.Bar", "", "", "dubbo", "com.foo.Bar", svc)
	urls := inst.ToURLs(si)
	if len(urls) != 1 {
		t.Fatalf("ToURLs: %d URLs", len(urls))
	}
	return urls[0]
}

func TestJavaParamsAsInstanceAddressURL(t *testing.T) {
	svc := map[string]string{
		"application": "demo-provider", "dubbo.tag": "gray", "weight": "50", "status": "gray",
		"methods": "queryAll,queryByName", "queryAll.timeout": "3000", "env-sign": "svc-param",
	}
	meta := map[string]string{
		"dubbo.metadata.revision": "r1", "timestamp": "1700000000000", "env-sign": "inst-meta", "region": "hz",
		constant.RegistryIdKey: "zk",
	}
	u := dubboGoURL(t, svc, meta)
	if got := u.GetParam("dubbo.tag", ""); got != "" {
		t.Fatalf("premise: dubbo-go's URL has dubbo.tag=%q (instance tag), want empty", got)
	}
	if got := u.GetParam("weight", ""); got != "100" {
		t.Fatalf("premise: dubbo-go's URL has weight=%q, want the instance default 100", got)
	}
	javaParams(u, meta, svc)
	for k, want := range map[string]string{
		"dubbo.tag":            "gray",          // service parameter, provider-first
		"weight":               "50",            // service parameter
		"status":               "gray",          // service parameter
		"env-sign":             "svc-param",     // service wins over instance metadata (toOriginalMap)
		"region":               "hz",            // instance metadata only
		"timestamp":            "1700000000000", // instance metadata (Java's instance param)
		"queryAll.timeout":     "3000",          // method parameter as published
		"application":          "demo-provider",
		constant.RegistryIdKey: "",
	} {
		if got := u.GetParam(k, ""); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := u.GetParam("methods.queryAll.timeout", ""); got != "3000" {
		t.Errorf("dubbo-go's own methods.queryAll.timeout = %q, want kept", got)
	}
}

func TestJavaParamsTagFallbacks(t *testing.T) {
	// No service tag: the instance metadata's (dubbo.labels=dubbo.tag=x).
	meta := map[string]string{"dubbo.tag": "canary"}
	svc := map[string]string{"methods": "m"}
	u := dubboGoURL(t, svc, meta)
	javaParams(u, meta, svc)
	if got := u.GetParam("dubbo.tag", ""); got != "canary" {
		t.Errorf("instance tag: dubbo.tag = %q, want canary", got)
	}
	// Neither: untagged, the parameter removed (dubbo-go set it empty).
	u = dubboGoURL(t, svc, nil)
	javaParams(u, nil, svc)
	if _, ok := u.GetNonDefaultParam("dubbo.tag"); ok {
		t.Errorf("untagged provider keeps dubbo.tag=%q", u.GetParam("dubbo.tag", ""))
	}
	// Metadata unknown: dubbo-go's URL is kept apart from instance keys.
	u = dubboGoURL(t, svc, map[string]string{"region": "hz"})
	javaParams(u, map[string]string{"region": "hz"}, nil)
	if u.GetParam("region", "") != "hz" || u.GetParam("weight", "") != "100" {
		t.Errorf("metadata unknown: region=%q weight=%q, want hz and dubbo-go's 100", u.GetParam("region", ""), u.GetParam("weight", ""))
	}
}

func TestJavaServiceInfo(t *testing.T) {
	u, err := common.NewURL("dubbo://127.0.0.1:20880/com.foo.Bar?interface=com.foo.Bar&application=demo-provider&dubbo.tag=blue&status=gray&weight=100" +
		"&methods=queryAll,queryByName&methods.queryAll.timeout=3000&timestamp=1700000000&pid=42&bind.ip=0.0.0.0&qos.port=22222&.hidden=x&registry.id=zk&side=provider")
	if err != nil {
		t.Fatal(err)
	}
	u.Methods = []string{"queryAll", "queryByName"}
	si := javaServiceInfo(u)
	for k, want := range map[string]string{
		"dubbo.tag": "blue", "status": "gray", "weight": "100", "application": "demo-provider", "side": "provider",
		"queryAll.timeout": "3000",
		"timestamp":        "", "pid": "", "bind.ip": "", "qos.port": "", ".hidden": "", "registry.id": "",
	} {
		if got := si.Params[k]; got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if got := si.Params["methods"]; got != "queryAll,queryByName" {
		t.Errorf("methods = %q", got)
	}
	// The revision covers the parameters: a different tag, a different revision.
	other, _ := common.NewURL("dubbo://127.0.0.1:20880/com.foo.Bar?interface=com.foo.Bar&application=demo-provider&dubbo.tag=green&status=gray&weight=100&methods=queryAll,queryByName")
	a := info.CalRevision("demo-provider", map[string]*info.ServiceInfo{"k": si})
	b := info.CalRevision("demo-provider", map[string]*info.ServiceInfo{"k": javaServiceInfo(other)})
	if a == b {
		t.Errorf("two providers that differ in dubbo.tag share revision %s", a)
	}
}

func TestMetadataExcluded(t *testing.T) {
	for k, want := range map[string]bool{
		"pid": true, "PID": true, "timestamp": true, "remote.timestamp": true, "qos.accept.foreign.ip": true,
		"dubbo.tag": false, "status": false, "weight": false, "methods": false, "monitoring": false,
	} {
		if got := metadataExcluded(k); got != want {
			t.Errorf("metadataExcluded(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestDefaultMigrationStep(t *testing.T) {
	t.Setenv(MigrationStepEnv, "")
	t.Setenv(MigrationEnv, "")
	if got := defaultStep(); got != StepApplicationFirst {
		t.Errorf("no property: %s, want %s", got, StepApplicationFirst)
	}
	t.Setenv(MigrationEnv, "FORCE_APPLICATION")
	if got := defaultStep(); got != StepForceApplication {
		t.Errorf("%s set: %s", MigrationEnv, got)
	}
	t.Setenv(MigrationStepEnv, "FORCE_INTERFACE") // dubbo.application.migration.step comes first, as in Java
	if got := defaultStep(); got != StepForceInterface {
		t.Errorf("both set: %s, want %s", got, StepForceInterface)
	}
}
