package extension_test

import (
	"fmt"
	"testing"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
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
