// Package scriptbench holds the script-rule benchmark and parity test
// beside dubbo-go v3.3.2's own script router: BenchmarkScriptRoute (one call
// through a script rule, dubbo-go and dubboroute in the same run, with the
// ratio) and TestScriptSameAsDubbogo. It is a package of its own because
// importing dubbo-go's script router registers its router factory, which
// the parent package's dubbo-go chain must not contain.
package scriptbench
