// Package boundary holds no code: its tests enforce which dubbo-go
// packages dubboroute's pure routing logic may depend on (boundary_test.go
// says which and why), and the module's import layering (layering_test.go,
// TestLayering: logic, directory, extension, applications; the ranks of the
// packages inside extension/; rule reads through extension/source; who
// links directory/memory).
package boundary
