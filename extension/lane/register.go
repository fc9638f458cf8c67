package lane

// Register installs full-link lanes: the lane configuration from the
// environment (DUBBOROUTE_LANE, DUBBOROUTE_LANE_KEYS) and the proxy
// factory wrappers that make every provider invoker capture the lane of
// the call it serves. Cluster invokers apply it through ClusterInvoker
// (extension/consumer wraps every cluster strategy). Package extension's
// init calls it once, in its documented order (this package's tests, which
// do not link package extension, from their TestMain); it is not
// idempotent (each call wraps the proxy factories again).
func Register() {
	SetLaneConfig(laneConfigFromEnv())
	wrapProxyFactories()
}
