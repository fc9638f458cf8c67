package lane

import (
	"context"
	"os"
	"reflect"
	"strings"
	"sync/atomic"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dgext "dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"
	"dubbo.apache.org/dubbo-go/v3/proxy"
	"github.com/dubbogo/gost/log/logger"

	// The proxy factories must be registered before we wrap them.
	_ "dubbo.apache.org/dubbo-go/v3/proxy/proxy_factory"

	"github.com/dubboroute/dubboroute/cluster/retry"
	"github.com/dubboroute/dubboroute/extension/internal/shared"
	"github.com/dubboroute/dubboroute/lanetrust"
	"github.com/dubboroute/dubboroute/loadbalance/gray"
)

// Full-link lanes: a provider remembers the lane of the call it serves (the
// lane attachments it received) in the ctx its handler gets; a call the
// handler makes with that ctx (or one derived from it) carries the lane on,
// before it is routed. See LaneConfig and docs/lanes.md.

// DefaultLaneKeys are the attachments a lane carries besides the ones the
// gray rules in force classify on: the request tag, its force flag, the
// gray decision of a percentage rule and the retry policy's chain-stop mark
// (set only on a retry attempt, and only with dubboroute.retry.policy=on).
// Each call returns a new slice.
func DefaultLaneKeys() []string {
	return []string{constant.Tagkey, constant.ForceUseTag, gray.DefaultDecisionKey, retry.ChainKey}
}

// Environment variables read once at start-up: LaneEnv "off" turns lanes
// off; LaneKeysEnv (comma separated) replaces DefaultLaneKeys().
const (
	LaneEnv     = "DUBBOROUTE_LANE"
	LaneKeysEnv = "DUBBOROUTE_LANE_KEYS"
)

// LaneConfig says what travels from the call a service is serving to the
// calls it makes while serving it.
type LaneConfig struct {
	// Off turns lanes off: nothing is captured, carried or stripped, and the
	// gray balancer writes no decisions (dubbo-go's own behaviour remains:
	// with the serving ctx passed on it copies every attachment it received).
	Off bool
	// Keys are the attachments that travel; nil means DefaultLaneKeys(). The
	// attachments the gray rules in force read (gray.Rule.AttachmentKeys,
	// and the default user key userId) always travel too, unless
	// NoRuleKeys.
	Keys []string
	// NoRuleKeys stops the gray rules' attachments from travelling
	// implicitly.
	NoRuleKeys bool
	// Ingress is the providers' trust boundary (nil: every caller is
	// trusted): which served calls' lane keys are dropped before the lane
	// is captured, and the gray decision's integrity check. From the
	// environment: DUBBOROUTE_LANE_INGRESS and friends (package lanetrust,
	// docs/security.md). SetLaneConfig replaces the whole configuration,
	// this field included: to change the keys only, start from
	// LaneConfigInUse().
	Ingress *LaneIngress
}

type laneSettings struct {
	cfg  LaneConfig
	keys []string
}

// laneCfg is the process's lane configuration: package-level because the
// proxy factory wrappers dubbo-go's extension registry holds (one per
// process) read it for every served call.
var laneCfg atomic.Pointer[laneSettings]

// SetLaneConfig replaces the lane configuration of the process. Call it
// before serving; calls already in flight keep the lane they captured.
func SetLaneConfig(c LaneConfig) {
	s := &laneSettings{cfg: c, keys: DefaultLaneKeys()}
	if c.Keys != nil {
		s.keys = append([]string(nil), c.Keys...)
	}
	laneCfg.Store(s)
	shared.GrayLB.SetStampDecisions(!c.Off)
	installDecisionSigner(c.Ingress, c.Off)
}

// LaneConfigInUse is the lane configuration in force.
func LaneConfigInUse() LaneConfig { return laneCfg.Load().cfg }

