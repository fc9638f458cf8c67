// Package condition implements Java Dubbo 3.3's condition router for
// dubbo-go consumers: parse (v3.0 YAML, v3.1 YAML, a single condition, a
// registry router URL) -> compile against one provider snapshot -> route.
//
// (Work in progress: the API below is final; the full documentation of
// semantics and divergences lands with the implementation.)
package condition
