// Package cli implements the dubboroute command: lint, route, explain, and
// get/push/rm/watch of rules in ZooKeeper.
//
// Every command evaluates rules with the same compiled code the runtime uses
// (router/condition, router/tag, loadbalance/gray and the cluster chain),
// never with a second interpreter: lint reports the findings the parsers
// record, route and explain build a cluster.Snapshot from the case's
// providers and rules and route through cluster.Evaluator.
//
// Conventions: --help on every command; exit status 0 (ok), 1 (findings or
// failure) and 2 (usage); human output by default and --json for machines;
// colour only when stdout is a terminal and NO_COLOR is unset. Errors are one
// line naming the thing that failed; no input makes the command panic.
package cli
