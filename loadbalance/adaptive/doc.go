// Package adaptive is Java Dubbo 3.3's AdaptiveLoadBalance as it behaves
// without provider metrics: two distinct candidates (both when there are
// two; else nextInt(n) and nextInt(n-1) shifted past the first), then, the
// two loads being equal, a weighted coin (nextInt(w1+w2) < w1; both 0:
// nextInt(2)).
//
// Java's loads come from the provider's ProfilerServerFilter reply
// (attachment lb_adaptive: curTime, load). dubbo-go providers never send
// it, so against them Java's loads stay 0 and this is exactly Java's pick.
// Against Java providers that do report load, Java prefers the lower load;
// dubboroute does not read the reply: a pinned divergence.
package adaptive
