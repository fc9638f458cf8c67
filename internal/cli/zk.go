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
)

// DigestEnv is the environment variable the ZooKeeper commands read digest
// credentials (user:password) from when neither --digest nor --digest-file
// is given; unlike argv it is not visible to other users in ps.
const DigestEnv = "DUBBOROUTE_ZK_DIGEST"

// zkFlags are the connection flags of get, push, rm and watch.
type zkFlags struct {
	addr, root, group string
	timeout           time.Duration
	sec               zkSecFlags
}

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

func addZKFlags(fs *flagSet, withACL bool) *zkFlags {
	z := &zkFlags{}
	fs.StringVar(&z.addr, "zk", "", "ZooKeeper `host:port` (comma-separated ensemble); required")
	addZKSecFlags(fs, &z.sec, withACL)
	fs.StringVar(&z.root, "root", zookeeper.DefaultRoot, "config-center root `path` (Java's dubbo.config-center.root-path)")
	fs.StringVar(&z.group, "group", zookeeper.DefaultGroup, "config-center `group`")
	fs.DurationVar(&z.timeout, "timeout", zookeeper.DefaultTimeout, "connect and operation `timeout`")
	return z
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

func (z *zkFlags) dial(fs *flagSet) (*zookeeper.Client, int, bool) {
	if z.addr == "" {
		return nil, fs.usageErr("--zk is required"), false
	}
	if z.timeout <= 0 {
		return nil, fs.usageErr("--timeout must be positive"), false
	}
	c, err := dialZK(z.addr, z.root, z.group, "", z.timeout, &z.sec)
	if err != nil {
		return nil, fail(fs.sio, strings.TrimPrefix(fs.Name(), programName+" "), err), false
	}
	return c, 0, true
}

// keyAndDial is the start of a command that takes exactly one key and
// talks to ZooKeeper: parse the flags, take the key, dial.
func (z *zkFlags) keyAndDial(fs *flagSet, args []string) (string, *zookeeper.Client, int, bool) {
	pos, code, ok := fs.parse(args)
	if !ok {
		return "", nil, code, false
	}
	key, code, ok := oneKey(fs, pos, 0)
	if !ok {
		return "", nil, code, false
	}
	c, code, ok := z.dial(fs)
	if !ok {
		return "", nil, code, false
	}
	return key, c, 0, true
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
	fs := newFlags(sio, "get", "--zk HOST:PORT [flags] KEY",
		`Print the rule stored under a config-center key, read from the node Dubbo
Admin uses (<root>/<group>/<KEY>, by default /dubbo/config/dubbo/<KEY>).
The content goes to stdout as stored. If it is not a valid rule of the key's
kind, the errors go to stderr and the exit status is 1.`)
	z := addZKFlags(fs, false)
	asJSON := fs.Bool("json", false, "print {key, path, version, content, findings} as JSON")
	key, c, code, ok := z.keyAndDial(fs, args)
	if !ok {
		return code
	}
	defer c.Close()
	path, _ := c.RulePath(key)
	content, version, err := c.GetRule(ctx, key)
	if errors.Is(err, zookeeper.ErrNotFound) {
		return fail(sio, "get", fmt.Errorf("no rule %s (node %s does not exist)", key, path))
	}
	if err != nil {
		return fail(sio, "get", fmt.Errorf("read %s: %w", path, err))
	}
	res := lintRule(path, key, content, lintOptions{})
	e, _, _ := res.counts()
	if *asJSON {
		enc := json.NewEncoder(sio.Out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]any{"key": key, "path": path, "version": version, "content": content, "findings": res.Findings})
	} else {
		io.WriteString(sio.Out, content)
		if content != "" && !strings.HasSuffix(content, "\n") {
			io.WriteString(sio.Out, "\n")
		}
	}
	if e > 0 {
		for _, f := range res.Findings {
			if f.Severity == SevError {
				fmt.Fprintf(sio.Err, "%s get: %s is not a valid rule: %s %s\n", programName, path, f.Code, f.Message)
			}
		}
		return ExitFail
	}
	return ExitOK
}

