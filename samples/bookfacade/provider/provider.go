package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"dubbo.apache.org/dubbo-go/v3"
	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/graceful_shutdown"
	dglog "dubbo.apache.org/dubbo-go/v3/logger"
	"dubbo.apache.org/dubbo-go/v3/protocol"
	"dubbo.apache.org/dubbo-go/v3/server"

	// dubbo protocol, hessian2, registries, proxy factories, filters.
	_ "dubbo.apache.org/dubbo-go/v3/imports"

	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/internal/regconf"
)

// Options configure one provider.
type Options struct {
	// Port to listen on (the first protocol's). Required. Every Book the
	// provider returns is signed with the port the call arrived on (dubbo
	// protocol), or with Port when the protocol does not tell (triple).
	Port int
	// Protocol is what the service is exported over: "dubbo" (default),
	// "tri" (triple, hessian2 in the protobuf wrapper Java's triple uses for
	// non-IDL interfaces), or "dubbo,tri" (both: dubbo on Port, tri on
	// TriPort; one provider for consumers of either protocol).
	Protocol string
	// TriPort is the triple port with Protocol "dubbo,tri".
	TriPort int
	// Host is the IP the provider listens on and registers (the host part of
	// its URL in /dubbo/<interface>/providers). Empty: dubbo-go's choice,
	// which listens on every interface and registers the first non-loopback
	// IPv4 address (or $DUBBO_IP_TO_REGISTRY). Tests use 127.0.0.1.
	Host string
	// Registry is "zookeeper://host:port" (or "memory://" in a process
	// that links directory/memory: the demo and tests); empty means no
	// registry (direct-URL consumers only).
	Registry string
	// Registered, if set, reports whether the provider on port is visible
	// in the registry; Start waits for it (the in-process memory registry's
	// export returns before that: memory.Registry.Registered). Nil: visible
	// once exported, as with dubbo-go's registries.
	Registered func(port int) bool
	// ConfigCenter is where dynamic configuration (<app>.configurators,
	// <service>.configurators) is read from, e.g. "zookeeper://host:port"
	// or "memory://"; empty: none.
	ConfigCenter string
	// RegistryType is dubbo-go's registry-type (regconf.RegistryTypes);
	// default "interface", as Java 2.x providers register.
	RegistryType string
	// App is the application name; default api.ProviderApp.
	App string
	// Tag is the static dubbo.tag of the provider (empty: untagged).
	Tag string
	// Params are extra URL parameters, e.g. status=gray.
	Params map[string]string
	// LogLevel is dubbo-go's log level (debug, info, warn, error); default info.
	LogLevel string
	// Ready bounds how long Start waits for the port to accept connections;
	// default 10s.
	Ready time.Duration
	// Sessions is the most connections the provider accepts at once
	// (dubbo-go's getty session-number); 0 keeps dubbo-go's default, 700.
	Sessions int
	// ShutdownWait is Java's dubbo.service.shutdown.wait: on Shutdown (and
	// on SIGTERM/SIGINT, dubbo-go's graceful shutdown) the provider first
	// unregisters from every registry, then keeps serving for this long
	// so that consumers see it leave, then waits for the calls in flight
	// and closes (dubbo-go's consumer-update-wait-time). 0 keeps
	// dubbo-go's default (3 s); the command's default is Java's 10 s.
	ShutdownWait time.Duration
}

// Provider is a running provider.
type Provider struct {
	opts Options
	errc chan error
}

// Port is the port the provider serves on.
func (p *Provider) Port() int { return p.opts.Port }

// Err returns the error that stopped Serve, if it has stopped (nil while
// serving).
func (p *Provider) Err() error {
	select {
	case err := <-p.errc:
		p.errc <- err
		return err
	default:
		return nil
	}
}

// BookFacade is the provider's handler. Method names are exported Go names;
// dubbo-go registers both QueryAll and queryAll, so Java and Go callers using
// the Java names reach them.
type BookFacade struct {
	// port signs the books when the call does not say which port it
	// arrived on (triple).
	port int
}

