package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	conf "dubbo.apache.org/dubbo-go/v3/common/config"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/configurator"
	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/internal/cli"
	"github.com/dubboroute/dubboroute/internal/outcome"
	"github.com/dubboroute/dubboroute/router"
)

// Samples of every oracle kind's generated cases (condition and tag,
// mesh, affinity, configurators alone and with mesh, affinity and the
// mixed kinds) that TestRuntimeMatchesBatch runs.
const (
	runtimeCasesPerKind = 60
	runtimeSeed         = 20261201
)

// TestRuntimeMatchesBatch: the Java oracle differentials prove `dubboroute
// route` (the batch assembly of a case's rules); this test proves that a
// running consumer assembles the same rules from the same events. Every
// sampled case goes through a real binding: dubbo-go invokers for its
// providers, its keyed rules written to the memory config center (the
// first content of each key before the reference is built, later ones as
// change events after its first providers arrived), the binding created
// by dubbo-go's router factory ("tag", which the extension replaces) and
// fed through the router's Notify. The binding's snapshot is then routed
// (every weighted outcome enumerated with Java's probabilities, as the
// console does) and compared with the batch answer for the same case and
// the binding's own consumer URL: the eligible providers and their
// probabilities, and with configurators the disabled providers and the
// weights. Any divergence between the two paths fails.
//
// The registry's override:// URLs reach the binding as the ZooKeeper
// watch hands them over (Binding.SetRegistryConfigurators), an update to
// empty content as ZooKeeper delivers it (a change to ""). No case is
// skipped: the rule shapes no config center holds (single conditions and
// registry router URLs, extra routers of the route command) are taken out
// of the case for both paths, and the cases that had them are counted.
func TestRuntimeMatchesBatch(t *testing.T) {
	dc := memory.NewDynamicConfiguration(memory.Configs, "")
	env := conf.GetEnvInstance()
	prev := env.GetDynamicConfiguration()
	env.SetDynamicConfiguration(dc)
	t.Cleanup(func() { env.SetDynamicConfiguration(prev) })
	_ = extension.GrayName // the blank import's registrations: the binding factory is "tag"

	g := NewGenerator(runtimeSeed)
	kinds := []struct {
		name string
		next func(*Generator, string) Case
	}{
		{"condition-tag", (*Generator).Next},
		{"mesh", (*Generator).NextMesh},
		{"affinity", (*Generator).NextAffinity},
		{"configurators", (*Generator).NextConfigurators},
		{"configurators-mesh", (*Generator).NextConfiguratorsMesh},
		{"configurators-affinity", (*Generator).NextConfiguratorsAffinity},
		{"configurators-mixed", (*Generator).NextConfiguratorsMixed},
	}
	compared, unkeyed := map[string]int{}, map[string]int{}
	for _, k := range kinds {
		for i := 0; i < runtimeCasesPerKind; i++ {
			c := k.next(g, fmt.Sprintf("rt-%s-%d", k.name, i))
			if n := dropUnkeyed(&c); n > 0 {
				unkeyed[k.name]++
			}
			rt, bc := runRuntime(t, &c)
			lines, err := RunRoute(context.Background(), []Case{bc})
			if err != nil {
				t.Fatal(err)
			}
			batch, err := Normalize(lines[0])
			if err != nil {
				t.Fatal(err)
			}
			if batch.Error {
				t.Errorf("%s: the batch could not evaluate the case: %s", c.ID, lines[0])
				continue
			}
			batch.Rejected, batch.Unread = nil, nil // the runtime reports them per key, not per case rule
			if !hasConfigurators(&c) {
				batch.Weights, batch.Disabled = nil, nil
				rt.Weights, rt.Disabled = nil, nil
			}
			if d := Diff(batch, rt); d != "" {
				js, _ := json.Marshal(bc)
				t.Errorf("%s (%s): runtime and batch differ: %s\ncase: %s", c.ID, k.name, d, js)
			}
			compared[k.name]++
		}
	}
	t.Logf("compared %v; of them without their unkeyed rules %v", compared, unkeyed)
	for _, k := range kinds {
		if compared[k.name] < runtimeCasesPerKind/3 {
			t.Errorf("%s: only %d of %d cases compared", k.name, compared[k.name], runtimeCasesPerKind)
		}
	}
}

