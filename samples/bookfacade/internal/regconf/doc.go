// Package regconf turns the samples' -registry and -config-center flags
// ("memory://", "zookeeper://host:port") into dubbo-go options, and holds
// the -param flag the sample consumer and provider share.
package regconf
