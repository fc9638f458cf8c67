package consumer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"dubbo.apache.org/dubbo-go/v3"
	"dubbo.apache.org/dubbo-go/v3/client"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	dglog "dubbo.apache.org/dubbo-go/v3/logger"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	_ "dubbo.apache.org/dubbo-go/v3/imports"

	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/httpapi"
	"github.com/dubboroute/dubboroute/samples/bookfacade/internal/regconf"
)

// Options configure a consumer.
type Options struct {
	// App is the consumer application name, e.g. demo-consumer1.
	App string
	// Registry is "zookeeper://host:port" (or "memory://" in a process that
	// links directory/memory: the demo and tests). Ignored with URL.
	Registry string
	// RegistryType is dubbo-go's registry-type (interface, service, all,
	// default); empty: interface.
	RegistryType string
	// Protocol is the reference's protocol: "dubbo" (default) or "tri"
	// (triple with hessian2, which Java 3.3 triple providers of a non-IDL
	// interface answer). dubbo-go uses only providers of this protocol.
	Protocol string
	// ConfigCenter is where rules are read from; default: Registry's address.
	// "none" disables it.
	ConfigCenter string
	// URL is a direct provider list ("dubbo://127.0.0.1:20880;dubbo://127.0.0.1:20881")
	// used instead of the registry.
	URL string
	// LoadBalance is the consumer's load balancer; default "gray".
	LoadBalance string
	// Cluster is the cluster strategy; default failover.
	Cluster string
	// Retries of the failover cluster; default 0, so a routed call is
	// attempted exactly once and the serving port is the routed one.
	Retries int
	// Timeout is the calls' request timeout; 0 keeps dubbo-go's default
	// (3 s).
	Timeout time.Duration
	// LogLevel is dubbo-go's log level (debug, info, warn, error); default info.
	LogLevel string
	// Tag is the consumer's static dubbo.tag (used when a call sets none).
	Tag string
	// Params are extra reference parameters (e.g. region, or
	// dubboroute.affinity=true to run the affinity router).
	Params map[string]string
}

// Consumer is a BookFacade client.
type Consumer struct {
	conn *client.Connection
	opts Options
}

// New connects a consumer (it does not wait for providers).
func New(opts Options) (*Consumer, error) {
	if opts.App == "" {
		return nil, fmt.Errorf("bookfacade consumer: application name is required")
	}
	if opts.LoadBalance == "" {
		opts.LoadBalance = "gray"
	}
	insOpts := []dubbo.InstanceOption{dubbo.WithName(opts.App)}
	if opts.LogLevel != "" {
		insOpts = append(insOpts, dubbo.WithLogger(dglog.WithLevel(opts.LogLevel)))
	}
	if opts.URL == "" {
		ro, err := regconf.RegistryOfType(opts.Registry, opts.RegistryType)
		if err != nil {
			return nil, fmt.Errorf("bookfacade consumer %s: %w", opts.App, err)
		}
		insOpts = append(insOpts, dubbo.WithRegistry(ro...))
	}
	cc := opts.ConfigCenter
	if cc == "" {
		cc = opts.Registry
	}
	if cc != "" && cc != "none" {
		co, err := regconf.ConfigCenter(cc)
		if err != nil {
			return nil, fmt.Errorf("bookfacade consumer %s: config center: %w", opts.App, err)
		}
		insOpts = append(insOpts, dubbo.WithConfigCenter(co...))
	}
	ins, err := dubbo.NewInstance(insOpts...)
	if err != nil {
		return nil, fmt.Errorf("bookfacade consumer %s: new instance: %w", opts.App, err)
	}
	protoOpt := client.WithClientProtocolDubbo()
	switch opts.Protocol {
	case "", constant.Dubbo:
	case constant.TriProtocol:
		protoOpt = client.WithClientProtocolTriple()
	default:
		return nil, fmt.Errorf("bookfacade consumer %s: protocol %q: want dubbo or tri", opts.App, opts.Protocol)
	}
	cli, err := ins.NewClient(protoOpt, client.WithClientSerialization(constant.Hessian2Serialization))
	if err != nil {
		return nil, fmt.Errorf("bookfacade consumer %s: new client: %w", opts.App, err)
	}
	refOpts := []client.ReferenceOption{
		client.WithLoadBalance(opts.LoadBalance),
		client.WithRetries(opts.Retries),
	}
	if opts.Timeout > 0 {
		refOpts = append(refOpts, client.WithRequestTimeout(opts.Timeout))
	}
	if opts.Protocol == constant.TriProtocol {
		// Non-IDL: the BookFacade is a Java interface, not a protobuf
		// service. Without it dubbo-go v3.3.2 calls a provider URL without
		// IDL-mode=non-IDL (every Java provider's) through its legacy
		// grpc-based invoker, which sends a request wrapper without the
		// arguments: Java's triple invoked queryByName with none (measured).
		// Deprecated in v3.3.2, yet its TripleProtocol.Refer still decides
		// on this parameter; a plain client.WithParam is overwritten by it.
		//lint:ignore SA1019 the only switch v3.3.2 reads (see above)
		refOpts = append(refOpts, client.WithIDL(constant.NONIDL))
	}
	if opts.Cluster != "" {
		refOpts = append(refOpts, client.WithCluster(opts.Cluster))
	}
	if opts.URL != "" {
		refOpts = append(refOpts, client.WithURL(opts.URL))
	}
	if opts.Tag != "" {
		refOpts = append(refOpts, client.WithParam(constant.Tagkey, opts.Tag))
	}
	for k, v := range opts.Params {
		refOpts = append(refOpts, client.WithParam(k, v))
	}
	conn, err := cli.Dial(api.Interface, refOpts...)
	if err != nil {
		return nil, fmt.Errorf("bookfacade consumer %s: dial %s: %w", opts.App, api.Interface, err)
	}
	return &Consumer{conn: conn, opts: opts}, nil
}

