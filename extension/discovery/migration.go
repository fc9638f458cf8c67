package discovery

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"dubbo.apache.org/dubbo-go/v3/registry"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/extension/zkconn"

	// dubbo-go's registry protocol registers before it is wrapped.
	_ "dubbo.apache.org/dubbo-go/v3/registry/protocol"

	"github.com/dubboroute/dubboroute/extension/internal/shared"
)

// Migration steps, as Java Dubbo 3 names them (consumer URL parameter
// MigrationStepKey).
const (
	// StepApplicationFirst subscribes application-level and interface-level
	// registrations and calls through the application-level ones while it
	// has providers, else through the interface-level ones (Java 3's
	// default).
	StepApplicationFirst = "APPLICATION_FIRST"
	// StepForceApplication uses application-level registrations only
	// (dubbo-go's own behaviour for registry-type service or unset).
	StepForceApplication = "FORCE_APPLICATION"
	// StepForceInterface uses interface-level registrations only.
	StepForceInterface = "FORCE_INTERFACE"
)

// MigrationStepKey is the reference parameter that chooses the step, as in
// Java (dubbo.consumer.references.X.params: {migration.step: ...}).
const MigrationStepKey = "migration.step"

// Process-wide default steps, read from the environment as Java reads its
// properties dubbo.application.migration.step and
// dubbo.application.service-discovery.migration (in that order) when the
// reference sets no migration.step.
const (
	MigrationStepEnv = "DUBBO_APPLICATION_MIGRATION_STEP"
	MigrationEnv     = "DUBBO_APPLICATION_SERVICE_DISCOVERY_MIGRATION"
)

// defaultStep is the step of a reference without migration.step: Java's
// properties (environment form), else APPLICATION_FIRST.
func defaultStep() string {
	for _, k := range []string{MigrationStepEnv, MigrationEnv} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	return StepApplicationFirst
}

func registerMigration() {
	inner := dgext.GetProtocol(constant.RegistryProtocol)
	p := &migratingProtocol{Protocol: inner}
	dgext.SetProtocol(constant.RegistryProtocol, func() base.Protocol { return p })
}

// migratingProtocol wraps dubbo-go's registry protocol so that a consumer
// whose registry is application-level (dubbo-go's default registry-type,
// and `service`) behaves as a Java 3 consumer in APPLICATION_FIRST: dubbo-go
// alone finds no provider of a service whose providers register
// interface-level only (every Java 2.x provider, and Go providers with
// registry-type interface).
type migratingProtocol struct {
	base.Protocol
}

// Refer implements base.Protocol.
func (m *migratingProtocol) Refer(u *common.URL) base.Invoker {
	iu, err := referZooKeeper(u)
	inv := m.refer(u)
	if err == nil {
		return inv
	}
	if inv == nil {
		return zkconn.NewFailedInvoker(u.SubURL, err)
	}
	return zkconn.Gate(inv, iu, u.SubURL, err)
}

// refer is Refer without the ZooKeeper check.
func (m *migratingProtocol) refer(u *common.URL) base.Invoker {
	if u == nil || u.Protocol != constant.ServiceRegistryProtocol || u.SubURL == nil ||
		u.GetParam(constant.RegistryTypeKey, "") == constant.RegistryTypeAll {
		return m.Protocol.Refer(u)
	}
	step := strings.ToUpper(u.SubURL.GetParam(MigrationStepKey, ""))
	if step == "" {
		step = strings.ToUpper(defaultStep())
	}
	switch step {
	case StepForceApplication:
		return m.Protocol.Refer(u)
	case StepForceInterface:
		iu := u.Clone()
		iu.Protocol = constant.RegistryProtocol
		return m.Protocol.Refer(iu)
	case StepApplicationFirst:
	default:
		logger.Warnf("[dubboroute] %s: %s=%q is not a migration step (%s, %s, %s); using %s",
			u.SubURL.Service(), MigrationStepKey, step, StepApplicationFirst, StepForceApplication, StepForceInterface, StepApplicationFirst)
	}
	iu := u.Clone()
	iu.Protocol = constant.RegistryProtocol
	app := m.Protocol.Refer(u)
	iface := m.Protocol.Refer(iu)
	switch {
	case app == nil:
		return iface
	case iface == nil:
		return app
	}
	return &migrationInvoker{app: app, iface: iface, created: time.Now()}
}

