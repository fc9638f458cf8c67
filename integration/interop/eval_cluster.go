package interop

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dubboroute/dubboroute/cluster/mock"
	"github.com/dubboroute/dubboroute/cluster/strategy"
)

// Item is ClusterOracleService.Item on the Go side.
type Item struct {
	Name  string   `json:"name"`
	Count int32    `json:"count"`
	Tags  []string `json:"tags"`
}

// ClusterIface is the Java interface with a mock class; the Go side
// registers OracleServiceMock for it.
const ClusterIface = "io.github.dubboroute.it.ClusterOracleService"

// OracleServiceMock mirrors integration/java's ClusterOracleServiceMock.
type OracleServiceMock struct{}

// Str is the mock's str().
func (OracleServiceMock) Str() string { return "mock-str" }

// I32 is the mock's i32().
func (OracleServiceMock) I32() int32 { return 7 }

// I64 is the mock's i64().
func (OracleServiceMock) I64() int64 { return 70000000000 }

// Bool is the mock's bool().
func (OracleServiceMock) Bool() bool { return true }

// Boxed is the mock's boxed().
func (OracleServiceMock) Boxed() *int32 { v := int32(8); return &v }

// List is the mock's list().
func (OracleServiceMock) List() []string { return []string{"mock"} }

// Map is the mock's map().
func (OracleServiceMock) Map() map[string]any { return map[string]any{"mock": "yes"} }

// Pojo is the mock's pojo(): it fails as the Java mock does.
func (OracleServiceMock) Pojo() (*Item, error) {
	return nil, &mock.ThrownError{Class: "java.lang.IllegalStateException", Message: "mock pojo fails"}
}

func init() { mock.Register(ClusterIface, OracleServiceMock{}) }

var clusterTypes = map[string]reflect.Type{
	"str": reflect.TypeFor[string](), "i32": reflect.TypeFor[int32](), "i64": reflect.TypeFor[int64](),
	"bool": reflect.TypeFor[bool](), "boxed": reflect.TypeFor[*int32](), "list": reflect.TypeFor[[]string](),
	"map": reflect.TypeFor[map[string]any](), "pojo": reflect.TypeFor[*Item](),
}

// sprov is a scripted provider.
type sprov struct {
	idx    int
	avail  bool
	script []string
	calls  int
	mu     *sync.Mutex
	log    *[]int
}

func (p *sprov) IsAvailable() bool { return p.avail }

// sres is a scripted result.
type sres struct {
	kind  strategy.Kind
	from  int
	value any
	null  bool
	err   error
}

type codeErr struct {
	code int
	msg  string
}

func (e *codeErr) Error() string { return e.msg }
func (e *codeErr) RPCCode() int  { return e.code }

type scall struct {
	provs   []*sprov
	none    bool
	picks   []int
	pos     int
	invalid map[*sprov]bool
	mu      sync.Mutex
}

