// Command hop is one service of the full-link lane chains of
// integration/lanes: a dubbo-go provider of a Hop interface that, while
// serving a call, calls the next Hop interface (if any) and returns the
// chain's trace. With -drive it is the entry of a chain instead: it serves
// HTTP on -http and makes the calls the test asks for.
//
// A trace is one segment per hop, joined by " > ":
//
//	name=b-tag;class=gray;port=20881;tag=gray;user=;decision=;timeout=0;keys=dubbo,dubbo.tag,...
//
// keys lists every attachment the hop received (its wire attachments plus
// what dubbo-go's server adds locally), so a test sees what leaked. An
// entry adds the application attachment x-probe to every call it makes.
package main
