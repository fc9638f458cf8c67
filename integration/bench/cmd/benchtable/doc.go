// Command benchtable reads `go test -bench` output on stdin and prints the
// side-by-side comparison of integration/bench as a Markdown table: per
// benchmark and n, ns/op and allocs/op of dubboroute and of dubbo-go, and the
// ratio dubbo-go / dubboroute of ns/op. With -targets it then checks the
// targets of issue 8 and prints one line per target: met or missed, with the
// numbers.
//
// Benchmark names are read as Benchmark<Name>/<key=value>/.../impl=<impl>/n=<n>
// (the -<GOMAXPROCS> suffix is dropped). The impls "dubboroute" and "gray"
// are ours; every other impl is dubbo-go's. Segments other than impl and n
// name the case (e.g. "Rebuild change=join tag=fixed"). With -count > 1 the
// median of each metric is used. Lines that are not benchmark results are
// ignored; custom metrics (units other than ns/op, B/op, allocs/op) are
// listed after the table.
//
// Usage:
//
//	go test -run '^$' -bench . ./integration/bench/... | go run ./integration/bench/cmd/benchtable -targets
package main