func laneConfigFromEnv() LaneConfig {
	var c LaneConfig
	c.Ingress = laneIngressFromEnv()
	if strings.EqualFold(strings.TrimSpace(os.Getenv(LaneEnv)), "off") {
		c.Off = true
	}
	if v, ok := os.LookupEnv(LaneKeysEnv); ok {
		c.Keys = []string{}
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				c.Keys = append(c.Keys, k)
			}
		}
	}
	return c
}

// Lane is the lane of a request: the lane attachments (key, value) it
// arrived with.
type Lane struct {
	kv []string // key, value, key, value...
	// incoming is the received attachment map dubbo-go hands the handler
	// (ctx value constant.AttachmentKey); see applyLane.
	incoming map[string]any
}

type laneCtxKey struct{}

// LaneFrom returns the lane of the call being served with ctx; ok is false
// outside a served call (or when lanes are off, or the ctx was not derived
// from the handler's).
func LaneFrom(ctx context.Context) (l Lane, ok bool) {
	p, ok := ctx.Value(laneCtxKey{}).(*Lane)
	if !ok || p == nil {
		return Lane{}, false
	}
	return *p, true
}

// WithLane returns ctx carrying l: calls made with it carry l's
// attachments. Use it where the serving ctx cannot be passed on (work
// handed to a queue or a goroutine with a fresh context):
//
//	l, _ := extension.LaneFrom(ctx)
//	go func() { work(extension.WithLane(context.Background(), l)) }()
func WithLane(ctx context.Context, l Lane) context.Context {
	cp := Lane{kv: l.kv}
	return context.WithValue(ctx, laneCtxKey{}, &cp)
}

// NewLane makes a lane from attachments, e.g. {"dubbo.tag": "gray"}.
func NewLane(attachments map[string]string) Lane {
	var l Lane
	for k, v := range attachments {
		l.kv = append(l.kv, k, v)
	}
	return l
}

// Get returns the lane's value of an attachment.
func (l Lane) Get(key string) (string, bool) {
	for i := 0; i+1 < len(l.kv); i += 2 {
		if l.kv[i] == key {
			return l.kv[i+1], true
		}
	}
	return "", false
}

// Attachments are the lane's attachments (a new map).
func (l Lane) Attachments() map[string]string {
	m := make(map[string]string, len(l.kv)/2)
	for i := 0; i+1 < len(l.kv); i += 2 {
		m[l.kv[i]] = l.kv[i+1]
	}
	return m
}

// travels reports whether key is a lane key under s.
func (s *laneSettings) travels(key string) bool {
	for _, k := range s.keys {
		if k == key {
			return true
		}
	}
	if p := s.cfg.Ingress; p != nil && len(p.Key) > 0 && key == lanetrust.SignatureKey {
		return true
	}
	if s.cfg.NoRuleKeys {
		return false
	}
	for _, k := range shared.GrayLB.RuleAttachmentKeys() {
		if k == key {
			return true
		}
	}
	return false
}

// captureLane is run for every call a provider serves, before the handler:
// it puts the call's lane into the handler's ctx.
func captureLane(ctx context.Context, inv base.Invocation) context.Context {
	s := laneCfg.Load()
	if s.cfg.Off || inv == nil {
		return ctx
	}
	l := &Lane{incoming: inv.Attachments()}
	add := func(k string) {
		if v, ok := inv.GetAttachment(k); ok && v != "" {
			if _, dup := l.Get(k); !dup {
				l.kv = append(l.kv, k, v)
			}
		}
	}
	for _, k := range s.keys {
		add(k)
	}
	if !s.cfg.NoRuleKeys {
		for _, k := range shared.GrayLB.RuleAttachmentKeys() {
			add(k)
		}
	}
	if p := s.cfg.Ingress; p != nil && len(p.Key) > 0 {
		add(lanetrust.SignatureKey) // the decision's signature travels with it
	}
	return context.WithValue(ctx, laneCtxKey{}, l)
}

