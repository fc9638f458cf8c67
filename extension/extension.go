package extension

import (
	"context"

	"dubbo.apache.org/dubbo-go/v3/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension/balancers" // Java's load balancers under Java's and dubbo-go's names
	"github.com/dubboroute/dubboroute/extension/consumer"
	"github.com/dubboroute/dubboroute/extension/discovery"
	"github.com/dubboroute/dubboroute/extension/internal/metrics"
	"github.com/dubboroute/dubboroute/extension/internal/rulestore"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/extension/lane"
	"github.com/dubboroute/dubboroute/extension/nacosfollow"
	"github.com/dubboroute/dubboroute/extension/nacosrules"
	"github.com/dubboroute/dubboroute/extension/provider"
	"github.com/dubboroute/dubboroute/extension/strategies"
	"github.com/dubboroute/dubboroute/extension/zkconn"
	"github.com/dubboroute/dubboroute/extension/zookeeper"
	graylb "github.com/dubboroute/dubboroute/loadbalance/gray/dubbogo"
	"github.com/dubboroute/dubboroute/rules"
)

// This file is the API applications call; it names what the subpackages
// define (see doc.go for which does what).

// init is dubboroute's one registration with dubbo-go (whose extension
// registry is filled by package inits, before dubbo.Load): it points the
// subpackages' settings at the variables below, then registers, in this
// order (the order the subpackages' own inits ran in before):
//
//  1. nacosfollow: Nacos's provider source (extension/source);
//  2. zkconn: the ZooKeeper config-center factory wrapper (credentials, TLS);
//  3. discovery: the metadata revision customizer, the ZooKeeper metadata
//     report, the registry protocol wrapper of application-level migration;
//  4. lane: the lane configuration from the environment, the proxy factory
//     wrappers;
//  5. consumer: router factories, cluster wrappers, registry directories,
//     the "gray" load balancer, the configurator factory wrapper;
//  6. nacosrules: Nacos's rule source;
//  7. provider: the provider registry protocol wrapper, around discovery's;
//  8. zookeeper: ZooKeeper's rule, provider and override sources.
//
// The balancers register from their own package's init (extension/balancers).
func init() {
	shared.Settings.StartupWait = &StartupWait
	shared.Settings.StartupSettle = &StartupSettle
	shared.Settings.RegistryConfiguratorsWait = &RegistryConfiguratorsWait
	shared.Settings.ScriptDialect = &ScriptDialect
	nacosfollow.Register()
	zkconn.Register()
	discovery.Register()
	lane.Register()
	consumer.Register()
	nacosrules.Register()
	provider.Register()
	zookeeper.Register()
}

// The settings below are package variables because they are the API: an
// application assigns them before dubbo.Load, and dubbo-go's extension
// registry, which builds everything that reads them, passes no context to
// hand settings through (init points package shared's Settings at them).

// ScriptDialect is how script rules (<provider-app>.script-router) run:
// "auto" (the default: dubbo-go's dialect for a script written with
// dubbo-go's Go names and none of Java's, Java's otherwise), "java" (as a
// Java 8/11 consumer with Nashorn), "dubbo-go" (as dubbo-go v3.3.2), or
// "off" (as a Java 15+ consumer without a script engine: no script routes,
// for fleets whose Java consumers ignore scripts). Set it before dubbo.Load;
// it applies to script contents read from then on.
var ScriptDialect = "auto"

// StartupSettle is how long the registry must stay quiet after delivering
// providers before a new reference's first calls go ahead: dubbo-go's
// ZooKeeper registry notifies the providers present at subscription one
// event each, so the first event is rarely the whole list.
var StartupSettle = shared.DefaultStartupSettle

// StartupWait bounds how long the first calls of a new reference wait for
// the registry's first providers (see StartupSettle). dubbo-go subscribes in
// a goroutine, so without it a call made right after dubbo.Load finds no
// provider, or only some; Java Dubbo's registries notify the whole list
// before refer returns.
var StartupWait = shared.DefaultStartupWait

// RegistryConfiguratorsWait bounds how long a new reference waits for the
// first read of its registry's <interface>/configurators node (a Java
// consumer's first notification carries them with the providers).
var RegistryConfiguratorsWait = shared.DefaultRegistryConfiguratorsWait

// Rule key suffixes (Java Dubbo / Dubbo Admin), kept here for callers of
// this package; the definitions live in package rules.
const (
	ConditionSuffix = rules.ConditionSuffix
	TagSuffix       = rules.TagSuffix
	GraySuffix      = rules.GraySuffix
	MeshSuffix      = rules.MeshSuffix
	// ConfiguratorsSuffix is the dynamic configuration suffix.
	ConfiguratorsSuffix = rules.ConfiguratorsSuffix
)

// Consumer chain (extension/consumer).

// Binding is dubboroute's state for one consumer reference (one
// directory): its chain and the rules it subscribes.
type Binding = consumer.Binding

// RouterCounts are the calls one router of the chain saw, by outcome.
type RouterCounts = consumer.RouterCounts

// NoProviderRecord is one call that routing left without a provider.
type NoProviderRecord = consumer.NoProviderRecord

// GrayName is the load balancer name of the gray balancer.
const GrayName = consumer.GrayName

// AffinityParam is the reference parameter that puts Java's service
// affinity router in a consumer's chain (see consumer.AffinityParam).
const AffinityParam = consumer.AffinityParam

// MaxNoProviders is how many recent "no provider" answers a binding keeps.
const MaxNoProviders = consumer.MaxNoProviders

