// Package shared holds the little process-wide state more than one of
// extension's subpackages uses: the gray balancer and the startup settings.
// It imports no other package of extension.
package shared
