package shared

import (
	"time"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	graylb "github.com/dubboroute/dubboroute/loadbalance/gray/dubbogo"
)

// GrayLB is the process-wide gray balancer: registered as "gray" by the
// consumer package, fed its rules by the rule store, asked for the
// attachment keys its rules classify on by the lane package.
var GrayLB = graylb.New(gray.Options{})

// Defaults of the settings below (package extension exports them as
// variables an application sets before dubbo.Load).
const (
	DefaultStartupWait               = 3 * time.Second
	DefaultStartupSettle             = 150 * time.Millisecond
	DefaultRegistryConfiguratorsWait = 3 * time.Second
)

// The settings the subpackages read at run time. Package extension points
// them at its exported variables (extension.StartupWait, ...) in its init,
// so that an application setting those is what the subpackages see.
var (
	StartupWait               = ptr(DefaultStartupWait)
	StartupSettle             = ptr(DefaultStartupSettle)
	RegistryConfiguratorsWait = ptr(DefaultRegistryConfiguratorsWait)
	// ScriptDialect is how script rules run: "auto", "java", "dubbo-go" or
	// "off" (router/script.ParseDialect).
	ScriptDialect = new(string)
)

func ptr(d time.Duration) *time.Duration { return &d }
