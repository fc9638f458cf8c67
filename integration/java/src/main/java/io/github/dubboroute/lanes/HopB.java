package io.github.dubboroute.lanes;

/** Position B of the full-link lane chains (integration/lanes); the Go hops serve the same interface name. */
public interface HopB {
    /** This hop's trace segment, then the downstream trace (see {@code it.LaneHop}). */
    String hop(String in);
}
