// Package lanes tests full-link lanes (issue 15): that a request's lane —
// its tag (dubbo.tag), the gray identity the gray rules classify on
// (userId, and any attachment a rule in force names) and a percentage
// decision (dubboroute.gray) — follows it across hops, in Go with the
// extension imported and in Java with integration/java's lane filter.
//
// TestFullLinkLanes starts one private ZooKeeper and, per chain
// (Go->Go->Go, Go->Java->Go, Java->Go->Java), an entry A and three
// instances at each of the hops B and C: normal, gray by tag (dubbo.tag=gray)
// and gray by status (status=gray; a request without a tag never reaches a
// tagged provider, so one instance cannot serve both lanes). The Go services
// are integration/lanes/hop processes, the Java ones one JVM per hop
// (io.github.dubboroute.it.LaneHop, several instances in one JVM, each on its
// own port in its own Dubbo module). Every call returns the trace of the
// instances that served it and the attachments each received.
//
// Modes: lanes on (1,000 calls per lane: every hop in the request's lane,
// nothing but the protocol's and the lane's attachments at the last hop);
// lanes off (Go DUBBOROUTE_LANE=off, Java -Ddubboroute.lane=off) and a Go
// middle hop that calls downstream with context.Background() (300 calls per
// lane), where what breaks is asserted as measured.
package lanes
