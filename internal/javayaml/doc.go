// Package javayaml is dubboroute's one emulation of how Java Dubbo 3.3's rule
// parsers read YAML: SnakeYAML (YAML 1.1) with its default LoaderOptions.
// Every parser of a Java rule kind (condition, mesh, configurators, and the
// rule registry's limit check) reads through it, so a scalar resolves, a
// number is constructed and a value prints the same way for all of them:
//
//   - Check: SnakeYAML's default limits (nesting depth, aliases to
//     collections, code points); a text Java's loader refuses is refused with
//     its line, so that it cannot replace the rule in force.
//   - Resolve: which Java class SafeConstructor builds for a node (YAML 1.1
//     implicit resolution: yes/no/on/off are booleans, 017 is octal, 1:30 is
//     sexagesimal, explicit !!tags win, quoted scalars are strings).
//   - ConstructInt, ConstructFloat, BoolValue: the values SafeConstructor
//     builds (Integer, Long or BigInteger; Double; Boolean).
//   - String: String.valueOf of the value built ({k=v, ...}, [a, b], null,
//     Double.toString), with the work bounded against alias expansion.
//   - CastString: Java's (String) cast of a map value.
//
// The package is pure: it parses with gopkg.in/yaml.v3 and never logs.
package javayaml
