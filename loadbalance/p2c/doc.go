// Package p2c is the power of two choices on active calls per weight: two
// distinct providers drawn uniformly (nextInt(n), then nextInt(n-1)
// shifted past the first, as Java's AdaptiveLoadBalance draws its two
// candidates), the one with the lower (active + 1) / weight wins, a
// zero-weight provider loses to a positive one, ties keep the first draw.
// It is the gray balancer's p2c delegate (loadbalance/gray).
//
// It is not the balancer dubbo-go registers as p2c: that one is dubbo-go's
// own, kept under its name (loadbalance/names.DubboGoKept), and picks by
// the remaining capacity the providers' adaptive-service filter reports
// to dubbo-go's adaptiveService cluster.
package p2c
