package strategies

import (
	"sync"

	dgcluster "dubbo.apache.org/dubbo-go/v3/cluster/cluster"
	"dubbo.apache.org/dubbo-go/v3/cluster/directory"
	"dubbo.apache.org/dubbo-go/v3/cluster/loadbalance"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/extension/balancers"
)

// Strategy names: Java's, and dubbo-go's where they differ.
var names = map[string]string{
	"failover": "failover", "failfast": "failfast", "failsafe": "failsafe", "failback": "failback",
	"forking": "forking", "broadcast": "broadcast", "available": "available",
	"zone-aware": "zone-aware", "zoneAware": "zone-aware", "mergeable": "mergeable",
}

// Names are the cluster names this package registers.
func Names() []string {
	out := make([]string, 0, len(names))
	for k := range names {
		out = append(out, k)
	}
	return out
}

// Strategy is the canonical (Java) strategy of a cluster name, "" when
// this package does not implement it.
func Strategy(name string) string { return names[name] }

// Cluster is a dubbo-go cluster.Cluster running one of dubboroute's
// strategies.
type Cluster struct{ strategy string }

// New returns the cluster for a name (Java's or dubbo-go's); unknown names
// get failover.
func New(name string) *Cluster {
	s := names[name]
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
// in flight before they are destroyed (drain.go).
func Register(wrap func(name string, c dgcluster.Cluster) dgcluster.Cluster) {
	registerDraining()
	for name := range names {
		var cl dgcluster.Cluster = New(name)
		if wrap != nil {
			cl = wrap(name, cl)
		}
		dgext.SetCluster(name, func() dgcluster.Cluster { return cl })
	}
}

var warned sync.Map // kind/name → struct{}

func warnOnce(kind, name, fallback string) {
	unknownNamesTotal.WithLabelValues(kind, name).Inc()
	if _, dup := warned.LoadOrStore(kind+"/"+name, struct{}{}); !dup {
		logger.Warnf("[dubboroute] %s %q is not registered; using Java's default %s", kind, name, fallback)
	}
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
