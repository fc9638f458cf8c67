// Package enum names the values of the module's small enumerations (a
// uint8 type with a table of names indexed by value), the same way for all
// of them: the table's name, or "<kind>(<n>)" for a value past it.
package enum

import "strconv"

// Name is names[v], or kind(v) (as "mode(7)") for a value past the table.
func Name[T ~uint8](names []string, v T, kind string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return kind + "(" + strconv.Itoa(int(v)) + ")"
}
