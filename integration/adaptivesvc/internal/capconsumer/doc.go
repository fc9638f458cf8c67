// Command capconsumer is TestAdaptiveServiceKept's consumer with dubbo-go
// alone (no dubboroute import): -url, -n; it prints one line
// "COUNTS port=count,..." and waits to be stopped.
package main
