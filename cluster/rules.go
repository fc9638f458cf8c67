package cluster

import (
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/router/affinity"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/mesh"
	"github.com/dubboroute/dubboroute/router/script"
	"github.com/dubboroute/dubboroute/router/tag"
)

// Slot names one rule-driven router of the chain.
type Slot int

// The rule-driven routers, in chain order.
const (
	SlotMesh        Slot = iota // standard-mesh-rule (-50): <provider-app>.MESHAPPRULE, every provider application
	SlotTag                     // tag (100): <provider-app>.tag-router
	SlotAffinity                // affinity (130): <interface>:<version>:<group>.affinity-router, only when enabled for the consumer
	SlotAffinityApp             // affinity-provider-app (135): <provider-app>.affinity-router, only when enabled (Java's own reads condition keys)
	SlotService                 // service (140): <interface>:<version>:<group>.condition-router
	SlotProviderApp             // provider-app (145): <provider-app>.condition-router (see Java's quirk in the extension)
	SlotConsumerApp             // app (150): <consumer-app>.condition-router
	SlotScript                  // script (200): <provider-app>.script-router (AppScriptStateRouter)
	numSlots
)

// Router names as Java Dubbo's state router factories are named; they appear
// in traces and metrics.
const (
	RouterMock        = "mock"
	RouterMesh        = "mesh"
	RouterTag         = "tag"
	RouterAffinity    = "affinity"
	RouterAffinityApp = "affinity-provider-app"
	RouterService     = "service"
	RouterProviderApp = "provider-app"
	RouterConsumerApp = "app"
	RouterScript      = "script"
)

// RouterNames lists the routers in chain order (index 0 is the mock router,
// index Slot+1 is the router of that slot).
var RouterNames = [...]string{RouterMock, RouterMesh, RouterTag, RouterAffinity, RouterAffinityApp, RouterService, RouterProviderApp, RouterConsumerApp, RouterScript}

// String is the router name of the slot.
func (s Slot) String() string {
	if s < 0 || s >= numSlots {
		return "slot(" + itoa(int(s)) + ")"
	}
	return RouterNames[s+1]
}

// RuleRef is the rule in force in one slot, with where it came from.
type RuleRef struct {
	// Key is the config-center key (or "static:<key>" for a dubbo.router rule).
	Key string
	// Version identifies the accepted revision, e.g. "3.0#2" (rule format
	// 3.0, second accepted content of the key).
	Version string
	// Condition is the rule of a condition slot (nil: no rule).
	Condition *condition.Rule
	// Tag is the rule of the tag slot (nil: static tag routing only).
	Tag *tag.Rule
	// Mesh are the mesh rules of the mesh slot, one per provider
	// application (Key and Version of the RuleRef itself stay empty).
	Mesh []mesh.AppRule
	// Affinity is the rule of the affinity slot.
	Affinity *affinity.Rule
	// Script is the rule of the script slot (compiled once per rule
	// version; its dialect decides whose meaning it has).
	Script *script.Rule
	// Configurators is the list of a .configurators key (dynamic
	// configuration; not a router slot, see Input.Configurators).
	Configurators configurator.List
}

// Empty reports whether no rule is in force.
func (r RuleRef) Empty() bool {
	return r.Condition == nil && r.Tag == nil && len(r.Mesh) == 0 && r.Affinity == nil && r.Script == nil
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
