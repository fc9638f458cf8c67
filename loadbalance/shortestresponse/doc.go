// Package shortestresponse is Java Dubbo 3.3's ShortestResponseLoadBalance:
// each provider's estimate is its average successful elapsed time within
// the sliding window (integer division; 0 without successes) times its
// active calls + 1; among the providers with the smallest estimate the pick
// is leastactive's (weighted draw, or uniform for equal weights). Every
// slide period (default 30000 ms, Java's shortestResponseSlidePeriod) the
// windows restart from the current counters; Java resets asynchronously
// after the pick, here synchronously after the pick: the pick is the same.
//
// Pick touches only the routed providers and allocates nothing; the window
// of each provider is resolved once per routed list and method.
package shortestresponse
