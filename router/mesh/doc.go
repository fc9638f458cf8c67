// Package mesh is Java Dubbo 3.3.6's standard mesh rule router
// (StandardMeshRuleRouter, chain position -50, between the mock and the tag
// router) for dubbo-go consumers: VirtualService and DestinationRule
// documents stored at <provider-app>.MESHAPPRULE, for every provider
// application among the providers.
//
// The life cycle is parse → compile → route, like the other routers.
// ParseRule reads a key's value as Java's MeshAppRuleListener and
// MeshRuleRouter.onRuleChange do, binding the documents with the field names
// and conversion rules of Java's PojoUtils (an integer given for a Double
// matcher is ignored, a non-integer weight rejects the update, unknown keys
// are ignored and reported as findings). Compile turns the rules in force
// and a provider snapshot into interned subset sets and fixes the
// VirtualService route of the consumer's service. Route reads only the call
// (method, arguments, attachments), draws one weighted destination per
// application without allocating, and returns an interned set.
//
// Java's behaviour is kept where it decides which providers are eligible,
// including its quirks: subset labels are read consumer value first (as a
// 3.x interface-level provider URL answers getOriginalServiceParameter),
// the first matching route detail decides even when its destinations have
// no providers, every provider of an application without a chosen subset is
// dropped once any application routes, and the call fails (no provider)
// where Java throws per call: an argument index out of range, a non-numeric
// argument for num_value, a regex that does not compile, null list
// elements, empty route lists. The weighted draw is Java's too: r in
// [0, W) with W the Java int sum of max(weight, 1), and the first
// destination with r <= its cumulative weight is drawn, so the first gets
// one draw value more than its weight and the last one fewer (a weight-0
// last destination after weighted ones is never drawn; of two destinations
// without weights, the first always is). Go and Java consumers of one fleet
// split traffic the same; route --destinations reports the exact
// probabilities.
package mesh
