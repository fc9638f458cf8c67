package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
)

// ClusterCase is one case of the cluster differential (issue 24): a
// strategy over scripted providers, a consumer URL, load-balancer picks
// and the calls to make. integration/java's ClusterOracle runs it through
// Java 3.3.6's own cluster invokers and MockClusterInvoker, EvalCluster
// through dubboroute's cluster/strategy and cluster/mock.
type ClusterCase struct {
	ID             string            `json:"id"`
	Strategy       string            `json:"strategy"`
	Iface          string            `json:"iface,omitempty"` // "svc" (has a mock class) or "bare"
	Method         string            `json:"method"`
	Providers      []ClusterProvider `json:"providers"`
	Picks          []int             `json:"picks,omitempty"`
	Params         map[string]string `json:"params,omitempty"`
	ProviderParams map[string]string `json:"providerParams,omitempty"`
	Calls          int               `json:"calls,omitempty"`
	// RetriesAttachment is the client attachment retries: a JSON number
	// or string (nil: none).
	RetriesAttachment any  `json:"retriesAttachment,omitempty"`
	NoProvider        bool `json:"noProvider,omitempty"`
}

// ClusterProvider is a scripted provider: its availability and the
// outcome of each of its calls (the last repeats): ok, biz (a business
// exception in the Result), rpcres (a non-business RpcException in the
// Result: a triple status), fail (thrown, network), timeout (thrown),
// bizthrow (a thrown business RpcException), npe (a thrown
// non-RpcException).
type ClusterProvider struct {
	Avail  *bool    `json:"avail,omitempty"`
	Script []string `json:"script,omitempty"`
}

// ClusterAnswer is the answer to one case.
type ClusterAnswer struct {
	ID    string       `json:"id"`
	Error string       `json:"error,omitempty"`
	Calls []CallAnswer `json:"calls"`
}

// CallAnswer is the outcome of one call.
type CallAnswer struct {
	Kind      string          `json:"kind"`
	Code      *int            `json:"code,omitempty"`
	From      *int            `json:"from,omitempty"`
	Value     json.RawMessage `json:"value,omitempty"`
	ExClass   string          `json:"exClass,omitempty"`
	MockError *bool           `json:"mockError,omitempty"`
	Invoked   []int           `json:"invoked"`
	Selected  []int           `json:"selected,omitempty"`
}

var (
	clusterStrategies = []string{"failover", "failover", "failover", "failover", "failfast", "failsafe", "failback", "forking", "forking", "broadcast", "broadcast", "available"}
	clusterSteps      = []string{"ok", "ok", "ok", "ok", "fail", "fail", "fail", "biz", "biz", "rpcres", "timeout", "bizthrow", "npe"}
	clusterMethods    = []string{"str", "i32", "i64", "bool", "boxed", "list", "map", "pojo"}
	clusterMocks      = []string{
		"force:return null", "return null", "fail:return empty", "return empty", "force:return empty",
		"return 123", `return "x"`, "return `q`", "return 'y'", `return {"name":"a","count":2}`,
		`return ["a","b"]`, "return true", "return false", "return abc", "return 1.5", "return '12'",
		"throw", "force:throw", "throw java.lang.IllegalStateException", "fail:throw java.lang.IllegalArgumentException",
		"true", "default", "fail", "force", "force:true", "force:default", "null", "false", "0", "N/A",
		"return", "fail:return", " return 7 ", "return %7B%22name%22%3A%22u%22%7D", "return -1", "return {bad",
	}
)

