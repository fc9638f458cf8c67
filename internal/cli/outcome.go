package cli

import (
	"io"

	"github.com/dubboroute/dubboroute/internal/outcome"
	"github.com/dubboroute/dubboroute/router"
)

// The outcome types and the trace drawing the console shares live in
// package internal/outcome; these names keep the CLI's own code and tests
// as they were.
type (
	// Leaf is one path through a call's v3.1 weighted picks.
	Leaf = outcome.Leaf
	// Pick is one weighted draw.
	Pick = outcome.Pick
	// GrayInfo is what the gray balancer would do with the eligible providers.
	GrayInfo = outcome.GrayInfo
)

// Enumerate lists every outcome of one call's weighted picks (see
// outcome.Enumerate).
func Enumerate(compile func(router.Rand) func(*router.Trace) *router.Set, ids func(*router.Set) []string) ([]Leaf, error) {
	return outcome.Enumerate(compile, ids)
}

// WriteTrace draws a routing trace as a tree (see outcome.WriteTrace).
func WriteTrace(w io.Writer, color bool, steps []router.Step) { outcome.WriteTrace(w, color, steps) }
