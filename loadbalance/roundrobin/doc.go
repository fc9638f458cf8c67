// Package roundrobin is Java Dubbo 3.3's RoundRobinLoadBalance: smooth
// weighted round robin (every call adds each provider's weight to its
// current value, picks the first strictly largest and subtracts the total
// from it), with its state kept as Java keeps it: per service key and
// method, an entry per provider identity (protocol://host:port/path) that
// survives routed-set changes, starts at 0 for a newcomer, resets when its
// weight changes, and is dropped when idle for more than 60 s on a call
// whose list size differs from the number of entries.
//
// # Cost
//
// Java walks every provider on every call; so does Pick at first, touching
// each routed provider once and allocating nothing. When the providers
// share one weight and their currents spread less than n times it, Java's
// walk is a fixed rotation (current descending, index ascending, each
// provider once every n calls, back to the same currents after n calls).
// On the second consecutive walk of one routed list in that state (a fresh
// state always is), Pick switches to that rotation: one atomic add per
// call, O(1), no allocation. Any change (another routed list, a weight
// change, a warm-up step) materialises the entries from the rotation
// counter, exactly as the walk would have left them (Java's cleanup of
// idle entries included), and walks again.
package roundrobin
