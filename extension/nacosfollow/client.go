package nacosfollow

import (
	"fmt"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"

	dnacos "github.com/dubboroute/dubboroute/directory/nacos"
	"github.com/dubboroute/dubboroute/directory/pool"
)

// The Nacos client both follows share: the interface-level one
// (follow.go) and the application-level one (applevel.go).

// clients are dubboroute's Nacos naming clients, one per server list,
// namespace and credentials, shared by every subscription of the process
// and kept for its lifetime (as dubbo-go keeps its registry clients).
// Package state because the subscriptions come from registries dubbo-go
// builds through its extension registry, with no context to share a client
// through. (nacosrules keeps the config clients, keyed by group and
// timeout too.)
var clients pool.Pool[*dnacos.Client]

// Client returns the shared client for a Nacos registry URL (its Location,
// registry.namespace and credentials).
func Client(ru *common.URL) (*dnacos.Client, error) {
	ns := ru.GetParam(constant.RegistryNamespaceKey, "")
	id := ru.Location + "|ns=" + ns + "|user=" + ru.Username + "|" + ru.Password
	return clients.Get(id, func() (*dnacos.Client, error) {
		opts := []dnacos.Option{dnacos.WithNamespace(ns)}
		if ru.Username != "" {
			opts = append(opts, dnacos.WithCredentials(ru.Username, ru.Password))
		}
		c, err := dnacos.New(strings.Split(ru.Location, ","), opts...)
		if err != nil {
			return nil, fmt.Errorf("nacos registry %s: %w", ru.Location, err)
		}
		return c, nil
	})
}
