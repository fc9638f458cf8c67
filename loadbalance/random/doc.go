// Package random is Java Dubbo 3.3's RandomLoadBalance over a weight.Table.
//
// When the first provider has neither a weight for the method nor a
// timestamp, Java draws uniformly, whatever the other weights (its
// needWeightLoadBalance shortcut), and so does Pick. Otherwise, with a
// positive total and unequal weights, it draws an offset in [0, total) and
// takes the first provider whose running sum exceeds it (Java scans up to 4
// providers and binary-searches above; both give this provider), else it
// draws uniformly. Pick is O(log n) and allocates nothing.
package random
