package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
)

// Host is the only address the harness uses: providers listen on and
// register it, consumers serve HTTP on it.
const Host = "127.0.0.1"

// ReadyTimeout bounds how long StartProvider and StartConsumer wait for the
// READY line (race binaries on a loaded 2-core machine start in 1-3 s).
var ReadyTimeout = 60 * time.Second

// ProviderOptions configure one cmd/provider process.
type ProviderOptions struct {
	// Registry is "zookeeper://host:port". Required.
	Registry string
	// Port is the dubbo port; 0 picks a free one (retried if another
	// process takes it first).
	Port int
	// App is the application name; default demo-provider.
	App string
	// Tag is the static dubbo.tag; empty: untagged.
	Tag string
	// RegistryType is the provider's -registry-type (interface, service,
	// all, default); empty: interface.
	RegistryType string
	// Params are extra URL parameters (-param k=v), e.g. status=gray.
	Params map[string]string
	// LogLevel is dubbo-go's log level; default warn.
	LogLevel string
	// Env is added to the process environment.
	Env []string
	// ConfigCenter, if set, is the provider's config center
	// (-config-center), from which it reads dynamic configuration.
	ConfigCenter string
	// Protocol is the provider's -protocol: dubbo (empty), tri, or
	// dubbo,tri (both; the tri port is picked free).
	Protocol string
	// ShutdownWait is the provider's -shutdown-wait (Java's
	// dubbo.service.shutdown.wait): how long it keeps serving after it
	// unregistered on SIGTERM. Default DefaultShutdownWait, so that
	// stopping a provider is quick; a test of graceful shutdown sets it.
	ShutdownWait time.Duration
}

// DefaultShutdownWait is the providers' -shutdown-wait unless a test sets
// one: short, so that Stop (and every test's cleanup) does not wait the
// command's 10 s.
const DefaultShutdownWait = 50 * time.Millisecond

// Provider is a running cmd/provider.
type Provider struct {
	*Proc
	// Port is its first protocol's port (the one it signs books with);
	// Addr is Host:Port, the address it registered.
	Port int
	Addr string
	// TriPort is the triple port of a dubbo,tri provider (0 otherwise).
	TriPort int
}

var providerReady = regexp.MustCompile(`(?m)^READY (\d+) `)

// StartProvider starts a provider process and waits until it is exported
// and registered (its READY line). It fails t otherwise.
func StartProvider(t testing.TB, bins *Binaries, opts ProviderOptions) *Provider {
	t.Helper()
	if opts.LogLevel == "" {
		opts.LogLevel = "warn"
	}
	for attempt := 1; ; attempt++ {
		port := opts.Port
		if port == 0 {
			var err error
			if port, err = FreePort(); err != nil {
				t.Fatal(err)
			}
		}
		wait := opts.ShutdownWait
		if wait <= 0 {
			wait = DefaultShutdownWait
		}
		args := []string{"-port", strconv.Itoa(port), "-host", Host, "-registry", opts.Registry, "-log", opts.LogLevel, "-shutdown-wait", wait.String()}
		triPort := 0
		if opts.Protocol != "" {
			args = append(args, "-protocol", opts.Protocol)
		}
		if opts.Protocol == "dubbo,tri" {
			for triPort == 0 || triPort == port {
				var err error
				if triPort, err = FreePort(); err != nil {
					t.Fatal(err)
				}
			}
			args = append(args, "-tri-port", strconv.Itoa(triPort))
		}
		if opts.App != "" {
			args = append(args, "-app", opts.App)
		}
		if opts.Tag != "" {
			args = append(args, "-tag", opts.Tag)
		}
		if opts.ConfigCenter != "" {
			args = append(args, "-config-center", opts.ConfigCenter)
		}
		if opts.RegistryType != "" {
			args = append(args, "-registry-type", opts.RegistryType)
		}
		keys := make([]string, 0, len(opts.Params))
		for k := range opts.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args = append(args, "-param", k+"="+opts.Params[k])
		}
		name := fmt.Sprintf("provider:%d", port)
		if opts.Tag != "" {
			name += ":tag=" + opts.Tag
		}
		p := Start(t, ProcOptions{Name: name, Path: bins.Provider, Args: args, Env: opts.Env})
		_, err := p.WaitLine(providerReady, ReadyTimeout)
		if err == nil {
			return &Provider{Proc: p, Port: port, Addr: net.JoinHostPort(Host, strconv.Itoa(port)), TriPort: triPort}
		}
		_ = p.Kill()
		if opts.Port == 0 && attempt < 3 && strings.Contains(p.Log(), "address already in use") {
			t.Logf("port %d was taken before the provider bound it; trying another", port)
			continue
		}
		t.Fatalf("start provider: %v", err)
	}
}

