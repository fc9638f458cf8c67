package names

import "sort"

// Default is Java's default load balancer.
const Default = "random"

// Java are Java Dubbo 3.3.6's LoadBalance extension names.
var Java = []string{"adaptive", "consistenthash", "leastactive", "random", "roundrobin", "shortestresponse"}

// aliases maps every registered name to the Java balancer it runs.
var aliases = map[string]string{
	"random": "random", "aliasmethod": "random",
	"roundrobin": "roundrobin", "interleavedweightedroundrobin": "roundrobin", "iwrr": "roundrobin",
	"leastactive":      "leastactive",
	"shortestresponse": "shortestresponse",
	"consistenthash":   "consistenthash", "consistenthashing": "consistenthash",
	"adaptive": "adaptive",
}

// DubboGoKept are dubbo-go v3.3.2 balancers that have no Java counterpart
// and stay dubbo-go's own under their own name: p2c picks by the remaining
// capacity its providers' adaptive-service filter reports (the only
// balancer dubbo-go's adaptiveService cluster accepts). Java's adaptive is
// a different balancer and stays under Java's name.
var DubboGoKept = []string{"p2c"}

// IsDubboGoKept reports whether name is one of DubboGoKept.
func IsDubboGoKept(name string) bool {
	for _, k := range DubboGoKept {
		if k == name {
			return true
		}
	}
	return false
}

// All are the names dubboroute registers (Java's and dubbo-go's aliases of
// them; not DubboGoKept), sorted.
func All() []string {
	out := make([]string, 0, len(aliases))
	for n := range aliases {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Canonical returns the Java balancer a name runs and whether the name is
// one of ours ("" counts as the default).
func Canonical(name string) (string, bool) {
	if name == "" {
		return Default, true
	}
	c, ok := aliases[name]
	if !ok {
		return Default, false
	}
	return c, true
}

// IsJava reports whether Java Dubbo 3.3.6 has a balancer of that name
// (a Java consumer fails every call, IllegalStateException, on any other).
func IsJava(name string) bool {
	for _, j := range Java {
		if j == name {
			return true
		}
	}
	return false
}
