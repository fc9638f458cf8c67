// Package capfleet is the fleet of TestAdaptiveServiceKept, in plain
// dubbo-go v3.3.2 (it links nothing of dubboroute, so a consumer built
// from it alone is "dubbo-go alone"): a provider of the Capacity service
// with dubbo-go's adaptive-service filter on (padasvc) whose reported
// remaining capacity is set by a flag, and a consumer that calls it
// through cluster adaptiveService with balancer p2c and counts which
// provider served each call.
package capfleet
