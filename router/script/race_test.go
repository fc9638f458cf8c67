//go:build race

package script

// raceEnabled: the race detector drops sync.Pool entries at random, so the
// runtime pool misses and allocation counts are not the product's;
// TestRouteAllocations asserts them in the run without -race
// (scripts/test.sh).
const raceEnabled = true
