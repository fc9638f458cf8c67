package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/router"
	"github.com/dubboroute/dubboroute/router/script"
	"github.com/dubboroute/dubboroute/rules"
)

const (
	envScriptCases     = "DUBBOROUTE_SCRIPT_CASES"
	defaultScriptCases = 1000
	defaultScriptSeed  = 20261203
)

// TestScriptOracleDifferential: generated Java-dialect script rules
// (NextScript) × providers × invocations, evaluated by Dubbo 3.3.6's own
// AppScriptStateRouter/ScriptStateRouter on Java 17 with standalone Nashorn
// 15.4 (the oracle, --client-attachments so that the script's context
// binding holds the call's attachments as in a consumer) and by dubboroute's
// chain with the rule in the script slot (router/script, Java dialect). The
// answers must agree: the routed providers (a call Java's router throws on
// is an empty result), the rejected rules. The one pinned divergence (a rule
// deleted after a rule was in force: Java throws on every call,
// known-script-deleted) is counted, not compared.
func TestScriptOracleDifferential(t *testing.T) {
	n := envInt(t, envScriptCases, defaultScriptCases)
	seed := uint64(envInt(t, envSeed, defaultScriptSeed))
	g := NewGenerator(seed)
	cases := make([]Case, n)
	for i := range cases {
		cases[i] = g.NextScript(fmt.Sprintf("s%d-%d", seed, i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	java, err := RunOracleArgs(ctx, cases, "--client-attachments")
	if err != nil {
		t.Fatal(err)
	}
	javaTime := time.Since(start)
	start = time.Now()
	goAns := make([]json.RawMessage, n)
	for i := range cases {
		goAns[i] = routeScriptCase(t, &cases[i])
	}
	t.Logf("%d script cases (seed %d): Java oracle %v, dubboroute %v", n, seed, javaTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	stats := compareAll(t, cases, java, goAns, comparison{
		what:  "script",
		shown: 5,
		count: func(i int, ja Answer, stats map[string]int) {
			c := &cases[i]
			if len(c.Rules) > 1 {
				stats["update"]++
			}
			if len(ja.Rejected) > 0 {
				stats["rejected rule"]++
			}
			switch {
			case ja.Dist[""] == "1":
				stats["no provider (Java threw or kept none)"]++
			case ja.Dist[joinIDs(c)] == "1":
				stats["all providers"]++
			default:
				stats["filtered"]++
			}
		},
		exclude: func(i int, ja, ga Answer, d string) string {
			if d != "" && scriptDeleted(&cases[i]) && ja.Dist[""] == "1" {
				return "script rule deleted after a rule was in force (pinned: known-script-deleted)"
			}
			return ""
		},
	})
	t.Logf("script cases: %v", stats)
	for _, k := range []string{"filtered", "all providers", "no provider (Java threw or kept none)", "update"} {
		if stats[k] == 0 {
			t.Errorf("no case exercised %q", k)
		}
	}
}

func joinIDs(c *Case) string {
	ids := make([]string, len(c.Providers))
	for i, p := range c.Providers {
		ids[i] = p.ID
	}
	return strings.Join(ids, ",")
}

func scriptDeleted(c *Case) bool {
	for _, r := range c.Rules {
		if r.Content == nil {
			return true
		}
	}
	return false
}

// routeScriptCase is dubboroute's answer to a script case, in the oracle's
// answer format: the events of the script key applied in order (a rule
// that fails to parse is rejected and the previous one stays, a delete
// clears the slot), then one call through a snapshot whose script slot
// holds the rule (the Java dialect).
func routeScriptCase(t *testing.T, c *Case) json.RawMessage {
	t.Helper()
	consumer, err := router.ParseURL(c.ConsumerURL)
	if err != nil {
		t.Fatalf("%s: consumer: %v", c.ID, err)
	}
	urls := make([]*router.URL, len(c.Providers))
	for i, p := range c.Providers {
		if urls[i], err = router.ParseURL(p.URL); err != nil {
			t.Fatalf("%s: provider: %v", c.ID, err)
		}
	}
	var ref cluster.RuleRef
	type rejection struct {
		Rule  int    `json:"rule"`
		Error string `json:"error"`
	}
	rejected := []rejection{}
	for i, r := range c.Rules {
		if r.Content == nil {
			ref = cluster.RuleRef{}
			continue
		}
		p, err := rules.ParseScriptRule(*r.Content, script.DialectJava)
		if err != nil {
			rejected = append(rejected, rejection{i, err.Error()})
			continue
		}
		ref = cluster.RuleRef{Key: *r.Key, Version: "1", Script: p.Script.Rule}
	}
	var rs cluster.Rules
	rs[cluster.SlotScript] = ref
	s := cluster.NewSnapshot(consumer, urls, rs, cluster.Options{})
	// The arguments as the oracle reads them (JSON numbers).
	var args []any
	b, _ := json.Marshal(c.Invocation.Arguments)
	_ = json.Unmarshal(b, &args)
	call := router.Call{Method: c.Invocation.Method, Args: args, Attachments: router.AttachmentMap(c.Invocation.Attachments)}
	set := s.RouteSet(&call, nil, nil)
	result := []string{}
	set.ForEach(func(i int) { result = append(result, c.Providers[i].ID) })
	out, err := json.Marshal(map[string]any{
		"id":           c.ID,
		"destinations": []map[string]any{{"result": result, "p": "1"}},
		"rejected":     rejected,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