// ClusterNames are the cluster strategies whose Join installs dubboroute's
// chain (every strategy dubbo-go v3.3.2 ships; the one list is
// extension/strategies', strategies.DubboGoNames). A variable because it
// was one before; changing it changes nothing.
var ClusterNames = strategies.DubboGoNames()

// Bindings returns the live bindings of an interface (newest last).
func Bindings(iface string) []*Binding { return consumer.Bindings(iface) }

// BindingFor returns the binding of an interface for a consumer
// application that its calls go through now, or nil (see
// consumer.BindingFor).
func BindingFor(iface, consumerApp string) *Binding { return consumer.BindingFor(iface, consumerApp) }

// AllBindings returns every live binding, sorted by interface (bindings of
// one interface in creation order).
func AllBindings() []*Binding { return consumer.AllBindings() }

// NewBinding builds a binding outside a dubbo-go reference, for tools and
// tests (see consumer.NewBinding); feed it with Binding.Notify, end it with
// Binding.Release.
func NewBinding(u *common.URL) *Binding { return consumer.NewBinding(u) }

// GrayLoadBalance is the process-wide gray balancer registered as "gray".
func GrayLoadBalance() *graylb.LoadBalance { return shared.GrayLB }

// Rules (extension/internal/rulestore).

// Rejection is the last update of a rule key that was not applied.
type Rejection = rulestore.Rejection

// RuleState is one config-center key this process subscribes, as it holds
// it now.
type RuleState = rulestore.RuleState

// RuleStates lists every subscribed key, sorted by key.
func RuleStates() []RuleState { return rulestore.RuleStates() }

// Listening reports whether a config-center key is subscribed (for tests
// and diagnostics).
func Listening(key string) bool { return rulestore.Listening(key) }

// Metrics (extension/internal/metrics).

// Collectors returns every dubboroute collector, for
// prometheus.MustRegister(extension.Collectors()...).
func Collectors() []prometheus.Collector {
	out := append(metrics.Collectors(), balancers.Collectors()...)
	out = append(out, consumer.Collectors()...)
	return append(out, strategies.Collectors()...)
}

// GrayPicks reads the gray balancer's pick counters by class (gray,
// normal, single), process-wide.
func GrayPicks() map[string]uint64 { return metrics.GrayPicks() }

// Mocked returns the calls answered by service downgrade (mock) since
// start, by "<service>.<method> <mode>/<outcome>".
func Mocked() map[string]uint64 { return strategies.Mocked() }

// OutlierReport is one reference's outlier ejection and retry budget state.
type OutlierReport = strategies.OutlierReport

// Outliers reports who is ejected, why and until when, and the retry
// budgets, for every reference with outlier ejection or a retry policy
// configured (docs/resilience.md).
func Outliers() map[string]OutlierReport { return strategies.Outliers() }

// Discovery (extension/discovery).

// Hold is a provider removal that is being held back: by the delete grace
// ("pending") or by empty protection ("held", it was the last provider).
type Hold = discovery.Hold

// Holds lists the removals held back right now, process-wide, sorted by
// interface and address.
func Holds() []Hold { return discovery.Holds() }

// Registry URL parameters and defaults of empty protection and the delete
// grace, and the migration step's names (see package discovery).
const (
	EmptyProtectionKey   = discovery.EmptyProtectionKey
	DeleteGraceKey       = discovery.DeleteGraceKey
	DefaultDeleteGrace   = discovery.DefaultDeleteGrace
	MigrationStepKey     = discovery.MigrationStepKey
	MigrationStepEnv     = discovery.MigrationStepEnv
	MigrationEnv         = discovery.MigrationEnv
	StepApplicationFirst = discovery.StepApplicationFirst
	StepForceApplication = discovery.StepForceApplication
	StepForceInterface   = discovery.StepForceInterface
)

// Lanes (extension/lane).

// Lane is the lane of a call (see lane.Lane).
type Lane = lane.Lane

// LaneConfig chooses what a lane carries (see lane.LaneConfig).
type LaneConfig = lane.LaneConfig

// LaneIngress is the providers' trust boundary for lanes (see
// LaneConfig.Ingress, package lanetrust and docs/security.md).
type LaneIngress = lane.LaneIngress

// LaneCaller is what a LaneIngress trust function knows of a caller.
type LaneCaller = lane.LaneCaller

// Environment variables and the triple parameter of lanes (see package
// lane).
const (
	LaneEnv             = lane.LaneEnv
	LaneKeysEnv         = lane.LaneKeysEnv
	TripleHeaderConvert = lane.TripleHeaderConvert
)

// DefaultLaneKeys are the attachments a lane carries by default (a copy of
// lane.DefaultLaneKeys(), which is what LaneConfig{Keys: nil} uses;
// changing this variable changes nothing). A variable because it was one
// before; the list itself lives in package lane.
var DefaultLaneKeys = lane.DefaultLaneKeys()

// SetLaneConfig replaces the process's lane configuration.
func SetLaneConfig(c LaneConfig) { lane.SetLaneConfig(c) }

// LaneConfigInUse returns the process's lane configuration.
func LaneConfigInUse() LaneConfig { return lane.LaneConfigInUse() }

// LaneFrom returns the lane a ctx carries (see lane.LaneFrom).
func LaneFrom(ctx context.Context) (l Lane, ok bool) { return lane.LaneFrom(ctx) }

// WithLane returns ctx carrying l (see lane.WithLane).
func WithLane(ctx context.Context, l Lane) context.Context { return lane.WithLane(ctx, l) }

// NewLane makes a lane of attachments (see lane.NewLane).
func NewLane(attachments map[string]string) Lane { return lane.NewLane(attachments) }
