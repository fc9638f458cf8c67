package zookeeper

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/internal/addrs"
)

// Defaults, as Java Dubbo's ZooKeeper client and config center use them.
const (
	DefaultRoot           = "/dubbo/config" // TreePathDynamicConfiguration: "/" + namespace + base path
	DefaultGroup          = "dubbo"         // DynamicConfiguration.DEFAULT_GROUP
	DefaultRegistryRoot   = "/dubbo"        // ZookeeperRegistry root (registry group)
	DefaultTimeout        = 5 * time.Second
	DefaultSessionTimeout = 60 * time.Second // Dubbo's zk.session.expire default
)

// ErrNotFound reports a node that does not exist.
var ErrNotFound = errors.New("node does not exist")

// ErrClosed reports use of a closed client.
var ErrClosed = errors.New("zookeeper client closed")

// Option configures Dial.
type Option func(*options)

type options struct {
	timeout        time.Duration
	sessionTimeout time.Duration
	digest         string
	root           string
	group          string
	registryRoot   string
	logger         *slog.Logger
	acl            []zk.ACL    // WithACL; nil: the default for the credentials
	tls            *tls.Config // WithTLS
	tlsFiles       *TLSFiles   // WithTLSFiles
}

// WithTimeout bounds Dial (time to a first session) and every operation
// whose context has no deadline. Default DefaultTimeout.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithSessionTimeout is the session timeout asked of the server (which
// clamps it to its own bounds). Default DefaultSessionTimeout.
func WithSessionTimeout(d time.Duration) Option {
	return func(o *options) { o.sessionTimeout = d }
}

// WithDigest authenticates with ZooKeeper's digest scheme ("user:password")
// and gives the nodes PutRule creates the ACL Dubbo's Curator client uses
// with credentials: all permissions for the creator only.
func WithDigest(userPassword string) Option { return func(o *options) { o.digest = userPassword } }

// WithRoot sets the config-center root path (Java's
// dubbo.config-center.root-path). Default DefaultRoot.
func WithRoot(root string) Option { return func(o *options) { o.root = root } }

// WithGroup sets the config-center group. Default DefaultGroup.
func WithGroup(group string) Option { return func(o *options) { o.group = group } }

// WithRegistryRoot sets the registry root under which providers are
// registered. Default DefaultRegistryRoot.
func WithRegistryRoot(root string) Option { return func(o *options) { o.registryRoot = root } }

// WithLogger sets the logger for connection state, rule changes and bad
// provider nodes. Default: discard.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// Client is a ZooKeeper session with the rule and provider operations. It is
// safe for concurrent use. Close it when done.
type Client struct {
	conn  *zk.Conn
	opts  options
	log   *slog.Logger
	acl   []zk.ACL
	addrs []string

	dialMu  sync.Mutex
	dialErr error // last failed TCP dial, for the Dial timeout message

	mu      sync.Mutex
	ready   chan struct{} // closed while the client has a session
	resync  chan struct{} // closed, then replaced, when a new session replaces an expired one
	expired bool          // the session expired since the last session was established
	had     bool          // a session was established before
	state   zk.State

	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// Dial connects to the ZooKeeper ensemble addrs ("host:port", optionally
// "zookeeper://host:port" or comma-separated lists) and waits until it has
// a session, at most the timeout. An unreachable ensemble gives an error
// naming the addresses and the last connection error.
func Dial(addrs []string, opts ...Option) (*Client, error) {
	o := options{
		timeout:        DefaultTimeout,
		sessionTimeout: DefaultSessionTimeout,
		root:           DefaultRoot,
		group:          DefaultGroup,
		registryRoot:   DefaultRegistryRoot,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("zookeeper: dial: timeout must be positive, got %v", o.timeout)
	}
	if o.sessionTimeout <= 0 {
		return nil, fmt.Errorf("zookeeper: dial: session timeout must be positive, got %v", o.sessionTimeout)
	}
	var err error
	if o.root, err = normalizeRoot(o.root); err != nil {
		return nil, fmt.Errorf("zookeeper: dial: config root: %w", err)
	}
	if o.registryRoot, err = normalizeRoot(o.registryRoot); err != nil {
		return nil, fmt.Errorf("zookeeper: dial: registry root: %w", err)
	}
	if o.group == "" {
		o.group = DefaultGroup
	}
	if strings.Contains(o.group, "/") {
		return nil, fmt.Errorf("zookeeper: dial: group %q contains '/'", o.group)
	}
	if o.digest != "" && !strings.Contains(o.digest, ":") {
		return nil, fmt.Errorf("zookeeper: dial: digest credentials must be user:password")
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	if o.tlsFiles != nil {
		cfg, err := TLSConfig(*o.tlsFiles)
		if err != nil {
			return nil, fmt.Errorf("zookeeper: dial: %w", err)
		}
		o.tls = cfg
	}
	servers, err := normalizeAddrs(addrs)
	if err != nil {
		return nil, fmt.Errorf("zookeeper: dial: %w", err)
	}

	c := &Client{
		opts:   o,
		log:    o.logger,
		addrs:  servers,
		ready:  make(chan struct{}),
		resync: make(chan struct{}),
		closed: make(chan struct{}),
		acl:    zk.WorldACL(zk.PermAll),
	}
	if o.digest != "" {
		c.acl = CreatorACL()
	}
	if o.acl != nil {
		c.acl = o.acl
	}
	conn, _, err := zk.Connect(servers, o.sessionTimeout,
		zk.WithLogger(zkLogger{c.log}),
		zk.WithLogInfo(false),
		zk.WithDialer(c.dial),
		zk.WithEventCallback(c.onEvent),
	)
	if err != nil {
		return nil, fmt.Errorf("zookeeper: dial %s: %w", strings.Join(servers, ","), err)
	}
	c.conn = conn

	select {
	case <-c.ready:
	case <-time.After(o.timeout):
		conn.Close()
		c.dialMu.Lock()
		last := c.dialErr
		c.dialMu.Unlock()
		why := fmt.Sprintf("state %v", conn.State())
		if last != nil {
			why = last.Error()
		}
		return nil, fmt.Errorf("zookeeper: dial %s: no session within %v: %s", strings.Join(servers, ","), o.timeout, why)
	}
	if o.digest != "" {
		if err := conn.AddAuth("digest", []byte(o.digest)); err != nil {
			conn.Close()
			return nil, fmt.Errorf("zookeeper: dial %s: digest auth: %w", strings.Join(servers, ","), err)
		}
	}
	c.log.Info("zookeeper: connected", "servers", strings.Join(servers, ","), "session", fmt.Sprintf("0x%x", conn.SessionID()))
	return c, nil
}

// Close ends the session and stops every watcher (their channels close).
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.conn.Close()
		c.wg.Wait()
	})
}

