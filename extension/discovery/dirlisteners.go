package discovery

import (
	"reflect"
	"unsafe"

	"dubbo.apache.org/dubbo-go/v3/common"
	commonConfig "dubbo.apache.org/dubbo-go/v3/common/config"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	regdir "dubbo.apache.org/dubbo-go/v3/registry/directory"
)

// ReleaseDirectoryListeners removes the two config-center listeners
// dubbo-go v3.3.2's RegistryDirectory adds when it is built (its
// <app>.configurators and <interface>:<version>:<group>.configurators
// listeners) and never removes: without this, every destroyed reference's
// directory (its invokers, and the dubboroute binding routing them) stays
// reachable from the config center for good. Call it after the directory
// is destroyed. It reads the two unexported fields of the pinned dubbo-go
// version; a directory of another shape is left alone.
func ReleaseDirectoryListeners(d Dir) {
	dir, ok := d.(*regdir.RegistryDirectory)
	if !ok || dir == nil {
		return
	}
	dc := commonConfig.GetEnvInstance().GetDynamicConfiguration()
	u := dir.GetURL()
	if dc == nil || u == nil {
		return
	}
	v := reflect.ValueOf(dir).Elem()
	listener := func(name string) config_center.ConfigurationListener {
		f := v.FieldByName(name)
		if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
			return nil
		}
		l, _ := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(config_center.ConfigurationListener)
		return l
	}
	if l := listener("referenceConfigurationListener"); l != nil {
		dc.RemoveListener(u.ColonSeparatedKey()+constant.ConfiguratorSuffix, l)
	}
	if l := listener("consumerConfigurationListener"); l != nil {
		dc.RemoveListener(appConfiguratorsKey(u), l)
	}
}

func appConfiguratorsKey(u *common.URL) string {
	return commonConfig.EnsureApplicationAttribute(u, u.SubURL).Name + constant.ConfiguratorSuffix
}
