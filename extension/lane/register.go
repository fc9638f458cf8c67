package lane

import "sync"

// registerOnce makes Register idempotent: dubbo-go's extension registry is
// process-wide (a package-level map per extension point), and Register is
// called from this package's init and may be called again.
var registerOnce sync.Once

// Register installs full-link lanes, once: the lane configuration from the
// environment (DUBBOROUTE_LANE, DUBBOROUTE_LANE_KEYS) and the proxy
// factory wrappers that make every provider invoker capture the lane of
// the call it serves. Cluster invokers apply it through ClusterInvoker
// (extension/consumer wraps every cluster strategy). The package's init
// calls Register.
func Register() {
	registerOnce.Do(func() {
		SetLaneConfig(laneConfigFromEnv())
		wrapProxyFactories()
	})
}
