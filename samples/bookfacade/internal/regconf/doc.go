// Package regconf turns the samples' -registry and -config-center flags
// ("memory://", "zookeeper://host:port") into dubbo-go options.
package regconf