// QueryAll returns two books signed with the serving port.
func (b BookFacade) QueryAll(ctx context.Context) ([]*api.Book, error) {
	by := api.ServedBy(b.servingPort(ctx))
	return []*api.Book{{Name: "Dubbo in Action", Author: by}, {Name: "Go in Action", Author: by}}, nil
}

// QueryByName returns the named book signed with the serving port. The
// name "sleep-ms=N" answers after N ms (at most 5 s): a slow call for
// timeout tests; "fault:<token>:<port>:<ms>:<rest>" slows down only the
// provider serving <port>, counting attempts per provider. The name "attachments" answers a book whose name is the
// JSON object of the string attachments the call arrived with (as the
// protocol delivered them).
func (b BookFacade) QueryByName(ctx context.Context, name string) (*api.Book, error) {
	// "count:<token>:<rest>" appends a line to $DUBBOROUTE_CALLS_DIR/<token>
	// (so a test counts the attempts a consumer made across providers),
	// then answers <rest>; a <rest> of "throw" fails with a business error.
	// "fault:<token>:<port>:<ms>:<rest>" counts the attempt under
	// <token>.<serving port> (so a test counts attempts per provider), then
	// the provider serving <port> (every provider for port 0) answers after
	// <ms> ms (at most 5 s): a provider that slows down or times out on
	// command; the others answer <rest> at once.
	if rest, ok := strings.CutPrefix(name, "fault:"); ok {
		parts := strings.SplitN(rest, ":", 4)
		if len(parts) == 4 {
			port := b.servingPort(ctx)
			api.CountCall(parts[0] + "." + strconv.Itoa(port))
			if fp, err := strconv.Atoi(parts[1]); err == nil && (fp == port || fp == 0) {
				if ms, err := strconv.Atoi(parts[2]); err == nil && ms > 0 {
					time.Sleep(time.Duration(min(ms, 5000)) * time.Millisecond)
				}
			}
			name = parts[3]
		}
	}
	if rest, ok := strings.CutPrefix(name, "count:"); ok {
		token, after, _ := strings.Cut(rest, ":")
		api.CountCall(token)
		name = after
		if name == "throw" {
			return nil, fmt.Errorf("business failure served by %d", b.servingPort(ctx))
		}
	}
	if ms, ok := strings.CutPrefix(name, "sleep-ms="); ok {
		if n, err := strconv.Atoi(ms); err == nil && n > 0 {
			time.Sleep(time.Duration(min(n, 5000)) * time.Millisecond)
		}
	}
	if name == EchoAttachments {
		name = receivedAttachments(ctx)
	}
	return &api.Book{Name: name, Author: api.ServedBy(b.servingPort(ctx))}, nil
}

// EchoAttachments is the queryByName argument that makes a provider (Go
// or Java) answer the attachments it received, as a JSON object in the
// Book's name.
const EchoAttachments = "attachments"

// receivedAttachments is the JSON object of the call's string attachments
// (a []string attachment, as triple delivers headers, counts with its first
// value).
func receivedAttachments(ctx context.Context) string {
	m, _ := ctx.Value(constant.AttachmentKey).(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch a := v.(type) {
		case string:
			out[k] = a
		case []string:
			if len(a) > 0 {
				out[k] = a[0]
			}
		}
	}
	js, err := json.Marshal(out)
	if err != nil {
		return "{}"
	}
	return string(js)
}

func (b BookFacade) servingPort(ctx context.Context) int {
	if p := servingPort(ctx); p != 0 {
		return p
	}
	return b.port
}

// servingPort is the local port of the connection the call came in on
// (dubbo-go's getty server puts it into the attachments as local-addr).
func servingPort(ctx context.Context) int {
	m, ok := ctx.Value(constant.AttachmentKey).(map[string]any)
	if !ok {
		return 0
	}
	var s string
	switch a := m[constant.LocalAddr].(type) {
	case net.Addr:
		s = a.String()
	case string:
		s = a
	default:
		return 0
	}
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(port)
	return p
}

var startMu sync.Mutex

// Protocols are the values Options.Protocol takes.
var Protocols = []string{"dubbo", "tri", "dubbo,tri"}

