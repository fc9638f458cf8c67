// Package tag is Java Dubbo 3.3's tag router (TagStateRouter) for dubbo-go
// consumers: static tags (the provider's dubbo.tag parameter) and dynamic tag
// rules (<provider-app>.tag-router, as Dubbo Admin writes them) with address
// patterns, v3.0 parameter matches and multi-level a|b|c request tags.
//
// The life cycle is compile-then-route. ParseRule turns the YAML text into a
// Rule once per rule change (rejecting a bad rule whole, with the tag and the
// YAML line); Compile turns (rule, provider snapshot, consumer URL) into pools
// of providers, once per address or rule change; Route answers a call with a
// few map lookups and memoised set operations, without scanning providers and
// without allocating.
//
// The exact decision procedure, the meaning of the two force flags and the
// places where this package knowingly differs from Java are in
// decision_table.md and on Compiled.Route.
package tag