// List is the directory's list: the providers minus the invalidated ones
// (Java's AbstractDirectory validInvokers).
func (c *scall) List() ([]*sprov, error) {
	if c.none || len(c.provs) == 0 {
		return nil, &codeErr{strategy.CodeNoInvoker, "no provider available after routing"}
	}
	out := c.provs
	if len(c.invalid) > 0 {
		out = nil
		for _, p := range c.provs {
			if !c.invalid[p] {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, &codeErr{strategy.CodeNoInvoker, "no provider available after routing"}
	}
	return out, nil
}

func (c *scall) Invoke(p *sprov) sres {
	c.mu.Lock()
	step := "ok"
	if len(p.script) > 0 {
		step = p.script[min(p.calls, len(p.script)-1)]
	}
	p.calls++
	c.mu.Unlock()
	p.mu.Lock()
	*p.log = append(*p.log, p.idx)
	p.mu.Unlock()
	tag := " p" + strconv.Itoa(p.idx)
	switch step {
	case "ok":
		return sres{kind: strategy.OK, from: p.idx, value: "p" + strconv.Itoa(p.idx)}
	case "biz":
		return sres{kind: strategy.Business, from: p.idx, err: errors.New("biz" + tag)}
	case "rpcres":
		return sres{kind: strategy.ResultRPC, from: p.idx, err: &codeErr{strategy.CodeNetwork, "status" + tag}}
	case "fail":
		return sres{kind: strategy.Thrown, from: p.idx, err: &codeErr{strategy.CodeNetwork, "fail" + tag}}
	case "timeout":
		return sres{kind: strategy.Thrown, from: p.idx, err: &codeErr{strategy.CodeTimeout, "timeout" + tag}}
	case "bizthrow":
		return sres{kind: strategy.ThrownBiz, from: p.idx, err: &codeErr{strategy.CodeBiz, "bizthrow" + tag}}
	case "npe":
		return sres{kind: strategy.ThrownOther, from: p.idx, err: errors.New("npe" + tag)}
	}
	return sres{kind: strategy.ThrownOther, from: -1, err: fmt.Errorf("unknown step %s", step)}
}

func (c *scall) Kind(r sres) strategy.Kind { return r.kind }
func (c *scall) Err(r sres) error          { return r.err }
func (c *scall) Pick(list []*sprov) *sprov {
	if len(list) == 1 {
		return list[0]
	}
	p := 0
	if len(c.picks) > 0 {
		p = c.picks[c.pos%len(c.picks)]
		c.pos++
	}
	return list[p%len(list)]
}
func (c *scall) Fail(e *strategy.Error) sres { return sres{kind: e.Kind(), from: -1, err: e} }
func (c *scall) Empty() sres                 { return sres{kind: strategy.OK, from: -1, null: true} }

type mapParams map[string]string

func (m mapParams) Param(k string) string { return m[k] }

func intParam(m map[string]string, k string, def int) int {
	if v, ok := m[k]; ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n
		}
	}
	return def
}

// methodInt is Java's URL.getMethodParameter(method, k, def).
func methodInt(m map[string]string, method, k string, def int) int {
	if _, ok := m[method+"."+k]; ok {
		return intParam(m, method+"."+k, def)
	}
	return intParam(m, k, def)
}

