// Package lanetrust is a provider's trust boundary for full-link lanes:
// which callers may steer the traffic of the calls a service makes while
// serving theirs (the request tag dubbo.tag, its force flag
// dubbo.force.tag, the gray decision dubboroute.gray and the gray rules'
// identity keys), and an integrity check of the gray decision (an
// HMAC-SHA256 with a shared key over the decision and the identity).
//
// It is pure logic over a served call's attachment map; package extension
// applies it to every call a dubbo-go provider serves, before the lane is
// captured (LaneConfig.Ingress, or the DUBBOROUTE_LANE_INGRESS,
// DUBBOROUTE_LANE_INGRESS_MODE, DUBBOROUTE_LANE_TRUSTED,
// DUBBOROUTE_LANE_KEY_FILE variables). See docs/security.md.
package lanetrust
