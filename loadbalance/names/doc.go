// Package names is the one list of load-balancer names dubboroute knows:
// Java Dubbo 3.3's extension names and dubbo-go v3.3.2's, each mapped to
// the Java balancer that runs for it, and the dubbo-go balancers kept as
// dubbo-go's own (DubboGoKept: p2c). It links nothing, so the lint
// command and the dubbo-go glue (extension/balancers) share it.
package names