// dropUnkeyed removes the case's rules that have no config-center key
// (single conditions and registry router URLs: route's extra routers, which
// no config center holds and a Java 3.x consumer ignores in its registry)
// and says how many it removed. Both paths then see the same case.
func dropUnkeyed(c *Case) int {
	kept := c.Rules[:0]
	for _, r := range c.Rules {
		if r.Key != nil {
			kept = append(kept, r)
		}
	}
	n := len(c.Rules) - len(kept)
	c.Rules = kept
	return n
}

func hasConfigurators(c *Case) bool {
	for _, r := range c.Rules {
		if r.Key != nil && strings.HasSuffix(*r.Key, ".configurators") {
			return true
		}
	}
	return false
}

// runRuntime runs case c through a real binding and returns its answer,
// and the case as the batch is to see it (the binding's consumer URL).
func runRuntime(t *testing.T, c *Case) (Answer, Case) {
	t.Helper()
	keys := map[string]bool{}
	var updates []Rule
	for _, r := range c.Rules {
		if !keys[*r.Key] {
			keys[*r.Key] = true
			if r.Content != nil {
				memory.PutRule(*r.Key, *r.Content)
			}
			continue
		}
		updates = append(updates, r)
	}
	defer func() {
		for k := range keys {
			memory.DeleteRule(k)
		}
	}()
	ref, err := common.NewURL(c.ConsumerURL)
	if err != nil {
		t.Fatalf("%s: consumer URL: %v", c.ID, err)
	}
	if c.Affinity {
		ref.SetParam(extension.AffinityParam, "true")
	}
	reg, _ := common.NewURL("memory://127.0.0.1:0")
	reg.SubURL = ref
	b := extension.NewBinding(reg)
	defer b.Release()
	if len(c.RegistryConfigurators) > 0 {
		// The registry's override:// URLs, as the ZooKeeper watch hands
		// them over with the first notification.
		var urls []*router.URL
		for _, raw := range c.RegistryConfigurators {
			u, err := router.ParseURL(raw)
			if err != nil {
				t.Fatalf("%s: registry configurator %s: %v", c.ID, raw, err)
			}
			urls = append(urls, u)
		}
		l, err := configurator.RegistryList(b.Consumer(), urls, configurator.Origin{Key: "/dubbo/" + Iface + "/configurators"})
		if err != nil {
			t.Fatalf("%s: registry configurators: %v", c.ID, err)
		}
		b.SetRegistryConfigurators(l)
	}
	invokers := make([]base.Invoker, len(c.Providers))
	byInvoker := map[base.Invoker]string{}
	for i, p := range c.Providers {
		u, err := common.NewURL(p.URL)
		if err != nil {
			t.Fatalf("%s: provider %s: %v", c.ID, p.ID, err)
		}
		invokers[i] = base.NewBaseInvoker(u)
		byInvoker[invokers[i]] = p.ID
	}
	b.Notify(invokers)
	for _, r := range updates {
		switch {
		case r.Content == nil:
			memory.DeleteRule(*r.Key)
		case *r.Content == "":
			// A node set empty (ZooKeeper keeps it): a change to "".
			if _, ok := memory.Configs.Get(memory.DefaultGroup, *r.Key); !ok {
				memory.PutRule(*r.Key, "\n")
			}
			memory.Configs.PutEmpty(memory.DefaultGroup, *r.Key)
		default:
			memory.PutRule(*r.Key, *r.Content)
		}
	}

	s := b.Chain().Snapshot()
	bc := *c
	bc.ConsumerURL = b.Consumer().String()
	bc.Affinity = c.Affinity

	inv := invocation.NewRPCInvocation(c.Invocation.Method, javaArgs(t, c.Invocation.Arguments), attachmentsOf(c.Invocation.Attachments))
	call := cluster.CallOf(inv)
	// ids names the providers of a set of snapshot members.
	idsOf := func(members []base.Invoker, set *router.Set) []string {
		out := []string{}
		set.ForEach(func(i int) { out = append(out, byInvoker[unwrap(members[i])]) })
		return out
	}
	provURLs := make([]*router.URL, len(invokers))
	for i, ivk := range invokers {
		provURLs[i] = cluster.FromDubbo(ivk.GetURL())
	}
	leaves, err := outcome.Enumerate(func(rnd router.Rand) func(*router.Trace) *router.Set {
		snap, index := cluster.NewConfiguredSnapshot(s.OriginalConsumer, provURLs, s.Rules, s.Configurators, cluster.Options{Rand: rnd})
		members := make([]base.Invoker, len(index))
		for m, i := range index {
			members[m] = invokers[i]
		}
		if index == nil {
			members = invokers
		}
		return func(tr *router.Trace) *router.Set {
			set := snap.RouteSet(&call, tr, nil)
			idsCache = idsOf(members, set)
			return set
		}
	}, func(*router.Set) []string { return idsCache })
	if err != nil {
		t.Fatalf("%s: enumerate: %v", c.ID, err)
	}
	// The outcomes as the route command writes them, reduced as its
	// answers are.
	line, err := json.Marshal(map[string]any{"destinations": leaves})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Normalize(line)
	if err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	// The live snapshot itself (what a call routes on now) must give one of
	// the enumerated results. Not checked with mesh rules: their weighted
	// destinations draw from the chain's random source without a per-pick
	// trace entry, so the enumeration (here and in the batch alike) follows
	// only the first draw value.
	if hasMesh(c) {
		return finish(c, s, a, provURLs, byInvoker, call.Method), bc
	}
	routed, _ := b.Explain(c.Invocation.Method, javaArgs(t, c.Invocation.Arguments), attachmentsOf(c.Invocation.Attachments))
	var live []string
	for _, ivk := range routed {
		live = append(live, byInvoker[unwrap(ivk)])
	}
	sort.Slice(live, func(i, j int) bool { return providerIndex(c, live[i]) < providerIndex(c, live[j]) })
	if _, ok := a.Dist[strings.Join(live, ",")]; !ok {
		js, _ := json.Marshal(c)
		t.Errorf("%s: the live snapshot routed %v, not among the enumerated outcomes %v\ncase: %s", c.ID, live, a.Dist, js)
	}
	return finish(c, s, a, provURLs, byInvoker, call.Method), bc
}

