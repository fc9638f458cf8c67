package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/dubboroute/dubboroute/directory/memory"
	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
	"github.com/dubboroute/dubboroute/samples/bookfacade/consumer"
	"github.com/dubboroute/dubboroute/samples/bookfacade/provider"
	"github.com/dubboroute/dubboroute/samples/bookfacade/rules"
)

func main() {
	calls := flag.Int("calls", 6, "calls per table row")
	logLevel := flag.String("log", "fatal", "dubbo-go log level (debug, info, warn, error, fatal)")
	flag.Parse()
	if err := run(*calls, *logLevel); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	os.Exit(0) // providers serve until the process ends
}

type demo struct {
	calls      int
	p0, p1, p2 int
	c1, c2     *consumer.Consumer
}

func run(calls int, logLevel string) error {
	d := &demo{calls: calls}
	var notes []string
	d.p0, notes = pickPort(20880, notes)
	d.p1, notes = pickPort(20881, notes)
	d.p2, notes = pickPort(20882, notes)
	fmt.Println("dubboroute BookFacade demo: memory registry + memory config center, one process")
	for _, n := range notes {
		fmt.Println("note:", n)
	}
	for _, o := range []provider.Options{
		{Port: d.p0, Registry: "memory://", LogLevel: logLevel},
		{Port: d.p1, Registry: "memory://", LogLevel: logLevel},
		{Port: d.p2, Registry: "memory://", LogLevel: logLevel, Params: map[string]string{"status": "gray"}},
	} {
		o.Registered = memory.Registry.Registered(api.Interface)
		if _, err := provider.Start(o); err != nil {
			return err
		}
	}
	fmt.Printf("providers (application %s): %d, %d, %d (status=gray)\n", api.ProviderApp, d.p0, d.p1, d.p2)
	var err error
	if d.c1, err = consumer.New(consumer.Options{App: "demo-consumer1", Registry: "memory://", LoadBalance: "gray", LogLevel: logLevel}); err != nil {
		return err
	}
	if d.c2, err = consumer.New(consumer.Options{App: "demo-consumer2", Registry: "memory://", LoadBalance: "gray", LogLevel: logLevel}); err != nil {
		return err
	}
	fmt.Println("consumers: demo-consumer1, demo-consumer2 (loadbalance: gray)")

	d.scenario("1. no rule", nil, []row{
		{"demo-consumer1", "queryAll()", d.c1, all, nil},
		{"demo-consumer1", "queryByName(Go)", d.c1, byName, nil},
	})
	svc := api.ServiceRuleKey
	d.scenario("2. service rule: method=queryAll => address=*:20880, method=queryByName => address=*:20881", []string{svc}, []row{
		{"demo-consumer1", "queryAll()", d.c1, all, nil},
		{"demo-consumer1", "queryByName(Go)", d.c1, byName, nil},
		{"demo-consumer2", "queryByName(Go)", d.c2, byName, nil},
	})
	d.explain("demo-consumer1", "queryByName", nil)
	memory.DeleteRule(svc)
	d.scenario("3. application rule: application=demo-consumer1 => address=*:20880, application=demo-consumer2 => address=*:20881",
		[]string{"demo-consumer1.condition-router", "demo-consumer2.condition-router"}, []row{
			{"demo-consumer1", "queryAll()", d.c1, all, nil},
			{"demo-consumer1", "queryByName(Go)", d.c1, byName, nil},
			{"demo-consumer2", "queryAll()", d.c2, all, nil},
			{"demo-consumer2", "queryByName(Go)", d.c2, byName, nil},
		})
	d.scenario("3b. service rule + application rule together (Java order: service 140, then application; fail-fast)", []string{svc}, []row{
		{"demo-consumer1", "queryAll()", d.c1, all, nil},
		{"demo-consumer1", "queryByName(Go)", d.c1, byName, nil},
	})
	for _, k := range []string{svc, "demo-consumer1.condition-router", "demo-consumer2.condition-router"} {
		memory.DeleteRule(k)
	}
	tagKey := api.ProviderApp + ".tag-router"
	d.scenario("4. tag rule: gray => 0.0.0.0:20881 (force: false)", []string{tagKey}, []row{
		{"demo-consumer1", "queryAll() dubbo.tag=gray", d.c1, all, consumer.Attachments{"dubbo.tag": "gray"}},
		{"demo-consumer1", "queryAll() dubbo.tag=gray dubbo.force.tag=true", d.c1, all, consumer.Attachments{"dubbo.tag": "gray", "dubbo.force.tag": "true"}},
		{"demo-consumer1", "queryAll() no tag", d.c1, all, nil},
		{"demo-consumer1", "queryAll() dubbo.tag=blue", d.c1, all, consumer.Attachments{"dubbo.tag": "blue"}},
		{"demo-consumer1", "queryAll() dubbo.tag=blue dubbo.force.tag=true", d.c1, all, consumer.Attachments{"dubbo.tag": "blue", "dubbo.force.tag": "true"}},
	})
	memory.DeleteRule(tagKey)
	grayKey := api.ProviderApp + ".gray-router"
	gray := []row{}
	for _, u := range []string{"1", "5", "10", "11", "42"} {
		gray = append(gray, row{"demo-consumer1", "testUser(userId=" + u + ")", d.c1, byName, consumer.Attachments{"userId": u}})
	}
	d.scenario("5. gray rule: users 1-10 -> providers with status=gray", []string{grayKey}, gray)
	memory.DeleteRule(grayKey)
	d.scenario("6. all rules deleted", nil, []row{
		{"demo-consumer1", "queryAll()", d.c1, all, nil},
		{"demo-consumer1", "testUser(userId=1)", d.c1, byName, consumer.Attachments{"userId": "1"}},
	})
	fmt.Println("\ndone.")
	return nil
}

