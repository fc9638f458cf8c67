// Command capprovider is a plain dubbo-go provider of TestAdaptiveServiceKept
// (capfleet.Serve): -port, -capacity. It prints READY once it listens and
// serves until it is signalled.
package main
