package consumer

import (
	conf "dubbo.apache.org/dubbo-go/v3/common/config"
	"dubbo.apache.org/dubbo-go/v3/config_center"
)

func envDynamicConfiguration() config_center.DynamicConfiguration {
	return conf.GetEnvInstance().GetDynamicConfiguration()
}

func setEnvDynamicConfiguration(dc config_center.DynamicConfiguration) {
	conf.GetEnvInstance().SetDynamicConfiguration(dc)
}
