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
// Java walks every provider on every call. Here a state whose providers all
// have one weight and whose entries are all at 0 (a fresh state, the usual
// case: default weights) runs as a plain rotation, which is exactly what the
// smooth algorithm does from zero with equal weights: one atomic add per
// call, O(1), no allocation. Any change (another routed set, a weight
// change, a warm-up step) materialises the entries from the rotation
// counter and continues with Java's walk, which touches each routed
// provider once and allocates nothing; the rotation resumes when the
// entries are all 0 again with equal weights.
package roundrobin