// ConsumerOptions configure one cmd/consumer process.
type ConsumerOptions struct {
	// App is the consumer application, e.g. demo-consumer1. Required.
	App string
	// Registry is "zookeeper://host:port". Required.
	Registry string
	// ConfigCenter defaults to Registry.
	ConfigCenter string
	// LoadBalance defaults to gray.
	LoadBalance string
	// Retries of the failover cluster; default 0 (one attempt per call).
	Retries int
	// Tag is the consumer's static dubbo.tag.
	Tag string
	// RegistryType is the consumer's -registry-type (interface, service,
	// all, default); empty: interface.
	RegistryType string
	// Protocol is the consumer's -protocol (dubbo, tri); empty: dubbo.
	Protocol string
	// LogLevel is dubbo-go's log level; default info, so that accepted
	// rule changes are logged too.
	LogLevel string
	// Env is added to the process environment.
	Env []string
	// Console starts dubboroute's route console on a free loopback port
	// (Consumer.ConsoleURL).
	Console bool
	// Params are reference parameters (-param k=v), e.g. the outlier
	// ejection and retry policy settings.
	Params map[string]string
	// Timeout is the reference's request timeout (-timeout); 0: dubbo-go's
	// default.
	Timeout time.Duration
}

// Consumer is a running cmd/consumer, driven over HTTP.
type Consumer struct {
	*Proc
	// App is the consumer application; BaseURL its HTTP endpoint.
	App     string
	BaseURL string
	// ConsoleURL is the route console's page ("" unless started with one).
	ConsoleURL string
	client     *http.Client
}

var (
	consumerReady = regexp.MustCompile(`(?m)^READY \S+ http (\S+)$`)
	consoleLine   = regexp.MustCompile(`(?m)^CONSOLE (\S+)$`)
)

// StartConsumer starts a consumer process with its HTTP endpoint on a free
// 127.0.0.1 port and waits for its READY line. It fails t otherwise. The
// consumer may not know any provider yet: wait with WaitExplain.
func StartConsumer(t testing.TB, bins *Binaries, opts ConsumerOptions) *Consumer {
	t.Helper()
	if opts.LoadBalance == "" {
		opts.LoadBalance = "gray"
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "info"
	}
	args := []string{"-app", opts.App, "-registry", opts.Registry, "-http", net.JoinHostPort(Host, "0"),
		"-loadbalance", opts.LoadBalance, "-retries", strconv.Itoa(opts.Retries), "-log", opts.LogLevel}
	if opts.ConfigCenter != "" {
		args = append(args, "-config-center", opts.ConfigCenter)
	}
	for k, v := range opts.Params {
		args = append(args, "-param", k+"="+v)
	}
	if opts.Timeout > 0 {
		args = append(args, "-timeout", opts.Timeout.String())
	}
	if opts.Tag != "" {
		args = append(args, "-tag", opts.Tag)
	}
	if opts.RegistryType != "" {
		args = append(args, "-registry-type", opts.RegistryType)
	}
	if opts.Protocol != "" {
		args = append(args, "-protocol", opts.Protocol)
	}
	if opts.Console {
		args = append(args, "-console", net.JoinHostPort(Host, "0"))
	}
	p := Start(t, ProcOptions{Name: "consumer:" + opts.App, Path: bins.Consumer, Args: args, Env: opts.Env})
	m, err := p.WaitLine(consumerReady, ReadyTimeout)
	if err != nil {
		t.Fatalf("start consumer: %v", err)
	}
	c := &Consumer{Proc: p, App: opts.App, BaseURL: "http://" + m[1], client: &http.Client{Timeout: 15 * time.Second}}
	if opts.Console {
		cm, err := p.WaitLine(consoleLine, ReadyTimeout)
		if err != nil {
			t.Fatalf("start consumer: console: %v", err)
		}
		c.ConsoleURL = cm[1]
	}
	return c
}

// Call is one request to a consumer's HTTP endpoint.
type Call struct {
	// Method is "queryAll", "queryByName" or "testUser".
	Method string
	// Name is queryByName's argument (default "Go").
	Name string
	// UserID is the attachment userId (testUser requires one).
	UserID string
	// Tag and Force set the attachments dubbo.tag and dubbo.force.tag.
	Tag   string
	Force bool
}

// Call shorthands.
var (
	QueryAll    = Call{Method: "queryAll"}
	QueryByName = Call{Method: "queryByName"}
)

// TestUser is seed 002's call for a user.
func TestUser(id string) Call { return Call{Method: "testUser", UserID: id} }

// WithTag returns c with the request tag (and force flag) set.
func (c Call) WithTag(tag string, force bool) Call { c.Tag, c.Force = tag, force; return c }

// String describes the call, e.g. queryAll[tag=gray,force].
func (c Call) String() string {
	var at []string
	if c.UserID != "" {
		at = append(at, "userId="+c.UserID)
	}
	if c.Tag != "" {
		at = append(at, "tag="+c.Tag)
	}
	if c.Force {
		at = append(at, "force")
	}
	if len(at) == 0 {
		return c.Method
	}
	return c.Method + "[" + strings.Join(at, ",") + "]"
}