// EvalCluster runs a case through dubboroute's strategies and mock.
func EvalCluster(c *ClusterCase) ClusterAnswer {
	var mu sync.Mutex
	var log []int
	provs := make([]*sprov, len(c.Providers))
	for i, p := range c.Providers {
		provs[i] = &sprov{idx: i, avail: p.Avail == nil || *p.Avail, script: p.Script, mu: &mu, log: &log}
	}
	sel := strategy.NewSelector[*sprov]()
	invalid := map[*sprov]bool{}
	sel.Invalidate = func(p *sprov) { invalid[p] = true }
	sel.AvailableCheck = !strings.EqualFold(c.Params["cluster.availablecheck"], "false")
	fb := &strategy.Failback{Retries: intParam(c.Params, "retries", strategy.DefaultFailbackTimes), Tasks: intParam(c.Params, "failbacktasks", strategy.DefaultFailbackTasks), After: func(time.Duration, func()) {}}
	iface := ClusterIface
	if c.Iface == "bare" {
		iface = "io.github.dubboroute.it.ClusterOracleBare"
	}
	sticky := strings.EqualFold(c.ProviderParams[c.Method+".sticky"], "true") || (c.ProviderParams[c.Method+".sticky"] == "" && strings.EqualFold(c.ProviderParams["sticky"], "true"))
	ans := ClusterAnswer{ID: c.ID}
	calls := max(c.Calls, 1)
	for k := 0; k < calls; k++ {
		mu.Lock()
		log = log[:0]
		mu.Unlock()
		call := &scall{provs: provs, none: c.NoProvider, picks: c.Picks, invalid: invalid}
		var selected []*sprov
		run := func() sres {
			invokers, err := call.List()
			if err != nil {
				return sres{kind: strategy.Thrown, from: -1, err: err}
			}
			switch c.Strategy {
			case "failover":
				n, attached := 0, false
				if x, ok := c.RetriesAttachment.(float64); ok {
					n, attached = int(x), true
				} else if x, ok := c.RetriesAttachment.(int); ok {
					n, attached = x, true
				}
				attempts := strategy.Attempts(methodInt(c.Params, c.Method, "retries", strategy.DefaultRetries), n, attached)
				return strategy.Failover(call, sel, invokers, attempts, sticky)
			case "failfast":
				return strategy.Failfast(call, sel, invokers, sticky)
			case "failsafe":
				return strategy.Failsafe(call, sel, invokers, sticky)
			case "failback":
				r, _ := strategy.FailbackInvoke(fb, call, sel, invokers, sticky)
				return r
			case "forking":
				return strategy.Forking(call, sel, invokers, intParam(c.Params, "forks", strategy.DefaultForks),
					time.Duration(intParam(c.Params, "timeout", strategy.DefaultForkTimeout))*time.Millisecond, sticky, &selected)
			case "broadcast":
				return strategy.Broadcast(call, invokers, intParam(c.Params, "broadcast.fail.percent", strategy.DefaultFailPercent))
			case "available":
				return strategy.Available(call, sel, invokers)
			}
			return sres{kind: strategy.ThrownOther, from: -1, err: fmt.Errorf("unknown strategy %s", c.Strategy)}
		}
		mcall := mock.Call{Interface: iface, Method: c.Method, Type: clusterTypes[c.Method]}
		value := mock.ValueOf(mapParams(c.Params), c.Method)
		r, _, _ := mock.Invoke(value, call.Kind, call.Err, run, func(cause error) sres {
			o := mock.Run(value, cause, mcall)
			return sres{kind: o.Kind, from: -1, value: o.Value.V, null: o.Value.Null, err: o.Err}
		})
		a := answerOf(r)
		mu.Lock()
		a.Invoked = append([]int{}, log...)
		mu.Unlock()
		if c.Strategy == "forking" {
			a.Selected = []int{}
			for _, s := range selected {
				a.Selected = append(a.Selected, s.idx)
			}
		}
		ans.Calls = append(ans.Calls, a)
	}
	return ans
}

func answerOf(r sres) CallAnswer {
	ip := func(v int) *int { return &v }
	var a CallAnswer
	switch r.kind {
	case strategy.OK:
		a.Kind = "ok"
		a.From = ip(r.from)
		if r.null || r.value == nil {
			a.Value = json.RawMessage("null")
		} else {
			b, err := json.Marshal(r.value)
			if err != nil {
				b = []byte(strconv.Quote(err.Error()))
			}
			a.Value = b
		}
	case strategy.Business:
		a.Kind = "business"
		a.From = ip(r.from)
		var te *mock.ThrownError
		if errors.As(r.err, &te) {
			a.ExClass = te.Class
		} else {
			a.ExClass = "java.lang.IllegalArgumentException"
		}
	case strategy.ResultRPC:
		a.Kind = "result-rpc"
		a.From = ip(r.from)
		a.Code = ip(strategy.CodeOf(r.err))
		a.ExClass = "org.apache.dubbo.rpc.RpcException"
	case strategy.Thrown, strategy.ThrownBiz:
		a.Kind = r.kind.String()
		a.Code = ip(strategy.CodeOf(r.err))
		if r.kind == strategy.ThrownBiz {
			a.Code = ip(strategy.CodeBiz)
		}
		var me *mock.Error
		b := errors.As(r.err, &me)
		a.MockError = &b
	case strategy.ThrownOther:
		a.Kind = "thrown-other"
		a.ExClass = "java.lang.IllegalStateException"
	}
	return a
}