// callOpts are the options of every call: the request timeout, when one
// is set (dubbo-go v3.3.2 sends each call with its call option's timeout as
// an attachment, which wins over the reference's and the provider URL's).
func (c *Consumer) callOpts() []client.CallOption {
	if c.opts.Timeout <= 0 {
		return nil
	}
	return []client.CallOption{client.WithCallRequestTimeout(c.opts.Timeout)}
}

// Attachments travel with one call (userId, dubbo.tag, dubbo.force.tag...).
type Attachments map[string]string

func (a Attachments) ctx(ctx context.Context) context.Context {
	if len(a) == 0 {
		return ctx
	}
	m := make(map[string]any, len(a))
	for k, v := range a {
		m[k] = v
	}
	return context.WithValue(ctx, constant.AttachmentKey, m)
}

// QueryAll calls queryAll().
func (c *Consumer) QueryAll(ctx context.Context, at Attachments) ([]*api.Book, error) {
	// Decode into an interface: a Go provider sends a typed list of Book
	// (decoded as []*api.Book), a Java provider an untyped java.util.List
	// (decoded as []any holding *api.Book).
	var reply any
	if err := c.conn.CallUnary(at.ctx(ctx), []any{}, &reply, api.MethodQueryAll, c.callOpts()...); err != nil {
		return nil, fmt.Errorf("%s.%s: %w", api.Interface, api.MethodQueryAll, err)
	}
	books, err := asBooks(reply)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", api.Interface, api.MethodQueryAll, err)
	}
	return books, nil
}

// asBooks converts a decoded List<Book> reply into books.
func asBooks(reply any) ([]*api.Book, error) {
	switch v := reply.(type) {
	case nil:
		return nil, nil
	case []*api.Book:
		return v, nil
	case []any:
		out := make([]*api.Book, 0, len(v))
		for i, e := range v {
			switch b := e.(type) {
			case *api.Book:
				out = append(out, b)
			case api.Book:
				out = append(out, &b)
			case nil:
				out = append(out, nil)
			default:
				return nil, fmt.Errorf("reply element %d is %T, want com.muke.dubbocourse.common.api.Book", i, e)
			}
		}
		return out, nil
	default:
		return nil, fmt.Errorf("reply is %T, want a list of com.muke.dubbocourse.common.api.Book", reply)
	}
}

// QueryByName calls queryByName(name).
func (c *Consumer) QueryByName(ctx context.Context, name string, at Attachments) (*api.Book, error) {
	book := &api.Book{}
	if err := c.conn.CallUnary(at.ctx(ctx), []any{name}, book, api.MethodQueryByName, c.callOpts()...); err != nil {
		return nil, fmt.Errorf("%s.%s(%q): %w", api.Interface, api.MethodQueryByName, name, err)
	}
	return book, nil
}

// Response is the JSON body of /testUser and /books.
type Response = httpapi.Response

