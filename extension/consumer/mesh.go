package consumer

import (
	"sort"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/extension/internal/rulestore"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/rules"
)

// meshSubs are a binding's subscriptions to <app>.MESHAPPRULE: Java's mesh
// router subscribes the key of every provider application among the
// invokers (not only the first one's), and drops the keys of applications
// that left.
type meshSubs struct {
	cancel map[string]func()
	refs   map[string]cluster.RuleRef
}

// followMeshApps subscribes the mesh keys of the invokers' applications and
// reports whether the mesh slot changed (the caller publishes it with the
// invokers); b.mu is held.
func (b *Binding) followMeshApps(invokers []base.Invoker) bool {
	apps := map[string]bool{}
	for _, ivk := range invokers {
		if ivk == nil || ivk.GetURL() == nil {
			continue
		}
		if app := ivk.GetURL().GetParam(constant.ApplicationKey, ""); app != "" && app != "unknown" {
			apps[app] = true
		}
	}
	if b.mesh.cancel == nil {
		b.mesh.cancel, b.mesh.refs = map[string]func(){}, map[string]cluster.RuleRef{}
	}
	changed := false
	for app, cancel := range b.mesh.cancel {
		if !apps[app] {
			cancel()
			delete(b.mesh.cancel, app)
			delete(b.mesh.refs, app)
			changed = true
		}
	}
	for app := range apps {
		if b.mesh.cancel[app] != nil {
			continue
		}
		app := app
		logger.Infof("[dubboroute] %s: mesh rules of provider application %s (%s%s)", b.iface, app, app, rules.MeshSuffix)
		ref, cancel := rulestore.Subscribe(app+rules.MeshSuffix, rules.KindMesh, func(r cluster.RuleRef) {
			b.mu.Lock()
			defer b.mu.Unlock()
			if b.mesh.cancel[app] == nil {
				return // unsubscribed meanwhile
			}
			b.mesh.refs[app] = r
			b.dynamic[cluster.SlotMesh] = b.meshRef()
			b.publishRules()
		})
		b.mesh.cancel[app] = cancel
		b.mesh.refs[app] = ref
		changed = true
	}
	if changed {
		b.dynamic[cluster.SlotMesh] = b.meshRef()
	}
	return changed
}

// meshRef combines the applications' mesh rules into the mesh slot's rule.
func (b *Binding) meshRef() cluster.RuleRef {
	var out []mesh.AppRule
	for _, r := range b.mesh.refs {
		for _, ar := range r.Mesh {
			if !ar.Rule.Empty() {
				out = append(out, ar)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].App < out[j].App })
	return cluster.RuleRef{Mesh: out}
}
