package condition

import "gopkg.in/yaml.v3"

// JavaString is String.valueOf of the value SnakeYAML (YAML 1.1, Java Dubbo's
// parser) builds for a node: integers in decimal, booleans as true/false,
// floats as Java's Double.toString, maps as {k=v, ...}, lists as [a, b],
// null as "null". Other rule parsers (configurators) share it.
func JavaString(n *yaml.Node) (string, error) { return javaToString(n) }

// YAMLKind tells how SnakeYAML resolves a node: "null", "string", "bool",
// "int", "float", "timestamp", or "collection" for maps and lists.
func YAMLKind(n *yaml.Node) string {
	switch resolve(n) {
	case kindNull:
		return "null"
	case kindString:
		return "string"
	case kindBool:
		return "bool"
	case kindInt:
		return "int"
	case kindFloat:
		return "float"
	case kindTimestamp:
		return "timestamp"
	}
	return "collection"
}

// YAMLDeref follows alias nodes.
func YAMLDeref(n *yaml.Node) *yaml.Node { return deref(n) }
