package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
	"github.com/dubboroute/dubboroute/rules"

	"github.com/dubboroute/dubboroute/internal/outcome"
)

// DigestEnv is the environment variable the ZooKeeper commands read digest
// credentials (user:password) from when neither --digest nor --digest-file
// is given; unlike argv it is not visible to other users in ps.
const DigestEnv = "DUBBOROUTE_ZK_DIGEST"

// zkSecFlags are the ZooKeeper credential, ACL and TLS flags.
type zkSecFlags struct {
	digest, digestFile                    string
	acl                                   string
	tls                                   bool
	tlsCA, tlsCert, tlsKey, tlsServerName string
}

func addZKSecFlags(fs *flagSet, s *zkSecFlags, withACL bool) {
	fs.StringVar(&s.digest, "digest", "", "ZooKeeper digest credentials `user:pass` (visible in ps: prefer --digest-file or $"+DigestEnv+")")
	fs.StringVar(&s.digestFile, "digest-file", "", "read the digest credentials user:pass from the first line of `file`")
	if withACL {
		fs.StringVar(&s.acl, "acl", "", "ACL of the nodes created, in zkCli's notation, e.g. `world:anyone:r,auth::cdrwa` (default: Dubbo's creator-only ACL with credentials, else world:anyone:cdrwa)")
	}
	fs.BoolVar(&s.tls, "tls", false, "connect with TLS (ZooKeeper's secureClientPort)")
	fs.StringVar(&s.tlsCA, "tls-ca", "", "PEM `file` of the CA certificates to trust (implies --tls; default: the system's)")
	fs.StringVar(&s.tlsCert, "tls-cert", "", "PEM client certificate `file` (implies --tls; with --tls-key)")
	fs.StringVar(&s.tlsKey, "tls-key", "", "PEM client key `file` (implies --tls)")
	fs.StringVar(&s.tlsServerName, "tls-server-name", "", "`name` to verify the server certificate against (default: the host dialed)")
}

// set reports whether any ZooKeeper security flag was given.
func (s *zkSecFlags) set() bool {
	return s.digest != "" || s.digestFile != "" || s.acl != "" || s.tls || s.tlsCA != "" || s.tlsCert != "" || s.tlsKey != ""
}

