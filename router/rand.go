package router

import "math/rand/v2"

// Rand returns a uniform integer in [0, n) for n > 0. Routers and balancers
// take one so tests can pin every random decision; the default is
// math/rand/v2's goroutine-safe, allocation-free generator.
type Rand func(n uint64) uint64

// DefaultRand is rand.Uint64N.
func DefaultRand(n uint64) uint64 { return rand.Uint64N(n) }
