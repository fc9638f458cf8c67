package strategies

import (
	dgcluster "dubbo.apache.org/dubbo-go/v3/cluster/cluster"
	"dubbo.apache.org/dubbo-go/v3/cluster/directory"
	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/extension/balancers"
)

// clusterName is one cluster name a reference can give and what runs it.
type clusterName struct {
	name string
	// strategy is dubboroute's strategy (Java's name) running it; "" when
	// dubbo-go's own implementation is kept behind dubboroute's chain.
	strategy string
	// dubbogo: dubbo-go v3.3.2 ships a cluster of this name.
	dubbogo bool
}

// clusters is the one list of cluster names: Java's strategies under
// Java's names and dubbo-go's, and dubbo-go's adaptiveService, kept as
// dubbo-go's own (its p2c balancer and the providers' capacity replies;
// Java has no such cluster). Read only: a variable only because Go has no
// constant slices.
var clusters = []clusterName{
	{"failover", "failover", true}, {"failfast", "failfast", true}, {"failsafe", "failsafe", true},
	{"failback", "failback", true}, {"forking", "forking", true}, {"broadcast", "broadcast", true},
	{"available", "available", true}, {"zoneAware", "zone-aware", true}, {"zone-aware", "zone-aware", false},
	{"mergeable", "mergeable", false}, {constant.ClusterKeyAdaptiveService, "", true},
}

// DubboGoNames are the cluster names dubbo-go v3.3.2 ships, in the list's
// order: the clusters whose Join installs dubboroute's chain.
func DubboGoNames() []string {
	var out []string
	for _, c := range clusters {
		if c.dubbogo {
			out = append(out, c.name)
		}
	}
	return out
}

// Strategy is the canonical (Java) strategy of a cluster name, "" when
// this package does not implement it (dubbo-go's own, or unknown).
func Strategy(name string) string {
	for _, c := range clusters {
		if c.name == name {
			return c.strategy
		}
	}
	return ""
}

// Cluster is a dubbo-go cluster.Cluster running one of dubboroute's
// strategies.
type Cluster struct{ strategy string }

// New returns the cluster for a name (Java's or dubbo-go's); unknown names
// get failover.
func New(name string) *Cluster {
	s := Strategy(name)
	if s == "" {
		s = "failover"
	}
	return &Cluster{strategy: s}
}

// Join implements dubbo-go's cluster.Cluster.
func (c *Cluster) Join(dir directory.Directory) base.Invoker { return newInvoker(c.strategy, dir) }

// Register registers every name into dubbo-go's cluster registry; wrap
// may decorate the result (extension installs its chain and lanes there),
// nil for none. It also makes removed provider invokers drain their calls
// in flight before they are destroyed (drain.go). extension/consumer's
// Register calls it once.
func Register(wrap func(name string, c dgcluster.Cluster) dgcluster.Cluster) {
	registerDraining()
	for _, c := range clusters {
		if c.strategy == "" {
			continue // dubbo-go's own
		}
		name := c.name
		var cl dgcluster.Cluster = New(name)
		if wrap != nil {
			cl = wrap(name, cl)
		}
		dgext.SetCluster(name, func() dgcluster.Cluster { return cl })
	}
}

func warnOnce(kind, name, fallback string) {
	met.unknownNamesTotal.WithLabelValues(kind, name).Inc()
	logOnce("unknown:"+kind+"/"+name, "[dubboroute] %s %q is not registered; using Java's default %s", kind, name, fallback)
}

// EnsureCluster makes an unknown cluster name of a reference URL (and its
// registry SubURL) resolve to failover, as Java's default, with one
// warning and a metric, before dubbo-go looks it up (dubbo-go's registry
// protocol returns a nil invoker for an unknown name). wrap as Register.
func EnsureCluster(u *common.URL, wrap func(name string, c dgcluster.Cluster) dgcluster.Cluster) {
	for ; u != nil; u = u.SubURL {
		name := u.GetParam(constant.ClusterKey, "")
		if name == "" {
			continue
		}
		if _, err := dgext.GetCluster(name); err == nil {
			continue
		}
		warnOnce("cluster", name, "failover")
		var cl dgcluster.Cluster = New("failover")
		if wrap != nil {
			cl = wrap(name, cl)
		}
		dgext.SetCluster(name, func() dgcluster.Cluster { return cl })
	}
}

// LoadBalance returns the balancer of a name without panicking
// (extension/balancers, the one list of balancer names: Java's names,
// dubbo-go's aliases, an unknown name gets Java's default with a warning
// and a metric).
func LoadBalance(name string) loadbalance.LoadBalance {
	if name == "" {
		name = constant.LoadBalanceKeyRandom
	}
	return balancers.Get(name)
}