func (c Call) query() url.Values {
	q := url.Values{}
	if c.Tag != "" {
		q.Set("tag", c.Tag)
	}
	if c.Force {
		q.Set("force", "true")
	}
	if c.UserID != "" {
		q.Set("userId", c.UserID)
	}
	return q
}

func (c Call) path() (string, error) {
	q := c.query()
	switch c.Method {
	case "queryAll":
		return "/books?" + q.Encode(), nil
	case "queryByName":
		name := c.Name
		if name == "" {
			name = "Go"
		}
		q.Set("name", name)
		return "/books?" + q.Encode(), nil
	case "testUser":
		if c.UserID == "" {
			return "", fmt.Errorf("harness: testUser needs a UserID")
		}
		return "/testUser?" + q.Encode(), nil
	}
	return "", fmt.Errorf("harness: unknown method %q", c.Method)
}

// RPCError is a call that reached the consumer but failed in dubbo-go (for
// example "No provider available" when routing left nobody).
type RPCError struct {
	Call   Call
	Status int
	Msg    string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("%s: HTTP %d: %s", e.Call, e.Status, e.Msg)
}

// Do makes one call and returns the port of the provider that served it.
// An RPC failure is an *RPCError; any other error means the consumer could
// not be asked.
func (c *Consumer) Do(call Call) (int, error) {
	path, err := call.path()
	if err != nil {
		return 0, err
	}
	var r httpapi.Response
	status, err := c.getJSON(path, &r)
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK || r.Error != "" {
		return 0, &RPCError{Call: call, Status: status, Msg: r.Error}
	}
	if r.Port == 0 {
		return 0, fmt.Errorf("harness: %s on %s: answer names no serving port: %+v", call, c.App, r)
	}
	return r.Port, nil
}

// Ports makes n calls and counts the serving ports; failed calls are
// counted under port 0 and the last failure is returned.
func (c *Consumer) Ports(call Call, n int) (map[int]int, error) {
	got := map[int]int{}
	var last error
	for i := 0; i < n; i++ {
		p, err := c.Do(call)
		if err != nil {
			var rpc *RPCError
			if !errors.As(err, &rpc) {
				return got, err
			}
			last = err
		}
		got[p]++
	}
	return got, last
}

// Explain asks the consumer how it would route call now (nothing is
// invoked).
func (c *Consumer) Explain(call Call) (httpapi.Explain, error) {
	q := call.query()
	method := call.Method
	if method == "testUser" {
		method = "queryByName"
	}
	q.Set("method", method)
	if method == "queryByName" {
		name := call.Name
		if name == "" {
			name = "Go"
		}
		q.Set("name", name)
	}
	var ex httpapi.Explain
	status, err := c.getJSON("/explain?"+q.Encode(), &ex)
	if err != nil {
		return ex, err
	}
	if status != http.StatusOK {
		return ex, fmt.Errorf("harness: explain %s on %s: HTTP %d: %s", call, c.App, status, ex.Error)
	}
	return ex, nil
}

// WaitExplain polls Explain until ok accepts the answer and returns it, or
// returns an error describing the last answer after timeout.
func (c *Consumer) WaitExplain(call Call, timeout time.Duration, ok func(httpapi.Explain) bool) (httpapi.Explain, error) {
	var last httpapi.Explain
	err := Eventually(timeout, func() error {
		ex, err := c.Explain(call)
		if err != nil {
			return err
		}
		last = ex
		if !ok(ex) {
			return fmt.Errorf("providers %v, routed %v, rules %v; trace: %s", ex.Providers, ex.Routed, ex.Rules, ex.TraceText)
		}
		return nil
	})
	if err != nil {
		return last, fmt.Errorf("harness: %s on %s: %w", call, c.App, err)
	}
	return last, nil
}

func (c *Consumer) getJSON(path string, v any) (int, error) {
	resp, err := c.client.Get(c.BaseURL + path)
	if err != nil {
		return 0, fmt.Errorf("harness: GET %s on %s: %w", path, c.App, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("harness: GET %s on %s: read body: %w", path, c.App, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("harness: GET %s on %s: HTTP %d, body %q: %w", path, c.App, resp.StatusCode, body, err)
	}
	return resp.StatusCode, nil
}

// Eventually calls f until it returns nil or timeout passes, pausing 50 ms
// between attempts, and returns f's last error (wrapped with the time
// waited) on timeout.
func Eventually(timeout time.Duration, f func() error) error {
	begin := time.Now()
	for {
		err := f()
		if err == nil {
			return nil
		}
		if time.Since(begin) > timeout {
			return fmt.Errorf("not within %v: %w", timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
	if err != nil {
		return 0, fmt.Errorf("harness: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Same reports whether two address lists hold the same addresses, in any
// order.
func Same(got []string, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	a := append([]string(nil), got...)
	b := append([]string(nil), want...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
