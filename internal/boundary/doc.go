// Package boundary holds no code: its test enforces which dubbo-go
// packages dubboroute's pure routing logic may depend on (see
// boundary_test.go for the list and why).
package boundary
