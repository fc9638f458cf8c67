// Package rules is what the runtime (package extension) and the CLI share
// about config-center rules: the key conventions of Java Dubbo and Dubbo
// Admin (which suffix names which kind of rule, what a service key looks
// like) and parsing a rule's content by its kind into the compiled-ready
// forms of router/condition, router/tag and loadbalance/gray.
//
// Keeping this in one place is how `dubboroute lint`, `route` and `explain`
// accept and reject exactly what a consumer accepts and rejects.
package rules