type callKind int

const (
	all callKind = iota
	byName
)

type row struct {
	app  string
	call string
	c    *consumer.Consumer
	kind callKind
	at   consumer.Attachments
}

func (d *demo) scenario(title string, ruleKeys []string, rows []row) {
	fmt.Printf("\n== %s\n", title)
	for _, k := range ruleKeys {
		content := d.ports(rules.MustGet(k))
		memory.PutRule(k, content)
		fmt.Printf("   rule %s (put)\n", k)
	}
	fmt.Printf("   %-16s %-50s %s\n", "consumer", "call", "served by (port x calls)")
	for _, r := range rows {
		served := map[string]int{}
		var lastErr error
		for i := 0; i < d.calls; i++ {
			p, err := r.do()
			if err != nil {
				served["no provider"]++
				lastErr = err
				continue
			}
			served[strconv.Itoa(p)]++
		}
		fmt.Printf("   %-16s %-50s %s\n", r.app, r.call, summary(served))
		if lastErr != nil {
			fmt.Printf("   %-16s %-50s   error: %s\n", "", "", short(lastErr.Error()))
		}
	}
}

func (r row) do() (int, error) {
	ctx := context.Background()
	if r.kind == all {
		bs, err := r.c.QueryAll(ctx, r.at)
		if err != nil {
			return 0, err
		}
		return api.PortOf(bs[0]), nil
	}
	b, err := r.c.QueryByName(ctx, "Go", r.at)
	if err != nil {
		return 0, err
	}
	return api.PortOf(b), nil
}

func (d *demo) explain(app, method string, at map[string]any) {
	b := extension.BindingFor(api.Interface, app)
	if b == nil {
		fmt.Println("   (no binding to explain)")
		return
	}
	out, tr := b.Explain(method, []any{"Go"}, at)
	var ps []string
	for _, ivk := range out {
		ps = append(ps, ivk.GetURL().Port)
	}
	fmt.Printf("\n   explain %s %s -> [%s]\n", app, method, strings.Join(ps, ","))
	for _, s := range tr.Steps {
		fmt.Printf("     %-13s %d -> %d  %-16s %s %s\n", s.Router, s.In, s.Out, s.Branch, s.Key, s.Detail)
		for _, c := range s.Conditions {
			fmt.Printf("       #%d %-45q when=%-5t %d -> %d %s\n", c.Index, c.Text, c.WhenMatched, c.In, c.Out, c.Branch)
		}
	}
}

// ports rewrites the demo ports in a rule file when free ports were used.
func (d *demo) ports(s string) string {
	return strings.NewReplacer("20880", strconv.Itoa(d.p0), "20881", strconv.Itoa(d.p1), "20882", strconv.Itoa(d.p2)).Replace(s)
}

func summary(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s x%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func short(s string) string {
	if i := strings.Index(s, "dubboroute: "); i >= 0 {
		s = s[i:]
	}
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

func pickPort(want int, notes []string) (int, []string) {
	if l, err := net.Listen("tcp", fmt.Sprintf(":%d", want)); err == nil {
		_ = l.Close()
		return want, notes
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return want, append(notes, fmt.Sprintf("port %d is taken and no free port was found: %v", want, err))
	}
	p := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return p, append(notes, fmt.Sprintf("port %d is taken; using %d instead (rules rewritten to match)", want, p))
}
