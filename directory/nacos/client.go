package nacos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	serveraddrs "github.com/dubboroute/dubboroute/directory/internal/addrs"
)

// Defaults, as Java Dubbo's Nacos config center and the Nacos clients use
// them.
const (
	// DefaultGroup is the config group of rules: Java's
	// DynamicConfiguration.DEFAULT_GROUP, where Dubbo's routers and
	// configurators read and Dubbo Admin writes. (dubbo-go v3.3.2 reads
	// Nacos's own DEFAULT_GROUP unless config-center.group is set.)
	DefaultGroup = "dubbo"
	// DefaultTimeout bounds Dial and every request whose context has no
	// deadline (Java's config-center get timeout is 5000 ms).
	DefaultTimeout = 5 * time.Second
	// DefaultPollTimeout is how long the server may hold a listener
	// long-poll (Nacos's Long-Pulling-Timeout; the Java client's default).
	DefaultPollTimeout = 30 * time.Second
	// DefaultPort is Nacos's HTTP port.
	DefaultPort = "8848"
	// MaxBodyBytes bounds what the client reads of one answer.
	MaxBodyBytes = 16 << 20
)

// ErrNotFound reports a config (or naming object) that does not exist.
var ErrNotFound = errors.New("does not exist")

// ErrClosed reports use of a closed client.
var ErrClosed = errors.New("nacos client closed")

// ErrUnauthorized reports a request the server refused for its credentials
// (HTTP 401 or 403, after a fresh login).
var ErrUnauthorized = errors.New("refused: not authorized")

// StatusError is an answer other than success from a Nacos server.
type StatusError struct {
	Server string // host:port that answered
	Path   string // request path
	Status int    // HTTP status
	Body   string // the answer's text, cut to 200 bytes
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s%s answered %d: %s", e.Server, e.Path, e.Status, e.Body)
}

// Unwrap maps statuses to ErrNotFound and ErrUnauthorized.
func (e *StatusError) Unwrap() error {
	switch e.Status {
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrUnauthorized
	}
	return nil
}

// Option configures Dial.
type Option func(*options)

type options struct {
	namespace   string
	group       string
	timeout     time.Duration
	pollTimeout time.Duration
	username    string
	password    string
	logger      *slog.Logger
}

// WithNamespace sets the namespace (Nacos tenant) id of every operation.
// "" and "public" are the public namespace. Java Dubbo's config center
// reads the public namespace for its default namespace "dubbo"; that
// mapping is the caller's (see NamespaceFromDubbo).
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// WithGroup sets the default config group. Default DefaultGroup.
func WithGroup(group string) Option { return func(o *options) { o.group = group } }

// WithTimeout bounds Dial and every request whose context has no deadline.
// Default DefaultTimeout.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithPollTimeout sets how long the server may hold a listener long-poll
// (10 s to 120 s on rnacos, which clamps it). Default DefaultPollTimeout.
func WithPollTimeout(d time.Duration) Option { return func(o *options) { o.pollTimeout = d } }

// WithCredentials logs in with Nacos's auth (POST /nacos/v1/auth/login) and
// sends the access token with every request.
func WithCredentials(username, password string) Option {
	return func(o *options) { o.username, o.password = username, password }
}

// WithLogger sets the logger for connection state and config changes.
// Default: discard.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// contextPath is the path Nacos serves its OpenAPI under (its default
// server.servlet.contextPath).
const contextPath = "/nacos"

// Client talks to one Nacos cluster through its HTTP OpenAPI. It is safe for
// concurrent use. Close it when done.
type Client struct {
	opts  options
	log   *slog.Logger
	http  *http.Client
	addrs []string
	cur   atomic.Uint32 // index into addrs of the server that last answered

	tokenMu  sync.Mutex
	token    string
	tokenExp time.Time

	watch watcher // the config listener (listen.go)

	ctx       context.Context // ends when the client closes
	cancel    context.CancelFunc
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// Dial makes a client for the Nacos servers addrs ("host:port", optionally
// "nacos://host:port", "http://host:port" or comma-separated lists; the port
// defaults to 8848) and checks within the timeout that one answers (and,
// with credentials, that the login works). An unreachable cluster gives an
// error naming the addresses and the last error.
func Dial(addrs []string, opts ...Option) (*Client, error) {
	c, err := New(addrs, opts...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.timeout)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		c.Close()
		return nil, fmt.Errorf("nacos: dial %s: %w", strings.Join(c.addrs, ","), err)
	}
	c.log.Info("nacos: connected", "servers", strings.Join(c.addrs, ","), "namespace", c.opts.namespace)
	return c, nil
}