// finish adds the weights of the snapshot's members and the disabled
// providers, as the batch reports them.
func finish(c *Case, s *cluster.Snapshot, a Answer, provURLs []*router.URL, byInvoker map[base.Invoker]string, method string) Answer {
	a.Weights = map[string]string{}
	for i := range s.URLs {
		var prov *configurator.Provider
		if i < len(s.Configured) {
			prov = s.Configured[i]
		}
		if prov == nil {
			prov = &configurator.Provider{URL: s.URLs[i], Consumer: s.Consumer}
		}
		a.Weights[byInvoker[unwrap(s.Invokers[i])]] = prov.Weight(method)
	}
	byURL := map[string]string{}
	for i, u := range provURLs {
		byURL[u.String()] = c.Providers[i].ID
	}
	for _, d := range s.Disabled {
		a.Disabled = append(a.Disabled, byURL[d.URL.String()])
	}
	sort.Strings(a.Disabled)
	return a
}

func hasMesh(c *Case) bool {
	for _, r := range c.Rules {
		if r.Key != nil && strings.HasSuffix(*r.Key, ".MESHAPPRULE") {
			return true
		}
	}
	return false
}

// idsCache hands Enumerate the ids of the set just routed (the members of
// the snapshot compiled for that run).
var idsCache []string

func providerIndex(c *Case, id string) int {
	for i, p := range c.Providers {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// unwrap returns the provider invoker behind the binding's wrappers.
func unwrap(ivk base.Invoker) base.Invoker {
	for {
		w, ok := ivk.(interface{ Unwrap() base.Invoker })
		if !ok {
			return ivk
		}
		ivk = w.Unwrap()
	}
}

// javaArgs turns a case's arguments into what the batch passes (through
// JSON, as the route command reads them: cli.JavaValue).
func javaArgs(t *testing.T, args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = cli.JavaValue(raw); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func attachmentsOf(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
