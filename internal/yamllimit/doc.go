// Package yamllimit applies SnakeYAML's default LoaderOptions limits, which
// Java Dubbo's rule parsers use (new LoaderOptions()), to rule text before it
// is parsed: a text Java's loader refuses is refused here too, with the reason
// and the line, so that it cannot replace the rule in force.
package yamllimit
