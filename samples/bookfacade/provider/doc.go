// Package provider serves the BookFacade over the dubbo protocol (hessian2)
// on dubbo-go, registered interface-level as application demo-provider.
// Every Book it returns is signed "served-by-<port>" with the port of the
// connection that carried the call, so callers can see where routing sent
// them.
//
// Several providers may run in one process (the embedded demo and the
// end-to-end tests do): each gets its own dubbo-go Instance, server, port and
// registry registration. dubbo-go keeps one reflective service entry per
// (protocol, interface, group, version) per process, so Start serialises
// exports and re-registers that entry for each new port; the handler is
// stateless and reads the serving port from the call, so every port answers
// correctly through whichever entry is current.
package provider
