// Package outcome is what the route command (internal/cli) and the route
// console (console) both report about a call: every outcome of its v3.1
// weighted picks with its exact probability (Enumerate, Leaf, Pick), what
// the gray balancer would do (GrayInfo), and the routing trace drawn as a
// tree (WriteTrace). It has no dubbo-go imports; the console uses it
// without importing the CLI.
package outcome
