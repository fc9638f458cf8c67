package cluster

import (
	"strconv"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/router"
)

// FromDubbo converts a dubbo-go URL into the router view, without going
// through its string form. A nil URL gives nil.
func FromDubbo(cu *common.URL) *router.URL {
	if cu == nil {
		return nil
	}
	u := &router.URL{
		Protocol: cu.Protocol,
		Username: cu.Username,
		Password: cu.Password,
		Host:     cu.Ip,
		Path:     trimSlash(cu.Path),
		Params:   map[string]string{},
	}
	if cu.Port != "" {
		if p, err := strconv.Atoi(cu.Port); err == nil && p >= 0 && p <= 65535 {
			u.Port = p
		}
	}
	cu.RangeParams(func(k, v string) bool {
		u.Params[k] = v
		return true
	})
	return u
}

func trimSlash(p string) string {
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	return p
}