func runPush(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "push", "--zk HOST:PORT [flags] KEY [FILE|-]",
		`Lint a rule and write it under a config-center key, at the node Dubbo Admin
uses, creating missing parents as Dubbo Admin does. The rule is read from FILE,
or stdin. A rule with lint errors (one the runtime would reject) is refused
unless --force; warnings are printed and do not stop the push.`)
	z := addZKFlags(fs, true)
	force := fs.Bool("force", false, "push even when lint finds errors")
	asJSON := fs.Bool("json", false, "print {key, path, version, findings} as JSON")
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
	c, code, ok := z.dial(fs)
	if !ok {
		return code
	}
	defer c.Close()
	path, _ := c.RulePath(key)
	version, err := c.PutRule(ctx, key, content)
	if err != nil {
		return fail(sio, "push", fmt.Errorf("write %s: %w", path, err))
	}
	if *asJSON {
		enc := json.NewEncoder(sio.Out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]any{"key": key, "path": path, "version": version, "findings": res.Findings})
	} else {
		fmt.Fprintf(sio.Out, "pushed %s to %s (data version %d)\n", key, path, version)
	}
	return ExitOK
}

func runRm(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "rm", "--zk HOST:PORT [flags] KEY",
		`Delete the rule stored under a config-center key. Consumers then route
without it (Java and dubboroute treat a deleted node as "no rule").`)
	z := addZKFlags(fs, false)
	key, c, code, ok := z.keyAndDial(fs, args)
	if !ok {
		return code
	}
	defer c.Close()
	path, _ := c.RulePath(key)
	if err := c.DeleteRule(ctx, key); err != nil {
		if errors.Is(err, zookeeper.ErrNotFound) {
			return fail(sio, "rm", fmt.Errorf("no rule %s (node %s does not exist)", key, path))
		}
		return fail(sio, "rm", fmt.Errorf("delete %s: %w", path, err))
	}
	fmt.Fprintf(sio.Out, "deleted %s (%s)\n", key, path)
	return ExitOK
}

// WatchEvent is one line of watch --json.
type WatchEvent struct {
	Time     string    `json:"time"`
	Key      string    `json:"key"`
	Path     string    `json:"path"`
	Type     string    `json:"type"`
	Version  int32     `json:"version"`
	Content  string    `json:"content,omitempty"`
	Findings []Finding `json:"findings"`
}

func runWatch(ctx context.Context, sio Stdio, args []string) int {
	fs := newFlags(sio, "watch", "--zk HOST:PORT [flags] KEY...",
		`Print every change of the rules under the given keys as it happens, each
linted: first the current content (if any), then every add, update and delete,
until interrupted (or --count events). ZooKeeper watches carry no data, so
changes faster than one read may arrive as one event with the latest content.`)
	z := addZKFlags(fs, false)
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
	c, code, ok := z.dial(fs)
	if !ok {
		return code
	}
	defer c.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	merged := make(chan zookeeper.RuleEvent)
	done := make(chan struct{})
	live := 0
	for _, k := range pos {
		ch, err := c.WatchRule(wctx, k)
		if err != nil {
			return fail(sio, "watch", fmt.Errorf("watch %s: %w", k, err))
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
			printEvent(sio, enc, *asJSON, ev)
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
		return fail(sio, "watch", errors.New("the ZooKeeper client closed the watches"))
	}
	return ExitOK
}

// drain waits for the forwarding goroutines to end.
func drain(merged chan zookeeper.RuleEvent, done chan struct{}, live int) {
	for live > 0 {
		select {
		case <-merged:
		case <-done:
			live--
		}
	}
}

func printEvent(sio Stdio, enc *json.Encoder, asJSON bool, ev zookeeper.RuleEvent) {
	now := time.Now().Format(time.RFC3339)
	var res *LintResult
	if ev.Type != zookeeper.RuleDeleted {
		res = lintRule(ev.Path, ev.Key, ev.Content, lintOptions{})
	}
	if asJSON {
		we := WatchEvent{Time: now, Key: ev.Key, Path: ev.Path, Type: ev.Type.String(), Version: ev.Version, Content: ev.Content, Findings: []Finding{}}
		if res != nil {
			we.Findings = res.Findings
		}
		_ = enc.Encode(we)
		return
	}
	fmt.Fprintf(sio.Out, "%s %s %s (%s, data version %d)\n", now, paint(sio.Color, cBold, strings.ToUpper(ev.Type.String())), ev.Key, ev.Path, ev.Version)
	if res == nil {
		return
	}
	for _, line := range strings.Split(strings.TrimRight(ev.Content, "\n"), "\n") {
		fmt.Fprintf(sio.Out, "    | %s\n", line)
	}
	if len(res.Findings) == 0 {
		fmt.Fprintf(sio.Out, "    lint: %s (%s)\n", paint(sio.Color, cGreen, "ok"), res.Summary)
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