// applyLane is run for every call a consumer makes, before it is routed.
// Outside a served call (no lane in ctx) it does nothing.
//
// When the application passed the serving ctx on unchanged, dubbo-go has
// copied every attachment the provider received into this call, internal
// ones included (path, interface, version, timeout, retries, the sender's
// local-addr and remote-addr, ...). Those that are not lane keys are removed
// again (where the call still holds the received value), so that only the
// lane travels. Then every lane attachment the call does not set itself is
// added: an attachment the application sets for this call wins.
func applyLane(ctx context.Context, inv base.Invocation) {
	p, ok := ctx.Value(laneCtxKey{}).(*Lane)
	if !ok || p == nil || inv == nil {
		return
	}
	s := laneCfg.Load()
	if s.cfg.Off {
		return
	}
	if p.incoming != nil {
		if m, ok := ctx.Value(constant.AttachmentKey).(map[string]any); ok && sameMap(m, p.incoming) {
			atts := inv.Attachments()
			for k, in := range p.incoming {
				if s.travels(k) {
					continue
				}
				if cur, ok := atts[k]; ok && sameValue(cur, in) {
					delete(atts, k)
				}
			}
		}
	}
	for i := 0; i+1 < len(p.kv); i += 2 {
		if _, ok := inv.GetAttachment(p.kv[i]); !ok {
			inv.SetAttachment(p.kv[i], p.kv[i+1])
		}
	}
}

func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == b
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb {
		return false
	}
	if !ta.Comparable() {
		return true // the same key with an uncomparable value of the same type: received
	}
	return a == b
}

// laneProxyFactory wraps a dubbo-go proxy factory so that the provider
// invokers it makes capture the lane of every call they serve.
type laneProxyFactory struct{ inner proxy.ProxyFactory }

func (f laneProxyFactory) GetProxy(invoker base.Invoker, url *common.URL) *proxy.Proxy {
	return f.inner.GetProxy(invoker, url)
}

func (f laneProxyFactory) GetAsyncProxy(invoker base.Invoker, callBack any, url *common.URL) *proxy.Proxy {
	return f.inner.GetAsyncProxy(invoker, callBack, url)
}

func (f laneProxyFactory) GetInvoker(url *common.URL) base.Invoker {
	inner := f.inner.GetInvoker(url)
	if inner == nil {
		return nil
	}
	return &laneProviderInvoker{Invoker: inner}
}

// laneProviderInvoker restores the attachment keys a triple caller named
// (TripleHeaderConvert) and captures the lane before the handler runs.
type laneProviderInvoker struct{ base.Invoker }

func (i *laneProviderInvoker) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	restoreTripleKeys(inv)
	guardLane(i.Invoker, inv)
	return i.Invoker.Invoke(captureLane(ctx, inv), inv)
}

// laneClusterInvoker carries the lane into a call before the cluster
// strategy routes it, and names the attachment keys triple lowercases
// (TripleHeaderConvert).
type laneClusterInvoker struct{ base.Invoker }

func (i *laneClusterInvoker) Invoke(ctx context.Context, inv base.Invocation) result.Result {
	applyLane(ctx, inv)
	return i.Invoker.Invoke(withTripleKeyNames(ctx, inv), inv)
}

// wrapProxyFactories makes every registered proxy factory capture lanes.
func wrapProxyFactories() {
	for _, name := range []string{"default", constant.PassThroughProxyFactoryKey} {
		inner := dgext.GetProxyFactory(name)
		if inner == nil {
			logger.Warnf("[dubboroute] proxy factory %s not available: lanes are not captured through it", name)
			continue
		}
		if _, done := inner.(laneProxyFactory); done {
			continue
		}
		dgext.SetProxyFactory(name, func(...proxy.Option) proxy.ProxyFactory { return laneProxyFactory{inner: inner} })
	}
}

// ClusterInvoker wraps a cluster invoker (what a cluster strategy's Join
// returns) so that calls carry the lane of the call being served; the
// consumer package wraps every strategy's invoker with it.
func ClusterInvoker(ivk base.Invoker) base.Invoker { return &laneClusterInvoker{Invoker: ivk} }
