// Package script runs script rules (<provider-app>.script-router) on an
// embedded JavaScript engine (goja), in one of two dialects:
//
//   - DialectJava: as a Java Dubbo 3.3.6 consumer on Java 8/11 runs the rule
//     with Nashorn (ScriptStateRouter): ES5 only, the bindings invokers (a
//     java.util.List of invokers with getUrl()), invocation and context with
//     Java's method names, java.util.ArrayList, Java.type/Java.to/Java.from,
//     "s".equals(x); Java's result rules (a java.util.List or Java array is
//     retained against the input in input order; a JS array, null, undefined
//     or any other value, and a Java exception, fail the call; a JavaScript
//     error passes every provider through).
//   - DialectDubboGo: as dubbo-go v3.3.2's script router runs it: ES6+, Go
//     names (GetURL().Port, MethodName(), GetAttachment(k) as [value, ok]),
//     a JS array of the invokers binding's elements as the result, without
//     dubbo-go's panics (a non-array result passes through).
//   - DialectOff: as Java 15+ without a script engine: the rule never routes.
//
// The life cycle is that of the other routers: Parse reads the rule text
// and compiles the script once per rule version (a syntax error is an error
// naming line and column); Rule.Compile binds it to one provider snapshot;
// Compiled.Route runs it for one call against a pooled runtime with a time
// budget (goja's Interrupt), and maps the script's answer back to the
// snapshot's providers as a router.Set. Scripts get no file, network or
// process access: the runtimes have no require, console or Java classes
// beyond the few collection types above.
//
// Where this package knowingly differs from Java or dubbo-go is listed in
// docs/divergences.md (script rules) and in docs/rules.md.
package script
