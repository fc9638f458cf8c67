// Package lane carries full-link lanes through a Go process (lane.go) and
// keeps attachment keys' spelling over triple (triheaders.go).
//
// Every provider invoker dubbo-go's proxy factories make captures the lane
// of the call it serves — the attachments named by LaneConfig (default
// dubbo.tag, dubbo.force.tag, dubboroute.gray, dubboroute.retry) and by the gray rules in
// force (userId and any attachment a rule classifies on) — into the
// handler's ctx; every cluster invoker (ClusterInvoker) adds that lane to a
// call made with that ctx before routing it, and removes what dubbo-go
// copied from the served call besides the lane. A call made with a ctx not
// derived from the handler's carries no lane (LaneFrom and WithLane carry
// it by hand). The gray balancer writes percentage decisions into the call
// (dubboroute.gray) so later hops keep them. DUBBOROUTE_LANE=off or
// SetLaneConfig(LaneConfig{Off: true}) turns all of it off.
//
// Its one registration point is Register (register.go), called by package
// extension's init. Package extension re-exports its API.
package lane
