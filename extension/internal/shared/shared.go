package shared

import (
	"time"

	"github.com/dubboroute/dubboroute/loadbalance/gray"
	graylb "github.com/dubboroute/dubboroute/loadbalance/gray/dubbogo"
)

// GrayLB is the process-wide gray balancer: registered as "gray" by the
// consumer package, fed its rules by the rule store, asked for the
// attachment keys its rules classify on by the lane package. Package state
// because dubbo-go's balancer registry is process-wide and its factories
// take no arguments.
var GrayLB = graylb.New(gray.Options{})

// Defaults of the settings below (package extension exports them as
// variables an application sets before dubbo.Load).
const (
	DefaultStartupWait               = 3 * time.Second
	DefaultStartupSettle             = 150 * time.Millisecond
	DefaultRegistryConfiguratorsWait = 3 * time.Second
)

// Settings are the settings the subpackages read at run time, one
// pointer each. Package state because package extension exports them as
// variables an application sets before dubbo.Load, and the code that reads
// them runs inside factories dubbo-go calls with no context: extension's
// init points these at its exported variables (extension.StartupWait,
// ...), so that an application setting those is what the subpackages see.
var Settings = struct {
	StartupWait               *time.Duration
	StartupSettle             *time.Duration
	RegistryConfiguratorsWait *time.Duration
	// ScriptDialect is how script rules run: "auto", "java", "dubbo-go" or
	// "off" (router/script.ParseDialect).
	ScriptDialect *string
}{
	StartupWait:               ptr(DefaultStartupWait),
	StartupSettle:             ptr(DefaultStartupSettle),
	RegistryConfiguratorsWait: ptr(DefaultRegistryConfiguratorsWait),
	ScriptDialect:             new(string),
}

func ptr(d time.Duration) *time.Duration { return &d }