// credentials are the digest credentials: --digest, else --digest-file,
// else $DUBBOROUTE_ZK_DIGEST; empty for none.
func (s *zkSecFlags) credentials() (string, error) {
	switch {
	case s.digest != "":
		return s.digest, nil
	case s.digestFile != "":
		b, err := os.ReadFile(s.digestFile)
		if err != nil {
			return "", fmt.Errorf("digest credentials: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		line = strings.TrimSpace(line)
		if line == "" {
			return "", fmt.Errorf("digest credentials: %s: first line is empty", s.digestFile)
		}
		return line, nil
	}
	return strings.TrimSpace(os.Getenv(DigestEnv)), nil
}

// options are the client options the flags ask for.
func (s *zkSecFlags) options() ([]zookeeper.Option, error) {
	var opts []zookeeper.Option
	digest, err := s.credentials()
	if err != nil {
		return nil, err
	}
	if digest != "" {
		if !strings.Contains(digest, ":") {
			return nil, errors.New("digest credentials must be user:password")
		}
		opts = append(opts, zookeeper.WithDigest(digest))
	}
	if s.acl != "" {
		acl, err := zookeeper.ParseACL(s.acl)
		if err != nil {
			return nil, fmt.Errorf("--acl: %w", err)
		}
		opts = append(opts, zookeeper.WithACL(acl))
	}
	if s.tls || s.tlsCA != "" || s.tlsCert != "" || s.tlsKey != "" {
		cfg, err := zookeeper.TLSConfig(zookeeper.TLSFiles{CA: s.tlsCA, Cert: s.tlsCert, Key: s.tlsKey, ServerName: s.tlsServerName})
		if err != nil {
			return nil, err
		}
		opts = append(opts, zookeeper.WithTLS(cfg))
	}
	return opts, nil
}

func dialZK(addr, root, group, registryRoot string, timeout time.Duration, sec *zkSecFlags) (*zookeeper.Client, error) {
	opts := []zookeeper.Option{zookeeper.WithTimeout(timeout), zookeeper.WithRoot(root), zookeeper.WithGroup(group)}
	if registryRoot != "" {
		opts = append(opts, zookeeper.WithRegistryRoot(registryRoot))
	}
	more, err := sec.options()
	if err != nil {
		return nil, err
	}
	c, err := zookeeper.Dial(strings.Split(addr, ","), append(opts, more...)...)
	if err != nil {
		return nil, fmt.Errorf("connect to ZooKeeper %s: %w", addr, err)
	}
	return c, nil
}

// oneKey checks the positional arguments of a one-key command.
func oneKey(fs *flagSet, pos []string, extra int) (string, int, bool) {
	if len(pos) < 1 || len(pos) > 1+extra {
		return "", fs.usageErr("want %s", fs.synopsis), false
	}
	if _, err := rules.ParseKey(pos[0]); err != nil {
		return "", fs.usageErr("%v", err), false
	}
	return pos[0], 0, true
}

func runGet(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "get", "(--zk HOST:PORT | --nacos HOST:PORT) [flags] KEY",
		`Print the rule stored under a config-center key, read where Dubbo Admin
keeps it: on ZooKeeper the node <root>/<group>/<KEY> (by default
/dubbo/config/dubbo/<KEY>); on Nacos the config dataId <KEY> in group <group>
(default dubbo) of --namespace (default public).
The content goes to stdout as stored. If it is not a valid rule of the key's
kind, the errors go to stderr and the exit status is 1.`)
	z := addStoreFlags(fs, false)
	asJSON := fs.Bool("json", false, "print {key, path|dataId/group/namespace, version|md5, content, findings} as JSON")
	key, st, code, ok := z.keyAndOpen(fs, args)
	if !ok {
		return code
	}
	defer st.Close()
	where := st.Where(key)
	content, rev, err := st.Get(ctx, key)
	if errors.Is(err, errNoRule) {
		return fail(sio, "get", fmt.Errorf("no rule %s (%v)", key, err))
	}
	if err != nil {
		return fail(sio, "get", fmt.Errorf("read %s: %w", where, err))
	}
	res := lintRule(where, key, content, lintOptions{})
	e, _, _ := res.counts()
	if *asJSON {
		enc := json.NewEncoder(sio.Out)
		enc.SetEscapeHTML(false)
		m := rev.fields(st.Fields(key))
		m["key"], m["content"], m["findings"] = key, content, res.Findings
		_ = enc.Encode(m)
	} else {
		io.WriteString(sio.Out, content)
		if content != "" && !strings.HasSuffix(content, "\n") {
			io.WriteString(sio.Out, "\n")
		}
	}
	if e > 0 {
		for _, f := range res.Findings {
			if f.Severity == SevError {
				fmt.Fprintf(sio.Err, "%s get: %s is not a valid rule: %s %s\n", programName, where, f.Code, f.Message)
			}
		}
		return ExitFail
	}
	return ExitOK
}

func runPush(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "push", "(--zk HOST:PORT | --nacos HOST:PORT) [flags] KEY [FILE|-]",
		`Lint a rule and write it under a config-center key where Dubbo Admin keeps
it: on ZooKeeper at the node <root>/<group>/<KEY>, creating missing parents as
Dubbo Admin does; on Nacos as dataId <KEY>, group <group> (default dubbo).
The rule is read from FILE, or stdin. A rule with lint errors (one the runtime
would reject) is refused unless --force; warnings are printed and do not stop
the push.`)
	z := addStoreFlags(fs, true)
	force := fs.Bool("force", false, "push even when lint finds errors")
	asJSON := fs.Bool("json", false, "print {key, path|dataId/group/namespace, version|md5, findings} as JSON")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	key, code, ok := oneKey(fs, pos, 1)
	if !ok {
		return code
	}
	src := "-"
	if len(pos) == 2 {
		src = pos[1]
	}
	content, name, err := readInput(sio, src)
	if err != nil {
		return fail(sio, "push", err)
	}
	res := lintRule(name, key, content, lintOptions{})
	e, _, _ := res.counts()
	if len(res.Findings) > 0 && !*asJSON {
		writeFindings(sio.Err, false, res)
	}
	if e > 0 && !*force {
		return fail(sio, "push", fmt.Errorf("refused to push %s: %d lint error(s) (fix them, or use --force)", key, e))
	}
	st, code, ok := z.open(fs)
	if !ok {
		return code
	}
	defer st.Close()
	where := st.Where(key)
	rev, err := st.Put(ctx, key, content)
	if err != nil {
		return fail(sio, "push", fmt.Errorf("write %s: %w", where, err))
	}
	if *asJSON {
		enc := json.NewEncoder(sio.Out)
		enc.SetEscapeHTML(false)
		m := rev.fields(st.Fields(key))
		m["key"], m["findings"] = key, res.Findings
		_ = enc.Encode(m)
	} else {
		fmt.Fprintf(sio.Out, "pushed %s to %s (%s)\n", key, where, rev)
	}
	return ExitOK
}

func runRm(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "rm", "(--zk HOST:PORT | --nacos HOST:PORT) [flags] KEY",
		`Delete the rule stored under a config-center key. Consumers then route
without it (Java and dubboroute treat a deleted rule as "no rule").`)
	z := addStoreFlags(fs, false)
	key, st, code, ok := z.keyAndOpen(fs, args)
	if !ok {
		return code
	}
	defer st.Close()
	where := st.Where(key)
	if err := st.Delete(ctx, key); err != nil {
		if errors.Is(err, errNoRule) {
			return fail(sio, "rm", fmt.Errorf("no rule %s (%v)", key, err))
		}
		return fail(sio, "rm", fmt.Errorf("delete %s: %w", where, err))
	}
	fmt.Fprintf(sio.Out, "deleted %s (%s)\n", key, where)
	return ExitOK
}