// ParseProtocol splits a -protocol value ("dubbo", "tri", "dubbo,tri";
// empty: "dubbo") into dubbo-go protocol names.
func ParseProtocol(s string) ([]string, error) {
	switch s {
	case "", constant.Dubbo:
		return []string{constant.Dubbo}, nil
	case constant.TriProtocol:
		return []string{constant.TriProtocol}, nil
	case "dubbo,tri":
		return []string{constant.Dubbo, constant.TriProtocol}, nil
	}
	return nil, fmt.Errorf("protocol %q: want one of %v", s, Protocols)
}

// Start exports a provider and returns once its port accepts connections
// (and, with a registry, once it is registered).
func Start(opts Options) (*Provider, error) {
	if opts.Port <= 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("bookfacade provider: bad port %d", opts.Port)
	}
	if opts.App == "" {
		opts.App = api.ProviderApp
	}
	if opts.Ready <= 0 {
		opts.Ready = 10 * time.Second
	}
	protocols, err := ParseProtocol(opts.Protocol)
	if err != nil {
		return nil, fmt.Errorf("bookfacade provider on port %d: %w", opts.Port, err)
	}
	insOpts := []dubbo.InstanceOption{dubbo.WithName(opts.App)}
	for i, name := range protocols {
		port := opts.Port
		if i > 0 {
			if port = opts.TriPort; port <= 0 || port > 65535 {
				return nil, fmt.Errorf("bookfacade provider on port %d: protocol %q: bad tri port %d", opts.Port, opts.Protocol, port)
			}
		}
		protoOpts := []protocol.ServerOption{protocol.WithID(name), protocol.WithPort(port)}
		if name == constant.TriProtocol {
			protoOpts = append(protoOpts, protocol.WithTriple())
		} else {
			protoOpts = append(protoOpts, protocol.WithDubbo())
		}
		if opts.Host != "" {
			protoOpts = append(protoOpts, protocol.WithIp(opts.Host))
		}
		if opts.Sessions > 0 {
			protoOpts = append(protoOpts, protocol.WithParams(map[string]any{"session-number": opts.Sessions}))
		}
		insOpts = append(insOpts, dubbo.WithProtocol(protoOpts...))
	}
	if opts.Host != "" {
		// dubbo-go exports its MetadataService on the protocol port without
		// an IP (a listener on every interface); a second listener on
		// Host:Port would then fail to bind. Interface-level registration
		// needs no MetadataService; application-level consumers read the
		// metadata from the registry (remote metadata) instead.
		insOpts = append(insOpts, dubbo.WithRemoteMetadata())
	}
	if opts.LogLevel != "" {
		insOpts = append(insOpts, dubbo.WithLogger(dglog.WithLevel(opts.LogLevel)))
	}
	if opts.ShutdownWait > 0 {
		insOpts = append(insOpts, dubbo.WithShutdown(ShutdownOptions(opts.ShutdownWait)...))
	}
	if opts.Registry != "" {
		ro, err := regconf.RegistryOfType(opts.Registry, opts.RegistryType)
		if err != nil {
			return nil, fmt.Errorf("bookfacade provider on port %d: %w", opts.Port, err)
		}
		insOpts = append(insOpts, dubbo.WithRegistry(ro...))
	}
	if cc := opts.ConfigCenter; cc != "" && cc != "none" {
		co, err := regconf.ConfigCenter(cc)
		if err != nil {
			return nil, fmt.Errorf("bookfacade provider on port %d: config center: %w", opts.Port, err)
		}
		insOpts = append(insOpts, dubbo.WithConfigCenter(co...))
	}
	svcOpts := []server.ServiceOption{
		server.WithInterface(api.Interface),
		server.WithSerialization(constant.Hessian2Serialization),
	}
	if opts.Tag != "" {
		svcOpts = append(svcOpts, server.WithTag(opts.Tag))
	}
	for k, v := range opts.Params {
		svcOpts = append(svcOpts, server.WithParam(k, v))
		// dubbo-go overwrites a warmup parameter with the service's
		// Warmup option: pass Java's milliseconds through it.
		if ms, err := strconv.ParseInt(v, 10, 64); k == "warmup" && err == nil && ms >= 0 {
			svcOpts = append(svcOpts, server.WithWarmup(time.Duration(ms)*time.Millisecond))
		}
	}

	startMu.Lock()
	defer startMu.Unlock()
	ins, err := dubbo.NewInstance(insOpts...)
	if err != nil {
		return nil, fmt.Errorf("bookfacade provider on port %d: new instance: %w", opts.Port, err)
	}
	srv, err := ins.NewServer(javaDefaultWeight)
	if err != nil {
		return nil, fmt.Errorf("bookfacade provider on port %d: new server: %w", opts.Port, err)
	}
	// One reflective entry per service per process: hand them to this server.
	for _, iface := range []string{api.Interface, constant.HealthCheckServiceInterface, constant.ReflectionServiceInterface} {
		for _, proto := range protocols {
			_ = common.ServiceMap.UnRegister(iface, proto, common.ServiceKey(iface, "", ""))
		}
	}
	if err := srv.RegisterService(&BookFacade{port: opts.Port}, svcOpts...); err != nil {
		return nil, fmt.Errorf("bookfacade provider on port %d: register service: %w", opts.Port, err)
	}
	p := &Provider{opts: opts, errc: make(chan error, 1)}
	go func() { p.errc <- srv.Serve() }()
	if err := p.waitReady(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Provider) waitReady() error {
	deadline := time.Now().Add(p.opts.Ready)
	host := p.opts.Host
	if host == "" {
		host = "127.0.0.1"
	}
	addr := net.JoinHostPort(host, strconv.Itoa(p.opts.Port))
	for {
		if err := p.Err(); err != nil {
			return fmt.Errorf("bookfacade provider on port %d: serve: %w", p.opts.Port, err)
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			_ = c.Close()
			if p.registered() {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bookfacade provider on port %d: not ready after %s", p.opts.Port, p.opts.Ready)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// registered reports whether the provider is visible in its registry
// (Options.Registered; true without one).
func (p *Provider) registered() bool {
	return p.opts.Registered == nil || p.opts.Registered(p.opts.Port)
}

// ShutdownOptions configure dubbo-go's graceful shutdown for Java's
// dubbo.service.shutdown.wait: unregister, keep serving for wait (dubbo-go's
// consumer-update-wait-time) while consumers drop the provider, wait for
// the calls in flight (dubbo-go's step timeout, 3 s), close. The overall
// bound (dubbo-go's timeout, after which it exits regardless) is raised to
// cover the wait.
func ShutdownOptions(wait time.Duration) []graceful_shutdown.Option {
	return []graceful_shutdown.Option{
		graceful_shutdown.WithConsumerUpdateWaitTime(wait),
		// dubbo-go then also waits until no call came for this window
		// (default 3 s, bounded by the step timeout); after wait, the
		// consumers have dropped the provider, so a shorter wait asks for
		// no more.
		graceful_shutdown.WithOfflineRequestWindowTimeout(min(wait, 3*time.Second)),
		graceful_shutdown.WithTimeout(max(60*time.Second, wait+30*time.Second)),
	}
}

// Shutdown runs dubbo-go's graceful shutdown of the process (once; later
// calls wait for the same one): unregister from every registry, keep
// serving for ShutdownWait, wait for the calls in flight, close the
// protocols. It returns when that is done or ctx ends.
func Shutdown(ctx context.Context) error {
	if err := graceful_shutdown.Shutdown(ctx); err != nil {
		return fmt.Errorf("bookfacade provider: graceful shutdown: %w", err)
	}
	return nil
}

// DefaultWeight is the weight the provider publishes, Java Dubbo's default.
const DefaultWeight = 100

// javaDefaultWeight makes the provider publish weight=100 as a Java provider
// would. dubbo-go v3.3.2 always writes the provider's configured weight into
// the registered URL, and leaves it 0 when none is configured; Java's
// weighted balancers then never pick this provider while a provider of
// positive weight is eligible, so a Java consumer of a mixed fleet would send
// it no traffic.
func javaDefaultWeight(o *server.ServerOptions) {
	if o.Provider != nil && o.Provider.Weight <= 0 {
		o.Provider.Weight = DefaultWeight
	}
}
