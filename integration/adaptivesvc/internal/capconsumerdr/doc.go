// Command capconsumerdr is capconsumer with the one dubboroute import
// added, nothing else changed.
package main
