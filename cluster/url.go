package cluster

import (
	"strconv"

	"dubbo.apache.org/dubbo-go/v3/common"

	"github.com/dubboroute/dubboroute/router"
)

// FromDubbo converts a dubbo-go URL into the router view, without going
// through its string form. A nil URL gives nil. The parameters are a map
// the caller may change.
func FromDubbo(cu *common.URL) *router.URL {
	if cu == nil {
		return nil
	}
	u := &router.URL{}
	fromDubbo(u, cu)
	m := map[string]string{}
	cu.RangeParams(func(k, v string) bool {
		m[k] = v
		return true
	})
	u.Params = router.ParamsOf(m)
	return u
}

// packer converts dubbo-go URLs into router URLs with packed parameters
// (router.ParamTable.Pack): what a chain keeps of every provider.
type packer struct {
	tab *router.ParamTable
	kvs []router.KV // scratch
}

func newPacker() *packer { return &packer{tab: router.NewParamTable()} }

// fill converts cu into *u, its parameters packed over p's table; false
// (u untouched) for a nil cu.
func (p *packer) fill(u *router.URL, cu *common.URL) bool {
	if cu == nil {
		return false
	}
	fromDubbo(u, cu)
	kvs := p.kvs[:0]
	cu.RangeParams(func(k, v string) bool {
		kvs = append(kvs, router.KV{Key: k, Value: v})
		return true
	})
	u.Params = p.tab.Pack(kvs)
	clear(kvs)
	p.kvs = kvs[:0]
	return true
}

// fromDubbo sets *u to cu without its parameters.
func fromDubbo(u *router.URL, cu *common.URL) {
	*u = router.URL{
		Protocol: cu.Protocol,
		Username: cu.Username,
		Password: cu.Password,
		Host:     cu.Ip,
		Path:     trimSlash(cu.Path),
	}
	if cu.Port != "" {
		if p, err := strconv.Atoi(cu.Port); err == nil && p >= 0 && p <= 65535 {
			u.Port = p
		}
	}
}

func trimSlash(p string) string {
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
	}
	return p
}
