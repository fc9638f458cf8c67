// Package graybench is the fleet and rule the gray balancer's benchmarks
// share, so the core's and the dubbo-go adapter's numbers are comparable.
package graybench
