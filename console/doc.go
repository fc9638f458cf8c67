// Package console is a live, read-only route console for a dubbo-go
// consumer that uses dubboroute: an http.Handler serving one page and two
// JSON endpoints that show what this process holds and why a call would go
// where it goes.
//
// What it shows, per consumer reference (one extension.Binding): every
// provider of the routing snapshot in force (address, application, static
// tag, effective weight, gray pool, removals held back by empty protection
// or the delete grace), the rule in force in each router slot, the chain
// order with per-router counters, per-branch counters (what each rule did
// with the calls: per condition line, tag branch and dynamic tag, mesh
// subset, affinity hit or miss), the gray balancer's pools, and the last
// calls that routing left without a provider, with their traces. Per
// config-center key: the rule text in force, its version, when it was
// accepted, and the last update that was rejected, with its error and line.
//
// The what-if form routes a hypothetical call (method, arguments,
// attachments) against the live snapshot with recording on — the same
// Snapshot.RouteSet every call takes — and lists every outcome of the v3.1
// weighted destination picks with its exact probability (the live rules
// recompiled with a scripted random source, the route command's
// enumeration), and what the gray balancer would decide.
//
// The console is generic over routers: a router that has a slot in
// cluster.RouterNames, records router.Step values, draws its random
// choices from cluster.Options.Rand and reports its router.Counters through
// cluster.Snapshot.BranchCounters is shown, traced, enumerated and counted
// without any change here; a new rule kind registered in package rules
// appears in the rule table by itself.
//
// Mount it in an application's own mux (New, with http.StripPrefix), or
// start it on a port of its own (Serve), which binds loopback addresses
// only unless Options.AllowRemote is set: the page shows internal provider
// addresses and rule texts. Every endpoint is GET-only; nothing can be
// changed through it.
//
// Hardening, as Envoy's admin interface does it (docs/security.md): however
// it is mounted, the console answers loopback callers only unless
// Options.AllowRemote; it answers only requests whose Host header is a
// loopback address, localhost or a name of Options.Hosts (a page of another
// origin reaching it by DNS rebinding sends its own name); provider,
// consumer and held URLs are shown with userinfo and credential-like
// parameters redacted (RedactURL); a request is bounded in time
// (Options.Timeout), in query size, and what-if requests in number at once
// (Options.MaxConcurrent) and in the addresses listed per outcome.
package console