// Handler serves /testUser and /books.
func (c *Consumer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/testUser", func(w http.ResponseWriter, r *http.Request) {
		uid := r.URL.Query().Get("userId")
		if _, err := strconv.ParseInt(uid, 10, 64); err != nil {
			writeJSON(w, http.StatusBadRequest, Response{Call: "testUser", Error: "userId must be an integer"})
			return
		}
		at := requestAttachments(r)
		at["userId"] = uid
		b, err := c.QueryByName(r.Context(), "user-"+uid, at)
		c.reply(w, "testUser(userId="+uid+")", b, nil, err)
	})
	mux.HandleFunc("/books", func(w http.ResponseWriter, r *http.Request) {
		at := requestAttachments(r)
		if name := r.URL.Query().Get("name"); name != "" {
			b, err := c.QueryByName(r.Context(), name, at)
			c.reply(w, api.MethodQueryByName+"("+name+")", b, nil, err)
			return
		}
		bs, err := c.QueryAll(r.Context(), at)
		c.reply(w, api.MethodQueryAll+"()", nil, bs, err)
	})
	mux.HandleFunc("/explain", func(w http.ResponseWriter, r *http.Request) {
		method := r.URL.Query().Get("method")
		if method == "" {
			method = api.MethodQueryAll
		}
		var args []any
		if method == api.MethodQueryByName {
			args = []any{r.URL.Query().Get("name")}
		}
		ex := c.Explain(method, args, requestAttachments(r))
		code := http.StatusOK
		if ex.Error != "" {
			code = http.StatusServiceUnavailable
		}
		writeJSON(w, code, ex)
	})
	mux.HandleFunc("/load", c.serveLoad)
	mux.HandleFunc("/debug/goroutines", serveGoroutines)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// Explain routes a call on the consumer's current dubboroute snapshot
// without invoking it: all known providers, the routed ones, the router
// trace and, with loadbalance: gray, the gray balancer's decision.
func (c *Consumer) Explain(method string, args []any, at Attachments) httpapi.Explain {
	ex := httpapi.Explain{Consumer: c.opts.App, Method: method, Attachments: at, Providers: []string{}, Routed: []string{}}
	b := extension.BindingFor(api.Interface, c.opts.App)
	if b == nil {
		ex.Error = "no dubboroute binding for " + api.Interface + " in " + c.opts.App + " (is the extension imported?)"
		return ex
	}
	ex.ProviderApp = b.ProviderApp()
	snap := b.Chain().Snapshot()
	ex.Generation = snap.Generation
	for _, ivk := range snap.Invokers {
		ex.Providers = append(ex.Providers, ivk.GetURL().Location)
	}
	for _, ref := range snap.Rules {
		if ref.Empty() {
			continue
		}
		if ex.Rules == nil {
			ex.Rules = map[string]string{}
		}
		ex.Rules[ref.Key] = ref.Version
	}
	atts := make(map[string]any, len(at))
	for k, v := range at {
		atts[k] = v
	}
	routed, tr := b.Explain(method, args, atts)
	for _, ivk := range routed {
		ex.Routed = append(ex.Routed, ivk.GetURL().Location)
	}
	ex.Trace, ex.TraceText = tr, tr.String()
	if c.opts.LoadBalance == "gray" && len(routed) > 0 {
		_, d := extension.GrayLoadBalance().Explain(routed, invocation.NewRPCInvocation(method, args, atts))
		if js, err := json.Marshal(d); err == nil {
			ex.Gray = js
		}
	}
	if rep, ok := extension.Outliers()[api.Interface]; ok {
		for _, h := range rep.Providers {
			if h.Ejected {
				ex.Ejected = append(ex.Ejected, httpapi.Ejected{Address: h.Addr, Reason: h.Reason, Since: h.Since, Until: h.Until})
			}
		}
	}
	sort.Strings(ex.Providers)
	return ex
}

func requestAttachments(r *http.Request) Attachments {
	at := Attachments{}
	q := r.URL.Query()
	if t := q.Get("tag"); t != "" {
		at[constant.Tagkey] = t
	}
	if f := q.Get("force"); f != "" {
		at[constant.ForceUseTag] = f
	}
	if uid := q.Get("userId"); uid != "" {
		at["userId"] = uid
	}
	return at
}

func (c *Consumer) reply(w http.ResponseWriter, call string, b *api.Book, bs []*api.Book, err error) {
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, Response{Call: call, Error: err.Error()})
		return
	}
	if b != nil {
		bs = []*api.Book{b}
	}
	resp := Response{Call: call}
	for _, b := range bs {
		if b != nil {
			resp.Books = append(resp.Books, httpapi.Book{Name: b.Name, Author: b.Author})
		}
	}
	if len(bs) > 0 {
		resp.Port = api.PortOf(bs[0])
	}
	writeJSON(w, http.StatusOK, resp)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