// WatchEvent is one line of watch --json. Path and Version are
// ZooKeeper's; DataID, Group, Namespace and MD5 are Nacos's.
type WatchEvent struct {
	Time      string    `json:"time"`
	Key       string    `json:"key"`
	Path      string    `json:"path,omitempty"`
	DataID    string    `json:"dataId,omitempty"`
	Group     string    `json:"group,omitempty"`
	Namespace string    `json:"namespace,omitempty"`
	Type      string    `json:"type"`
	Version   *int32    `json:"version,omitempty"`
	MD5       string    `json:"md5,omitempty"`
	Content   string    `json:"content,omitempty"`
	Findings  []Finding `json:"findings"`
}

func runWatch(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "watch", "(--zk HOST:PORT | --nacos HOST:PORT) [flags] KEY...",
		`Print every change of the rules under the given keys as it happens, each
linted: first the current content (if any), then every add, update and delete,
until interrupted (or --count events). Watches re-read the rule after each
notification (ZooKeeper watches carry no data; Nacos's listener names the
changed configs), so changes faster than one read may arrive as one event with
the latest content.`)
	z := addStoreFlags(fs, false)
	asJSON := fs.Bool("json", false, "print one JSON object per event")
	count := fs.Int("count", 0, "stop after `n` events (0: run until interrupted)")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return fs.usageErr("no key given")
	}
	for _, k := range pos {
		if _, err := rules.ParseKey(k); err != nil {
			return fs.usageErr("%v", err)
		}
	}
	st, code, ok := z.open(fs)
	if !ok {
		return code
	}
	defer st.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	merged := make(chan storeEvent)
	done := make(chan struct{})
	live := 0
	for _, k := range pos {
		ch, err := st.Watch(wctx, k)
		if err != nil {
			return fail(sio, "watch", fmt.Errorf("watch %s: %w", st.Where(k), err))
		}
		live++
		go func() {
			defer func() { done <- struct{}{} }()
			for ev := range ch {
				select {
				case merged <- ev:
				case <-wctx.Done():
					return
				}
			}
		}()
	}
	if !*asJSON {
		fmt.Fprintf(sio.Out, "watching %s (Ctrl-C to stop)\n", strings.Join(pos, ", "))
	}
	enc := json.NewEncoder(sio.Out)
	enc.SetEscapeHTML(false)
	seen := 0
	for live > 0 {
		select {
		case ev := <-merged:
			printEvent(sio, enc, *asJSON, st, ev)
			seen++
			if *count > 0 && seen >= *count {
				cancel()
				drain(merged, done, live)
				return ExitOK
			}
		case <-done:
			live--
		case <-ctx.Done():
			cancel()
			drain(merged, done, live)
			return ExitOK
		}
	}
	if ctx.Err() == nil {
		return fail(sio, "watch", errors.New("the config-center client closed the watches"))
	}
	return ExitOK
}

// drain waits for the forwarding goroutines to end.
func drain(merged chan storeEvent, done chan struct{}, live int) {
	for live > 0 {
		select {
		case <-merged:
		case <-done:
			live--
		}
	}
}

func printEvent(sio Stdio, enc *json.Encoder, asJSON bool, st ruleStore, ev storeEvent) {
	now := time.Now().Format(time.RFC3339)
	where := st.Where(ev.Key)
	var res *LintResult
	if ev.Type != "delete" {
		res = lintRule(where, ev.Key, ev.Content, lintOptions{})
	}
	if asJSON {
		we := WatchEvent{Time: now, Key: ev.Key, Type: ev.Type, Content: ev.Content, Findings: []Finding{}}
		if ev.Rev.zk {
			v := ev.Rev.version
			we.Path, we.Version = where, &v
		} else {
			f := st.Fields(ev.Key)
			we.DataID, _ = f["dataId"].(string)
			we.Group, _ = f["group"].(string)
			we.Namespace, _ = f["namespace"].(string)
			we.MD5 = ev.Rev.md5
		}
		if res != nil {
			we.Findings = res.Findings
		}
		_ = enc.Encode(we)
		return
	}
	fmt.Fprintf(sio.Out, "%s %s %s (%s, %s)\n", now, paint(sio.Color, outcome.Bold, strings.ToUpper(ev.Type)), ev.Key, where, ev.Rev)
	if res == nil {
		return
	}
	for _, line := range strings.Split(strings.TrimRight(ev.Content, "\n"), "\n") {
		fmt.Fprintf(sio.Out, "    | %s\n", line)
	}
	if len(res.Findings) == 0 {
		fmt.Fprintf(sio.Out, "    lint: %s (%s)\n", paint(sio.Color, outcome.Green, "ok"), res.Summary)
		return
	}
	for _, f := range res.Findings {
		loc := ""
		if f.Line > 0 {
			loc = fmt.Sprintf("line %d: ", f.Line)
		}
		fmt.Fprintf(sio.Out, "    lint: %s%s %s %s: %s\n", loc, f.Severity, f.Code, f.Name, f.Message)
	}
}
