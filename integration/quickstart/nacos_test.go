package quickstart

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dnacos "github.com/dubboroute/dubboroute/directory/nacos"
	"github.com/dubboroute/dubboroute/integration/harness"
	inacos "github.com/dubboroute/dubboroute/integration/nacos"
	"github.com/dubboroute/dubboroute/integration/zk"
	"github.com/dubboroute/dubboroute/internal/cli"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// docsNacos is docs/nacos.md's own Nacos address; the test swaps in its
// private rnacos's.
const docsNacos = "127.0.0.1:8848"

// docBlock returns the fenced block of kind lang that follows the marker
// `<!-- quickstart:<name>` in docs/<file>.
func docBlock(t *testing.T, file, name, lang string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", file))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- quickstart:"+name)
	if i < 0 {
		t.Fatalf("docs/%s has no <!-- quickstart:%s marker", file, name)
	}
	s = s[i:]
	open := strings.Index(s, "```"+lang+"\n")
	if open < 0 {
		t.Fatalf("docs/%s: no ```%s block after the quickstart:%s marker", file, lang, name)
	}
	s = s[open+len("```"+lang+"\n"):]
	end := strings.Index(s, "\n```")
	if end < 0 {
		t.Fatalf("docs/%s: the quickstart %s block is not closed", file, name)
	}
	return s[:end+1]
}

// TestQuickstartNacos runs the README's quickstart program with
// docs/nacos.md's Nacos YAML as it stands (only the two addresses swapped
// for the private rnacos's and ZooKeeper's): providers on ZooKeeper, rules
// from Nacos. The seeds' service rule pushed with `dubboroute push --nacos`
// (dataId = the key, group dubbo, public namespace: where Dubbo Admin writes
// it) sends every queryAll to p1; the same key in Nacos's DEFAULT_GROUP
// (where dubbo-go v3.3.2 itself reads) with a rule to p2 changes nothing.
func TestQuickstartNacos(t *testing.T) {
	zsrv := zk.Start(t)
	nsrv := inacos.Start(t)
	bins := harness.SampleBinaries(t)
	bin := buildQuickstart(t)
	registry := "zookeeper://" + zsrv.Addr()
	p1 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: registry})
	p2 := harness.StartProvider(t, bins, harness.ProviderOptions{Registry: registry})

	ruleTo := func(port int) string {
		return "scope: service\nforce: true\nenabled: true\nkey: " + api.Interface + "\nconditions:\n  - method=queryAll => address=*:" + strconv.Itoa(port) + "\n"
	}
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if code := cli.Run(ctx, []string{"push", "--nacos", nsrv.Addr(), api.ServiceRuleKey, "-"}, cli.Stdio{In: strings.NewReader(ruleTo(p1.Port)), Out: &out, Err: &errb}); code != cli.ExitOK {
		t.Fatalf("dubboroute push --nacos: exit %d: %s%s", code, out.String(), errb.String())
	}
	t.Logf("%s", strings.TrimSpace(out.String()))
	dc, err := dnacos.Dial([]string{nsrv.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	if _, err := dc.PublishConfig(ctx, "DEFAULT_GROUP", api.ServiceRuleKey, ruleTo(p2.Port)); err != nil {
		t.Fatal(err)
	}

	yaml := docBlock(t, "nacos.md", "nacos-yaml", "yaml")
	if !strings.Contains(yaml, docsNacos) || !strings.Contains(yaml, readmeZK) || !strings.Contains(yaml, "protocol: nacos") {
		t.Fatalf("docs/nacos.md's quickstart YAML no longer has the Nacos and ZooKeeper addresses this test swaps:\n%s", yaml)
	}
	yaml = strings.ReplaceAll(strings.ReplaceAll(yaml, docsNacos, nsrv.Addr()), readmeZK, zsrv.Addr())
	f := &fixture{server: zsrv, bin: bin, p1: p1, p2: p2, yaml: yaml}
	f.expectRouted(t, run(t, bin, yaml), 1)
}
