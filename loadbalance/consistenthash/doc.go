// Package consistenthash is Java Dubbo 3.3's ConsistentHashLoadBalance.
//
// The ring is Java's ketama ring: for every provider address (host:port)
// and i in [0, hash.nodes/4), md5(address + i) gives four points, bytes
// 4h..4h+3 little-endian; on a collision the later provider wins. hash.nodes
// (default 160) and hash.arguments (default "0", split on commas) are the
// first provider's method parameters (<method>.hash.nodes, dubbo-go's
// methods.<method>.hash.nodes, then hash.nodes). The key is the selected
// arguments in Java's String.valueOf form (see AppendJava), concatenated;
// the pick is the first point at or after the first four md5 bytes of the
// key, wrapping around.
//
// A Ring is built once per routed provider list and method parameters (so
// a list that routing changed, or a provider that was replaced, never
// reuses another list's ring: dubbo-go v3.3.2 keys its cache by the
// invoker count). Pick builds the key in a stack buffer, hashes it and
// binary-searches the ring: O(log n), no allocation for the argument types
// that cross the wire as scalars (larger keys and collections may allocate).
//
// Pinned divergences: hash.nodes below 4 (Java: an empty ring and a
// NullPointerException per call) uses 160; a malformed hash.arguments
// (Java: NumberFormatException per call) uses "0"; Set.Problems-style
// notes are returned by NewRing for lint.
package consistenthash
