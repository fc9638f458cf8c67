package extension_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/rules"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
)

const meshGray = `apiVersion: service.dubbo.apache.org/v1alpha1
kind: DestinationRule
metadata: {name: bookfacade}
spec:
  host: demo-provider
  subsets:
    - {name: gray, labels: {status: gray}}
    - {name: all}
---
apiVersion: service.dubbo.apache.org/v1alpha1
kind: VirtualService
metadata: {name: bookfacade}
spec:
  hosts: [demo-provider]
  dubbo:
    - services: [{exact: com.muke.dubbocourse.common.api.BookFacade}]
      routedetail:
        - name: gray-users
          match:
            - attachments: {dubboContext: {trafficLabel: {exact: gray}}}
          route:
            - destination: {host: demo-provider, subset: gray}
        - name: everyone
          route:
            - destination: {host: demo-provider, subset: %s}
`

// TestMeshRuleOverRPC: a mesh rule at <provider-app>.MESHAPPRULE steers real
// calls; a malformed update keeps it, an update replaces it, a delete
// removes it.
func TestMeshRuleOverRPC(t *testing.T) {
	key := api.ProviderApp + extension.MeshSuffix
	cleanup(t, key)
	c := newConsumer(t, consumer.Options{App: "demo-consumer-mesh"})
	gray := consumer.Attachments{"trafficLabel": "gray"}
	memory.PutRule(key, fmt.Sprintf(meshGray, "gray"))
	only(t, "mesh: everyone to gray", ports(t, 10, queryAll(c, nil)), p2)
	memory.PutRule(key, "kind: VirtualService\nmetadata: {name: x\n")
	only(t, "mesh: malformed update keeps the rule", ports(t, 10, queryAll(c, nil)), p2)
	memory.PutRule(key, "kind: VirtualService\nmetadata: {name: bookfacade}\nspec: {dubbo: []}\n")
	only(t, "mesh: an update without DestinationRule is ignored", ports(t, 10, queryAll(c, nil)), p2)
	memory.PutRule(key, fmt.Sprintf(meshGray, "all"))
	only(t, "mesh: gray label", ports(t, 10, queryAll(c, gray)), p2)
	if got := ports(t, 30, queryAll(c, nil)); len(got) < 2 || got["err"] != 0 {
		t.Errorf("mesh: everyone to all: served by %v, want several providers", got)
	}
	memory.PutRule(key, fmt.Sprintf(meshGray, "gray"))
	only(t, "mesh: back to gray", ports(t, 10, queryAll(c, nil)), p2)
	memory.DeleteRule(key)
	if got := ports(t, 30, queryAll(c, gray)); len(got) < 2 || got["err"] != 0 {
		t.Errorf("mesh rule deleted: served by %v, want several providers", got)
	}
}

// TestAffinityOverRPC: with dubboroute.affinity=true the service affinity
// rule keeps the provider whose port equals the consumer's port parameter
// while it is at least the ratio of the input; without the parameter the
// rule is not read. (The key is one every provider has: dubbo-go merges a
// reference parameter into provider URLs that lack it.)
func TestAffinityOverRPC(t *testing.T) {
	key := api.Interface + "::" + rules.AffinitySuffix
	cleanup(t, key)
	on := newConsumer(t, consumer.Options{App: "demo-consumer-aff", LoadBalance: "random", Params: map[string]string{extension.AffinityParam: "true", "port": strconv.Itoa(p2)}})
	off := newConsumer(t, consumer.Options{App: "demo-consumer-noaff", LoadBalance: "random", Params: map[string]string{"port": strconv.Itoa(p2)}})
	memory.PutRule(key, "configVersion: v3.1\nscope: service\nkey: "+api.Interface+"\naffinityAware:\n  key: port\n  ratio: 30\n")
	only(t, "affinity: one of three providers is >= 30%", ports(t, 10, queryAll(on, nil)), p2)
	if got := ports(t, 30, queryAll(off, nil)); len(got) < 2 || got["err"] != 0 {
		t.Errorf("affinity off: served by %v, want several providers", got)
	}
	memory.PutRule(key, "configVersion: v3.1\nscope: service\nkey: "+api.Interface+"\naffinityAware:\n  key: port\n  ratio: 50\n")
	if got := ports(t, 30, queryAll(on, nil)); len(got) < 2 || got["err"] != 0 {
		t.Errorf("affinity below the ratio: served by %v, want several providers", got)
	}
	memory.PutRule(key, "configVersion: v3.1\naffinityAware: {key: port, ratio: abc}\n")
	if got := ports(t, 30, queryAll(on, nil)); len(got) < 2 || got["err"] != 0 {
		t.Errorf("rejected update must keep ratio 50: served by %v", got)
	}
	// The provider-application affinity router (dubboroute's; Java's reads
	// condition keys) at <provider-app>.affinity-router.
	appKey := api.ProviderApp + rules.AffinitySuffix
	cleanup(t, appKey)
	memory.DeleteRule(key)
	memory.PutRule(appKey, "configVersion: v3.1\naffinityAware: {key: port, ratio: 0}\n")
	only(t, "provider-app affinity", ports(t, 10, queryAll(on, nil)), p2)
	if got := ports(t, 30, queryAll(off, nil)); len(got) < 2 {
		t.Errorf("provider-app affinity without the parameter: served by %v", got)
	}
}