// GetRegistries implements registry.RegistryFactory (dubbo-go registers
// application-level instances through it).
func (m *migratingProtocol) GetRegistries() []registry.Registry {
	if rf, ok := m.Protocol.(registry.RegistryFactory); ok {
		return rf.GetRegistries()
	}
	return nil
}

// UnregisterRegistries implements base.RegistryUnregisterer (graceful
// shutdown unregisters through it).
func (m *migratingProtocol) UnregisterRegistries() {
	if u, ok := m.Protocol.(base.RegistryUnregisterer); ok {
		u.UnregisterRegistries()
		return
	}
	m.Protocol.Destroy()
}

// migrationInvoker is Java's MigrationInvoker in APPLICATION_FIRST with the
// default threshold 0: each call goes through the application-level cluster
// invoker while it has a provider, else through the interface-level one.
type migrationInvoker struct {
	app, iface base.Invoker
	created    time.Time
}

// current is the invoker a call uses now. While neither level has a
// provider yet, within StartupWait (extension.StartupWait) of the reference's creation, it waits
// for the first (Java decides after both subscriptions' first notify).
func (m *migrationInvoker) current() base.Invoker {
	for {
		app, iface := m.app.IsAvailable(), m.iface.IsAvailable()
		switch {
		case app:
			return m.app
		case iface:
			return m.iface
		case time.Since(m.created) >= *shared.Settings.StartupWait:
			return m.app
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// GetURL implements common.Node.
func (m *migrationInvoker) GetURL() *common.URL { return m.current().GetURL() }

// IsAvailable implements common.Node.
func (m *migrationInvoker) IsAvailable() bool { return m.app.IsAvailable() || m.iface.IsAvailable() }

// Destroy implements common.Node.
func (m *migrationInvoker) Destroy() {
	m.app.Destroy()
	m.iface.Destroy()
}

// Invoke implements base.Invoker.
func (m *migrationInvoker) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	return m.current().Invoke(ctx, inv)
}

// referZooKeeper prepares dubbo-go's ZooKeeper client for the registry URL
// u, creates the service's category nodes creator-only when u has
// credentials, and checks that its identity may list the service's providers
// (interface-level lookups: registry and APPLICATION_FIRST references). A
// refused list is logged as an error and returned with the interface-level
// registry URL: Refer then gates the reference (zkconn.Gate), whose calls
// fail with that error until the identity may list the providers, instead
// of a reference with zero providers.
func referZooKeeper(u *common.URL) (*common.URL, error) {
	if u == nil || u.SubURL == nil || !zkconn.IsZooKeeper(u) {
		return nil, nil
	}
	zkconn.PrepareRegistry(u, nil)
	iu := u
	if u.Protocol == constant.ServiceRegistryProtocol {
		step := strings.ToUpper(u.SubURL.GetParam(MigrationStepKey, ""))
		if step == "" {
			step = strings.ToUpper(defaultStep())
		}
		if step == StepForceApplication {
			return nil, nil
		}
		iu = u.Clone()
		iu.Protocol = constant.RegistryProtocol
	}
	zkconn.PrepareRegistry(iu, u.SubURL)
	if err := zkconn.Probe(iu, u.SubURL); err != nil {
		logger.Errorf("[dubboroute] reference %s: its registry refuses to list the providers; calls fail until it allows it: %v", u.SubURL.Service(), err)
		return iu, fmt.Errorf("reference %s: %w", u.SubURL.Service(), err)
	}
	return iu, nil
}