// Servers are the addresses the client connects to.
func (c *Client) Servers() []string { return append([]string(nil), c.addrs...) }

// SessionID is the current session id (0 without a session).
func (c *Client) SessionID() int64 { return c.conn.SessionID() }

// dial is the TCP dialer given to go-zookeeper; it remembers the last error.
func (c *Client) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	var conn net.Conn
	var err error
	if c.opts.tls != nil {
		conn, err = DialTLS(c.opts.tls, network, address, timeout)
	} else {
		conn, err = net.DialTimeout(network, address, timeout)
	}
	c.dialMu.Lock()
	c.dialErr = err
	c.dialMu.Unlock()
	return conn, err
}

// onEvent runs synchronously in go-zookeeper's connection goroutine for
// every session state change; it must not call back into the connection.
func (c *Client) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.state
	c.state = ev.State
	switch ev.State {
	case zk.StateHasSession:
		select {
		case <-c.ready:
		default:
			close(c.ready)
		}
		switch {
		case c.expired:
			// A new session: every watch of the old one is gone.
			c.expired = false
			close(c.resync)
			c.resync = make(chan struct{})
			c.log.Warn("zookeeper: new session after expiry; re-reading every watched node", "server", ev.Server)
		case c.had:
			c.log.Info("zookeeper: reconnected, session kept", "server", ev.Server)
		}
		c.had = true
	case zk.StateExpired:
		c.expired = true
		c.notReadyLocked()
		c.log.Warn("zookeeper: session expired", "server", ev.Server)
	default:
		if prev == zk.StateHasSession {
			c.log.Warn("zookeeper: disconnected", "server", ev.Server, "state", ev.State.String())
		}
		c.notReadyLocked()
	}
}

func (c *Client) notReadyLocked() {
	select {
	case <-c.ready:
		c.ready = make(chan struct{})
	default:
	}
}

// waitReady returns when the client has a session, ctx ends or the client
// is closed.
func (c *Client) waitReady(ctx context.Context) error {
	c.mu.Lock()
	ready := c.ready
	c.mu.Unlock()
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return ErrClosed
	}
}

// do runs op once a session exists, bounded by ctx (or by the client
// timeout when ctx has no deadline).
func (c *Client) do(ctx context.Context, op func() error) error {
	select {
	case <-c.closed:
		return ErrClosed
	default:
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.timeout)
		defer cancel()
	}
	if err := c.waitReady(ctx); err != nil {
		return fmt.Errorf("waiting for a session with %s: %w", strings.Join(c.addrs, ","), err)
	}
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return ErrClosed
	}
}

// transient reports errors after which a retry on a (new) session may work.
func transient(err error) bool {
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrSessionMoved)
}

func normalizeRoot(root string) (string, error) {
	root = strings.TrimSpace(root)
	if root == "" {
		return "", errors.New("empty path")
	}
	if !strings.HasPrefix(root, "/") {
		root = "/" + root
	}
	root = strings.TrimRight(root, "/")
	if root == "" {
		return "", errors.New("root must not be /")
	}
	if strings.Contains(root, "//") {
		return "", fmt.Errorf("path %q has an empty segment", root)
	}
	return root, nil
}

func normalizeAddrs(list []string) ([]string, error) {
	return addrs.Normalize(list, "ZooKeeper", "2181", "zookeeper://")
}

// zkLogger sends go-zookeeper's own messages to the debug log.
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug("go-zookeeper: " + fmt.Sprintf(format, args...))
}

// checkOpen fails with ErrClosed once the client is closed; what names the
// operation for the error.
func (c *Client) checkOpen(what string) error {
	select {
	case <-c.closed:
		return fmt.Errorf("zookeeper: %s: %w", what, ErrClosed)
	default:
		return nil
	}
}

// runWatch runs one watch loop in a goroutine the client waits for on
// Close, and closes out when the loop ends.
func runWatch[T any](c *Client, ctx context.Context, name string, out chan T, read func() (<-chan zk.Event, error)) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(out)
		c.watchLoop(ctx, name, read)
	}()
}