// New makes a client like Dial, without contacting a server: requests and
// watches wait (bounded by their contexts) for one to answer.
func New(addrs []string, opts ...Option) (*Client, error) {
	o := options{
		group:       DefaultGroup,
		timeout:     DefaultTimeout,
		pollTimeout: DefaultPollTimeout,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.timeout <= 0 {
		return nil, fmt.Errorf("nacos: dial: timeout must be positive, got %v", o.timeout)
	}
	if o.pollTimeout < time.Second {
		return nil, fmt.Errorf("nacos: dial: poll timeout must be at least 1s, got %v", o.pollTimeout)
	}
	if o.group == "" {
		o.group = DefaultGroup
	}
	if o.namespace == "public" {
		o.namespace = ""
	}
	if err := checkName("group", o.group); err != nil {
		return nil, fmt.Errorf("nacos: dial: %w", err)
	}
	if o.namespace != "" {
		if err := checkName("namespace", o.namespace); err != nil {
			return nil, fmt.Errorf("nacos: dial: %w", err)
		}
	}
	if o.logger == nil {
		o.logger = slog.New(slog.DiscardHandler)
	}
	servers, err := normalizeAddrs(addrs)
	if err != nil {
		return nil, fmt.Errorf("nacos: dial: %w", err)
	}
	hc := &http.Client{Transport: &http.Transport{
		Proxy:               nil, // loopback and in-cluster servers: never through a proxy
		DialContext:         (&net.Dialer{Timeout: o.timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}}
	c := &Client{opts: o, log: o.logger, http: hc, addrs: servers, closed: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.watch.init(c)
	return c, nil
}

// Close stops every watch (their channels close) and waits for them.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.cancel()
		c.wg.Wait()
		if t, ok := c.http.Transport.(*http.Transport); ok {
			t.CloseIdleConnections()
		}
	})
}

// Servers are the addresses the client talks to.
func (c *Client) Servers() []string { return append([]string(nil), c.addrs...) }

// Namespace is the client's namespace id ("" for public).
func (c *Client) Namespace() string { return c.opts.namespace }

// Group is the client's default config group.
func (c *Client) Group() string { return c.opts.group }

// Ping checks that a server answers the config API (and, with credentials,
// that the login works).
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.Call(ctx, Request{Method: http.MethodGet, Path: "/v1/cs/configs",
		Params: url.Values{"dataId": {"dubboroute.ping"}, "group": {c.opts.group}}, OK: []int{http.StatusNotFound}})
	if err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// Request is one call of the Nacos OpenAPI, for Call.
type Request struct {
	Method string     // GET, POST, PUT or DELETE
	Path   string     // below the context path, e.g. "/v1/cs/configs"
	Params url.Values // the query (GET, DELETE) or the form body (POST, PUT)
	Header http.Header
	// Timeout bounds the request when ctx has no earlier deadline; 0 means
	// the client's timeout.
	Timeout time.Duration
	// OK lists statuses besides 200 that are answers rather than errors.
	OK []int
}

// Response is a server's answer to Call.
type Response struct {
	Server string // host:port that answered
	Status int
	Header http.Header
	Body   []byte
}

// Call sends r to the servers, starting with the one that answered last and
// going on to the next after a transport error, with the access token when
// the client has credentials (logging in again once after a 401 or 403). A
// status other than 200 or r.OK gives a *StatusError. It is the plumbing of
// the config and naming operations.
func (c *Client) Call(ctx context.Context, r Request) (*Response, error) {
	select {
	case <-c.closed:
		return nil, ErrClosed
	default:
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = c.opts.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()

	relogged := false
	for {
		resp, err := c.callServers(ctx, r)
		if err != nil {
			if c.isClosed() {
				return nil, ErrClosed
			}
			return nil, err
		}
		if resp.Status == http.StatusOK || contains(r.OK, resp.Status) {
			return resp, nil
		}
		if (resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden) && c.opts.username != "" && !relogged {
			relogged = true
			c.dropToken()
			continue
		}
		return resp, &StatusError{Server: resp.Server, Path: contextPath + r.Path, Status: resp.Status, Body: cut(string(resp.Body), 200)}
	}
}

// callServers tries each server once, starting with the current one.
func (c *Client) callServers(ctx context.Context, r Request) (*Response, error) {
	var lastErr error
	start := int(c.cur.Load())
	for i := range c.addrs {
		idx := (start + i) % len(c.addrs)
		resp, err := c.callOne(ctx, c.addrs[idx], r)
		if err == nil {
			if idx != start {
				c.cur.Store(uint32(idx))
			}
			return resp, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("%s %s: %w", r.Method, contextPath+r.Path, lastErr)
}

func (c *Client) callOne(ctx context.Context, server string, r Request) (*Response, error) {
	params := url.Values{}
	for k, v := range r.Params {
		params[k] = v
	}
	if c.opts.username != "" {
		tok, err := c.accessToken(ctx, server)
		if err != nil {
			return nil, err
		}
		params.Set("accessToken", tok)
	}
	u := "http://" + server + contextPath + r.Path
	var body io.Reader
	form := r.Method == http.MethodPost || r.Method == http.MethodPut
	if form {
		body = strings.NewReader(params.Encode())
	} else if len(params) > 0 {
		u += "?" + params.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, err
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if form {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded;charset=utf-8")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", server, err)
	}
	if len(data) > MaxBodyBytes {
		return nil, fmt.Errorf("%s: answer is more than %d bytes", server, MaxBodyBytes)
	}
	return &Response{Server: server, Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// accessToken returns a valid token, logging in at server when there is
// none or it is about to expire.
func (c *Client) accessToken(ctx context.Context, server string) (string, error) {
	c.tokenMu.Lock()
	defer c.tokenMu.Unlock()
	if c.token != "" && time.Now().Before(c.tokenExp) {
		return c.token, nil
	}
	form := url.Values{"username": {c.opts.username}, "password": {c.opts.password}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+server+contextPath+"/v1/auth/login", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("login: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("login as %q at %s: %w", c.opts.username, server,
			&StatusError{Server: server, Path: contextPath + "/v1/auth/login", Status: resp.StatusCode, Body: cut(string(data), 200)})
	}
	var ans struct {
		AccessToken string `json:"accessToken"`
		TokenTTL    int64  `json:"tokenTtl"`
	}
	if err := json.Unmarshal(data, &ans); err != nil || ans.AccessToken == "" {
		return "", fmt.Errorf("login as %q at %s: no access token in %q", c.opts.username, server, cut(string(data), 200))
	}
	ttl := time.Duration(ans.TokenTTL) * time.Second
	if ttl <= 0 {
		ttl = 5 * time.Hour // Nacos's default token TTL is 18000 s
	}
	c.token, c.tokenExp = ans.AccessToken, time.Now().Add(ttl*9/10)
	return c.token, nil
}

func (c *Client) dropToken() {
	c.tokenMu.Lock()
	c.token = ""
	c.tokenMu.Unlock()
}

func (c *Client) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// checkName checks a group, namespace or dataId against the characters
// Nacos accepts ([A-Za-z0-9_.:-], Nacos's ParamUtils.isValid).
func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("%s is empty", what)
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b == '.' || b == ':') {
			return fmt.Errorf("%s %q has %q at byte %d; Nacos accepts only letters, digits and the characters _-.: (ParamUtils.isValid)", what, s, b, i)
		}
	}
	return nil
}

func normalizeAddrs(list []string) ([]string, error) {
	return serveraddrs.Normalize(list, "Nacos", DefaultPort, "nacos://", "http://")
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func cut(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
