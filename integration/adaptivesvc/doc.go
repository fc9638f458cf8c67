// Package adaptivesvc proves that dubbo-go's adaptive service survives the
// dubboroute import (TestAdaptiveServiceKept): a reference with
// cluster adaptiveService and balancer p2c keeps dubbo-go's p2c, which
// picks the provider with the larger remaining capacity its providers'
// adaptive-service filter (padasvc) reports, exactly as with dubbo-go
// alone. Java's adaptive balancer stays under Java's name.
//
// The fleet runs as child processes (integration/harness): two plain
// dubbo-go providers on free loopback ports, each reporting a fixed
// capacity (internal/capfleet), and one consumer binary per side, built
// from the same code, once without and once with the dubboroute import
// (internal/capconsumer, internal/capconsumerdr). Nothing external is
// needed (no ZooKeeper, no Java).
package adaptivesvc
