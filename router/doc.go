// Package router holds what every dubboroute router shares: the parsed URL
// view with Java Dubbo's toOriginalMap semantics, the per-call view of an
// invocation, interned provider sets over one provider snapshot, the explain
// trace, and injectable randomness.
//
// The design rule is "compile once, route many": everything that depends only
// on the provider list, the consumer URL and the rules is computed when one of
// them changes (off the hot path) and stored as interned Sets; a call then only
// evaluates what varies per call (method, arguments, attachments) and combines
// precomputed Sets. Set operations are memoised per Universe, so routing a call
// costs the same at 10 providers as at 10,000 and allocates nothing once warm.
//
// A URL's parameters (Params) are a map or, for the provider URLs a chain
// keeps, packed over a ParamTable of interned keys, values and key lists:
// a fleet of 10,000 providers then costs a few dozen bytes of parameters
// per provider instead of a map each.
package router
