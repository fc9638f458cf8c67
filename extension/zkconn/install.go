package zkconn

import (
	"context"

	"dubbo.apache.org/dubbo-go/v3/common"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"github.com/dubbogo/gost/log/logger"

	// dubbo-go's ZooKeeper config center registers its factory first; it
	// is wrapped below.
	_ "dubbo.apache.org/dubbo-go/v3/config_center/zookeeper"
)

// The ZooKeeper config-center factory is wrapped so that dubbo-go's client
// is prepared (credentials, TLS) before the config center creates it; the
// config center is the first ZooKeeper client dubbo.Load creates.
func init() {
	orig, err := dgext.GetConfigCenterFactory("zookeeper")
	if err != nil || orig == nil {
		return
	}
	w := configCenterFactory{orig}
	dgext.SetConfigCenterFactory("zookeeper", func() config_center.DynamicConfigurationFactory { return w })
}

type configCenterFactory struct {
	config_center.DynamicConfigurationFactory
}

// GetDynamicConfiguration implements config_center.DynamicConfigurationFactory.
func (f configCenterFactory) GetDynamicConfiguration(u *common.URL) (config_center.DynamicConfiguration, error) {
	if err := Prepare(u); err != nil {
		logger.Errorf("[dubboroute] config center %s: %v", Redact(u), err)
	}
	return f.DynamicConfigurationFactory.GetDynamicConfiguration(u)
}

// FailedInvoker is the invoker of a reference whose registry refused to
// list its providers: every call fails with err, and it is never
// available, instead of starting with zero providers and failing with "no
// provider available".
type FailedInvoker struct {
	*base.BaseInvoker
	err error
}

// NewFailedInvoker returns a FailedInvoker for the reference URL u.
func NewFailedInvoker(u *common.URL, err error) *FailedInvoker {
	return &FailedInvoker{BaseInvoker: base.NewBaseInvoker(u), err: err}
}

// IsAvailable implements base.Invoker.
func (f *FailedInvoker) IsAvailable() bool { return false }

// Invoke implements base.Invoker.
func (f *FailedInvoker) Invoke(context.Context, base.Invocation) result.Result {
	return &result.RPCResult{Err: f.err}
}

// Err is the error every call fails with.
func (f *FailedInvoker) Err() error { return f.err }
