//go:build !dubboroute

package main

// impl names the routing implementation of this build.
const impl = "dubbogo"

// probe: a plain dubbo-go consumer has no snapshots to look at.
func probe(string) (uint64, func(k int) map[int]bool, bool) { return 0, nil, false }

// rebuildStats: dubbo-go's router chain keeps no rebuild statistics.
func rebuildStats() Stats { return Stats{} }

// routedOnly: a plain dubbo-go consumer has no snapshots to look at.
func routedOnly(string, int) ([]bool, bool) { return nil, false }
