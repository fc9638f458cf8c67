// Package metrics holds every Prometheus collector of package extension
// and its subpackages (extension.Collectors returns them), and the
// per-chain observer that resolves its counters once.
package metrics