// NextCluster draws a case.
func NextCluster(r *rand.Rand, id string) ClusterCase {
	c := ClusterCase{ID: id, Strategy: clusterStrategies[r.IntN(len(clusterStrategies))], Method: clusterMethods[r.IntN(len(clusterMethods))],
		Params: map[string]string{}, ProviderParams: map[string]string{}}
	if r.IntN(5) == 0 {
		c.Iface = "bare"
	}
	n := 1 + r.IntN(5)
	if r.IntN(30) == 0 {
		n = 0
	}
	c.Providers = []ClusterProvider{}
	for i := 0; i < n; i++ {
		p := ClusterProvider{}
		if r.IntN(7) == 0 {
			f := false
			p.Avail = &f
		}
		for k := 1 + r.IntN(3); k > 0; k-- {
			step := clusterSteps[r.IntN(len(clusterSteps))]
			if c.Strategy == "forking" && (step == "bizthrow" || step == "npe" || step == "rpcres") {
				// When every fork throws, Java and dubboroute throw the
				// last to finish, and the first non-thrown result wins:
				// keep the thrown kinds alike and the non-thrown ones
				// unmocked so the outcome does not depend on thread timing.
				step = "fail"
			}
			p.Script = append(p.Script, step)
		}
		c.Providers = append(c.Providers, p)
	}
	if n > 0 && r.IntN(25) == 0 {
		c.NoProvider = true
	}
	for k := 2 + r.IntN(6); k > 0; k-- {
		c.Picks = append(c.Picks, r.IntN(10))
	}
	if r.IntN(2) == 0 {
		c.Params["retries"] = strconv.Itoa(r.IntN(6) - 1)
	}
	if r.IntN(10) == 0 {
		c.Params[c.Method+".retries"] = strconv.Itoa(r.IntN(5))
	}
	switch c.Strategy {
	case "forking":
		if r.IntN(4) != 0 {
			c.Params["forks"] = strconv.Itoa(r.IntN(6) - 1)
		}
	case "broadcast":
		if r.IntN(4) != 0 {
			c.Params["broadcast.fail.percent"] = strconv.Itoa(r.IntN(13)*10 - 10)
		}
	}
	if r.IntN(7) == 0 {
		c.Params["cluster.availablecheck"] = "false"
	}
	if c.Strategy == "forking" && c.Params["cluster.availablecheck"] != "false" {
		// Java's ForkingClusterInvoker loops forever when fewer providers
		// are available than forks < n (pinned divergence
		// "forking-endless": dubboroute stops): keep them available.
		forks := 2
		if v, ok := c.Params["forks"]; ok {
			forks, _ = strconv.Atoi(v)
		}
		if forks > 0 && forks < len(c.Providers) {
			for i := range c.Providers {
				c.Providers[i].Avail = nil
			}
		}
	}
	if r.IntN(4) == 0 {
		c.ProviderParams["sticky"] = "true"
	}
	switch x := r.IntN(20); {
	case x < 3:
		c.RetriesAttachment = r.IntN(4)
	case x == 3:
		c.RetriesAttachment = strconv.Itoa(r.IntN(4))
	}
	if r.IntN(3) == 0 {
		v := clusterMocks[r.IntN(len(clusterMocks))]
		if r.IntN(5) == 0 {
			c.Params[c.Method+".mock"] = v
			if r.IntN(2) == 0 {
				c.Params["mock"] = clusterMocks[r.IntN(len(clusterMocks))]
			}
		} else {
			c.Params["mock"] = v
		}
	}
	c.Calls = 1
	// Forking skips forks once a result is in, so which providers a call
	// reached (and so the next call's script state) depends on timing.
	if r.IntN(4) == 0 && c.Strategy != "forking" {
		c.Calls = 2 + r.IntN(2)
	}
	return c
}

// GenerateCluster draws n cases from seed.
func GenerateCluster(n int, seed uint64) []ClusterCase {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]ClusterCase, n)
	for i := range out {
		out[i] = NextCluster(r, "k"+strconv.Itoa(i))
	}
	return out
}

// RunClusterOracle streams cases through one JVM running ClusterOracle.
func RunClusterOracle(ctx context.Context, cases []ClusterCase) ([]ClusterAnswer, error) {
	jar, err := Jar()
	if err != nil {
		return nil, err
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	enc.SetEscapeHTML(false)
	for i := range cases {
		if err := enc.Encode(&cases[i]); err != nil {
			return nil, fmt.Errorf("encode cluster case %s: %w", cases[i].ID, err)
		}
	}
	cmd := exec.CommandContext(ctx, "java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", jar, "io.github.dubboroute.it.ClusterOracle")
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = &in, &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("java cluster oracle: %w (stderr: %s)", err, tail(stderr.String()))
	}
	var ans []ClusterAnswer
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var a ClusterAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("java cluster oracle answer %q: %w", sc.Text(), err)
		}
		ans = append(ans, a)
	}
	if len(ans) != len(cases) {
		return nil, fmt.Errorf("java cluster oracle answered %d of %d cases (stderr: %s)", len(ans), len(cases), tail(stderr.String()))
	}
	return ans, nil
}
