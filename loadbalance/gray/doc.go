// Package gray is dubboroute's gray-release load balancer for dubbo-go v3
// consumers.
//
// Out of the box it does exactly what the classic Dubbo "GrayLoadBalance"
// does (seed 002): the request's user id is the invocation attachment
// userId, the gray users are the consumer URL parameter grayUserids (comma
// separated), and a provider is gray when its own parameter status equals
// gray. Gray users go to gray providers (falling back to the normal ones when
// no gray provider is alive); everyone else never reaches a gray provider.
// All names are configurable through Options.
//
// A YAML rule stored under the config-center key <provider-app>.gray-router
// (group dubbo) generalises this: which providers are gray (parameter
// matchers, address patterns, dubbo.tag), which requests are gray (ordered
// ShenYu-style request rules with and/or over conditions on attachments,
// arguments, the method and consumer parameters), sticky percentage rollout
// and time ramps, the empty-gray-pool policy and the balancer used inside the
// chosen pool. The schema is documented in README.md; ParseRule validates it
// strictly and names the field and YAML line of every error.
//
// # Shape
//
// The work is split the way the rest of dubboroute is: compile once, pick
// many.
//
//   - ParseRule turns YAML into a validated, immutable *Rule (regexes,
//     ranges, times, address patterns compiled here).
//   - Compile takes a rule, the consumer URL and the candidate provider list
//     and produces a *Plan: the gray and normal pools, every provider's weight
//     (service and method level, warm-up: a loadbalance/weight.Set per
//     pool) and, for the roundrobin delegate, Java's round-robin state.
//     Conditions on consumer parameters are resolved here.
//   - Plan.Pick classifies one call (gray or not) and picks a provider inside
//     the chosen pool with the delegate balancer: the loadbalance package of
//     that name (random, roundrobin, leastactive, p2c). It allocates
//     nothing.
//   - A *Decision passed to Pick (or LoadBalance.Explain) records why: the
//     user or hash key seen, the matching request rule, the sticky bucket or
//     random draw, the branch (gray, normal, gray-fallback, gray-fail), pool
//     sizes, the delegate and the chosen provider. nil records nothing.
//   - Package dubbogo (loadbalance/gray/dubbogo) adapts a Plan cache to
//     dubbo-go's loadbalance.LoadBalance. It lives in its own package so this
//     one does not link dubbo-go (which keeps coverage-guided fuzzing of the
//     parser usable and the core reusable by the CLI). Plans are cached by the identity of the routed invoker slice (dubboroute's
//     cluster chain hands back the same slice for the same routed set), so a
//     Select on a cached slice allocates nothing either.
//
// # Time and randomness
//
// Options.Now and Options.Rand are injected so tests pin every decision.
// Warm-up weights change with time; a Plan keeps each pool's prefix sums
// together with the instant until which they stay exact (the earliest moment
// any warming provider's weight changes) and rebuilds them lazily once that
// instant passes, so picks stay allocation-free between rebuilds.
//
// # Retries
//
// dubbo-go's failover calls Select again for a retry (and, for an already
// tried provider, again with a new slice that lacks it). The dubbogo adapter stores
// the gray/normal classification of a call in the invocation's attributes,
// so a retry never re-rolls a per-request percentage: a gray request stays
// gray and only the fallback policy can move it to the normal pool, when the
// slice it is given holds no gray provider any more.
package gray
