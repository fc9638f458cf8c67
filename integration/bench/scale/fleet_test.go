package scale

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// Implementations, in the order each fleet size measures them:
// dubboroute's chain with dubbo-go's random balancer (the side-by-side
// comparison: only routing differs), dubbo-go's built-ins, and dubboroute
// with its own gray balancer.
var impls = []string{"dubboroute", "dubbogo", "dubboroute+gray"}

// build is the binary an implementation runs (dubboroute or dubbogo) and
// lb its load balancer.
func build(impl string) (bin, lb string) {
	if b, ok := strings.CutSuffix(impl, "+gray"); ok {
		return b, "gray"
	}
	if b, name, ok := strings.Cut(impl, "+lb="); ok {
		return b, name
	}
	return impl, "random"
}

// scaleLBs are the balancers SCALE_LB names (comma-separated Java names,
// e.g. random,roundrobin,leastactive,consistenthash), each measured for
// dubboroute and, under dubbo-go's name for it, for plain dubbo-go:
// sub-benchmarks impl=<impl>/lb=<name>/n=<n>.
func scaleLBs() []string {
	var out []string
	for _, s := range strings.Split(os.Getenv("SCALE_LB"), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// dubbogoLB is dubbo-go v3.3.2's name for a Java balancer ("": none; a
// plain dubbo-go consumer would panic on the Java name).
func dubbogoLB(name string) string {
	switch name {
	case "consistenthash":
		return "consistenthashing"
	case "adaptive":
		return "p2c"
	case "shortestresponse":
		return ""
	}
	return name
}

const consumerPkg = "github.com/dubboroute/dubboroute/integration/bench/scale/scaleconsumer"

// bins are the binaries of one run: the sample provider and the scale
// consumer built with and without dubboroute (no -race: this measures
// speed).
type bins struct{ provider, consumer map[string]string }

func buildAll(t testing.TB) bins {
	t.Helper()
	dir, err := os.MkdirTemp("", "dubboroute-scale-bin-")
	if err != nil {
		t.Fatal(err)
	}
	harness.RemoveAtExit(dir)
	if err := harness.Build(dir, false, harness.ProviderPkg); err != nil {
		t.Fatal(err)
	}
	bs := bins{provider: map[string]string{"": filepath.Join(dir, "provider")}, consumer: map[string]string{}}
	for _, impl := range []string{"dubboroute", "dubbogo"} {
		out := filepath.Join(dir, "scaleconsumer-"+impl)
		args := []string{"build", "-o", out}
		if impl == "dubboroute" {
			args = append(args, "-tags", "dubboroute")
		}
		args = append(args, consumerPkg)
		if b, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		bs.consumer[impl] = out
	}
	return bs
}

// numProviders is the number of real provider processes; registration i of
// the fleet is served by provider i mod numProviders.
const numProviders = 4

// fleet is the private ZooKeeper, the real providers and the registrations
// the benchmark added.
type fleet struct {
	t     testing.TB
	zk    *zk.Server
	rules *harness.Rules
	ports [numProviders]int
	regs  []string // full paths of the registrations, in order
}

// providerSessions lifts dubbo-go's limit of 700 connections per provider
// process: each real provider serves a quarter of the fleet's addresses.
const providerSessions = 20000

// consumerConns is the connections a consumer opens per provider address:
// one, Java Dubbo's default. dubbo-go's default, 16, would take 16,000
// sockets per consumer at n = 1,000 (and reconnect storms once a
// provider's session limit is hit).
const consumerConns = 1

var providerReady = regexp.MustCompile(`(?m)^READY (\d+) `)

const providersDir = "/dubbo/" + api.Interface + "/providers"

func startFleet(t testing.TB, bs bins) *fleet {
	t.Helper()
	f := &fleet{t: t, zk: zk.Start(t)}
	for i := range f.ports {
		port, err := harness.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		// No -host: dubbo-go listens on the port on every local address,
		// so the provider serves all of 127.0.0.0/8. No registry: dubbo-go
		// 3.3.2 would register the machine's first non-loopback address
		// (it has no DUBBO_IP_TO_REGISTRY for ZooKeeper); the benchmark
		// writes every registration itself, all in 127.0.0.0/8.
		p := harness.Start(t, harness.ProcOptions{
			Name: fmt.Sprintf("provider:%d", port), Path: bs.provider[""],
			Args: []string{"-port", strconv.Itoa(port), "-registry", "", "-log", "error", "-sessions", strconv.Itoa(providerSessions)},
		})
		if _, err := p.WaitLine(providerReady, harness.ReadyTimeout); err != nil {
			t.Fatalf("provider on %d: %v", port, err)
		}
		f.ports[i] = port
	}
	f.rules = harness.DialRules(t, f.zk.Addr())
	cur := ""
	for _, part := range strings.Split(strings.Trim(providersDir, "/"), "/") {
		cur += "/" + part
		if _, err := f.rules.Conn.Create(cur, nil, 0, gozk.WorldACL(gozk.PermAll)); err != nil && !errors.Is(err, gozk.ErrNodeExists) {
			t.Fatalf("create %s: %v", cur, err)
		}
	}
	f.putRules(f.ports[0])
	return f
}

// providerURL is the URL dubbo-go 3.3.2 registers for the sample provider
// (samples/bookfacade/cmd/provider, copied from its registration), with
// the address, port and pid to fill in.
const providerURL = "dubbo://%s:%d/" + api.Interface + "?IDL-mode=non-IDL&anyhost=true&application=demo-provider" +
	"&bean.name=BookFacade&cluster=failover&export=true&interface=" + api.Interface +
	"&loadbalance=random&max-server-recv-msg-size=4mib&methods=QueryAll,queryAll,QueryByName,queryByName" +
	"&module=sample&name=demo-provider&organization=dubbo-go&owner=dubbo-go&pid=%d&registry=zookeeper" +
	"&registry.role=3&registry.type=interface&release=dubbo-golang-3.3.2&serialization=hessian2" +
	"&service.filter=echo,token,accesslog,tps,generic_service,execute,pshutdown&side=provider&timestamp=%d&weight=100"

// fakeIP is the address of added registration i (i >= 0): 127.1.x.y.
func fakeIP(i int) string { return fmt.Sprintf("127.1.%d.%d", i/250, i%250+1) }

// serviceRule routes queryAll to port q and queryByName to port p1, in the
// form both implementations apply (dubbo-go 3.3.2 needs configVersion,
// port= rather than address=, and enabled and force both true).
func serviceRule(q, p1 int) string {
	return fmt.Sprintf(`configVersion: v3.0
scope: service
force: true
runtime: true
enabled: true
key: %s
conditions:
  - method=queryAll => port=%d
  - method=queryByName => port=%d
`, api.Interface, q, p1)
}

// tagRule is the seeds' tag rule: requests tagged gray go to port p1.
func tagRule(p1 int) string {
	return fmt.Sprintf(`force: false
runtime: true
enabled: true
priority: 1
key: %s
tags:
  - name: gray
    addresses:
      - 0.0.0.0:%d
`, api.ProviderApp, p1)
}

const tagKey = api.ProviderApp + ".tag-router"

// putRules writes the tag rule and the service rule sending queryAll to q.
func (f *fleet) putRules(q int) {
	f.t.Helper()
	if err := f.rules.Put(tagKey, tagRule(f.ports[1])); err != nil {
		f.t.Fatal(err)
	}
	if err := f.rules.Put(api.ServiceRuleKey, serviceRule(q, f.ports[1])); err != nil {
		f.t.Fatal(err)
	}
}

// size is the fleet's number of registrations.
func (f *fleet) size() int { return len(f.regs) }

// nodePath is the path of registration i: the real provider on port
// i mod numProviders at 127.0.0.1 for the first numProviders, else at
// 127.1.x.y.
func (f *fleet) nodePath(i int) string {
	ip := harness.Host
	if i >= numProviders {
		ip = fakeIP(i - numProviders)
	}
	u := fmt.Sprintf(providerURL, ip, f.ports[i%numProviders], 10000+i%numProviders, time.Now().Unix())
	return providersDir + "/" + url.QueryEscape(u)
}

// grow adds registrations until the fleet has n, in batches of one
// ZooKeeper multi-op each.
func (f *fleet) grow(n int) {
	f.t.Helper()
	for f.size() < n {
		var ops []any
		var paths []string
		for i := len(f.regs); i < n && len(ops) < 200; i++ {
			p := f.nodePath(i)
			ops = append(ops, &gozk.CreateRequest{Path: p, Flags: gozk.FlagEphemeral, Acl: gozk.WorldACL(gozk.PermAll)})
			paths = append(paths, p)
		}
		if _, err := f.rules.Conn.Multi(ops...); err != nil {
			f.t.Fatalf("add registrations %d..%d: %v", len(f.regs), len(f.regs)+len(ops), err)
		}
		f.regs = append(f.regs, paths...)
	}
}

// leave deletes registration i; back re-creates it.
func (f *fleet) leave(i int) error {
	if err := f.rules.Conn.Delete(f.regs[i], -1); err != nil {
		return fmt.Errorf("delete %s: %w", f.regs[i], err)
	}
	return nil
}

func (f *fleet) back(i int) error {
	_, err := f.rules.Conn.Create(f.regs[i], nil, gozk.FlagEphemeral, gozk.WorldACL(gozk.PermAll))
	if err != nil && !errors.Is(err, gozk.ErrNodeExists) {
		return fmt.Errorf("re-create %s: %w", f.regs[i], err)
	}
	return nil
}

// consumer is a running scaleconsumer.
type consumer struct {
	*harness.Proc
	impl    string
	base    string
	firstMs float64 // process start to first routed call
}

var (
	firstLine = regexp.MustCompile(`(?m)^FIRST (\d+)$`)
	readyLine = regexp.MustCompile(`(?m)^READY \S+ http (\S+)$`)
)

func (f *fleet) startConsumer(bs bins, impl string, refs int) *consumer {
	f.t.Helper()
	c, err := f.tryConsumer(bs, impl, refs)
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// tryConsumer starts a consumer and waits for its first routed call; an
// error says why not (with the crash, if it died).
func (f *fleet) tryConsumer(bs bins, impl string, refs int) (*consumer, error) {
	bin, lb := build(impl)
	began := time.Now()
	p := harness.Start(f.t, harness.ProcOptions{
		Name: fmt.Sprintf("consumer:%s:refs=%d", impl, refs), Path: bs.consumer[bin],
		Args: []string{"-lb", lb, "-zk", f.zk.Addr(), "-refs", strconv.Itoa(refs), "-want", strconv.Itoa(f.ports[0]),
			"-p1", strconv.Itoa(f.ports[1]), "-http", harness.Host + ":0", "-conns", strconv.Itoa(consumerConns)},
	})
	c := &consumer{Proc: p, impl: impl}
	m, err := p.WaitLine(firstLine, 3*time.Minute)
	if err != nil {
		_ = p.Stop(10 * time.Second)
		return nil, fmt.Errorf("%s consumer: %w%s", impl, err, c.crash())
	}
	ns, _ := strconv.ParseInt(m[1], 10, 64)
	c.firstMs = float64(time.Unix(0, ns).Sub(began).Microseconds()) / 1e3
	r, err := p.WaitLine(readyLine, time.Minute)
	if err != nil {
		_ = p.Stop(10 * time.Second)
		return nil, fmt.Errorf("%s consumer: %w%s", impl, err, c.crash())
	}
	c.base = "http://" + r[1]
	return c, nil
}

// Settling: a consumer has taken in the whole fleet when it idles (dubbo-go
// 3.3.2's ZooKeeper registry delivers the providers one event each and
// rebuilds its invoker list per event, which takes many seconds at
// n = 5,000). Idle: at most idleTicks of CPU time in each of two
// consecutive seconds.
const (
	idleTicks   = 8 // of 100 per second
	settleLimit = 5 * time.Minute
)

// settle waits until the consumer idles and returns the seconds from its
// start.
func (c *consumer) settle() (float64, error) {
	quiet := 0
	prev, err := cpuTicks(c.Pid())
	if err != nil {
		return 0, err
	}
	for deadline := time.Now().Add(settleLimit); time.Now().Before(deadline); {
		time.Sleep(time.Second)
		cur, err := cpuTicks(c.Pid())
		if err != nil {
			return 0, err
		}
		if cur-prev <= idleTicks {
			quiet++
		} else {
			quiet = 0
		}
		prev = cur
		if quiet == 2 {
			return c.Uptime().Seconds() - 2, nil
		}
	}
	return 0, fmt.Errorf("%s consumer: still busy (more than %d%% of a CPU) %v after start", c.impl, idleTicks, settleLimit)
}

// crash describes how the consumer died ("" while it runs): Go's fatal
// error or panic line and the first non-runtime function of the failing
// goroutine.
func (c *consumer) crash() string {
	if !c.Exited() {
		return ""
	}
	lines := strings.Split(c.Log(), "\n")
	what, where := "", ""
	for i, l := range lines {
		if what == "" && (strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:")) {
			what = l
		}
		if what != "" && strings.HasSuffix(l, "[running]:") {
			for _, fl := range lines[i+1:] {
				if fl == "" || strings.HasPrefix(fl, "\t") || strings.HasPrefix(fl, "runtime.") || strings.HasPrefix(fl, "internal/") {
					continue
				}
				if j := strings.LastIndexByte(fl, '('); j > 0 {
					fl = fl[:j]
				}
				where = " in " + fl
				break
			}
			break
		}
	}
	if what == "" {
		return fmt.Sprintf(" (process exited: %s)", c.ExitStatus())
	}
	return fmt.Sprintf(" (process died: %s%s)", what, where)
}

var httpc = &http.Client{Timeout: 10 * time.Minute}

func (c *consumer) get(path string, v any) error {
	resp, err := httpc.Get(c.base + path)
	if err != nil {
		return fmt.Errorf("%s consumer: GET %s: %w", c.impl, path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("%s consumer: GET %s: HTTP %d: %w", c.impl, path, resp.StatusCode, err)
	}
	return nil
}

// cpuTicks is the process's utime+stime in clock ticks (USER_HZ, 100 on
// Linux).
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cpu time of %d: %w", pid, err)
	}
	s := string(b)
	fs := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// After the command: state(0) ppid(1) ... utime(11) stime(12).
	if len(fs) < 13 {
		return 0, fmt.Errorf("cpu time of %d: short /proc stat %q", pid, s)
	}
	u, err1 := strconv.ParseInt(fs[11], 10, 64)
	st, err2 := strconv.ParseInt(fs[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("cpu time of %d: bad /proc stat %q", pid, s)
	}
	return u + st, nil
}

const clockTick = 10 * time.Millisecond // USER_HZ 100

// rssMiB is the process's resident set in MiB.
func rssMiB(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss of %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("rss of %d: %q: %w", pid, line, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("rss of %d: no VmRSS", pid)
}
