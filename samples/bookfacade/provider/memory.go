package provider

import (
	"strconv"
	"strings"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

func memoryHas(port int) bool {
	want := ":" + strconv.Itoa(port) + "/"
	for _, u := range memory.Registry.Providers(api.Interface) {
		if strings.Contains(u, want) {
			return true
		}
	}
	return false
}

// Leave removes the provider on port from the in-process registry (as if its
// ZooKeeper session ended) without stopping its listener; consumers drop it
// on the next notification. It reports whether anything was removed.
func Leave(port int) bool {
	want := ":" + strconv.Itoa(port) + "/"
	removed := false
	for _, u := range memory.Registry.Providers(api.Interface) {
		if strings.Contains(u, want) {
			_ = memory.Registry.Unregister(u)
			removed = true
		}
	}
	return removed
}
