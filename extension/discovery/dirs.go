package discovery

import (
	"dubbo.apache.org/dubbo-go/v3/cluster/directory"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/registry"
)

// Dir and DirFactory are dubbo-go's directory constructor shape; the
// wrappers of this package (Followed, Protected, Observed, JavaView) take
// and return one, and extension/consumer composes them when it registers
// dubbo-go's registry directories.
type (
	Dir        = directory.Directory
	DirFactory = func(*common.URL, registry.Registry) (directory.Directory, error)
)

// Protected makes an interface-level registry directory subscribe through
// the empty-protection filter (see protectedRegistry).
func Protected(newDir DirFactory) DirFactory {
	return func(u *common.URL, r registry.Registry) (directory.Directory, error) {
		return newDir(u, protect(r))
	}
}
