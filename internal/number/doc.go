// Package number widens a Go numeric value held in an interface (a call
// argument, a map key) to int64, uint64 or float64 with its width, so that
// every place that renders, hashes or compares arguments as Java would
// sees Go's numeric types the same way, through one type switch.
package number
