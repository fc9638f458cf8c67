package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dubboroute/dubboroute/rules"
	"io"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/directory/zookeeper"
)

// zkFlags are the connection flags of get, push, rm and watch.
type zkFlags struct {
	addr, digest, root, group string
	timeout                   time.Duration
}

func addZKFlags(fs *flagSet) *zkFlags {
	z := &zkFlags{}
	fs.StringVar(&z.addr, "zk", "", "ZooKeeper `host:port` (comma-separated ensemble); required")
	fs.StringVar(&z.digest, "digest", "", "ZooKeeper digest credentials `user:pass` (ACL auth; nodes created get Dubbo's creator-only ACL)")
	fs.StringVar(&z.root, "root", zookeeper.DefaultRoot, "config-center root `path` (Java's dubbo.config-center.root-path)")
	fs.StringVar(&z.group, "group", zookeeper.DefaultGroup, "config-center `group`")
	fs.DurationVar(&z.timeout, "timeout", zookeeper.DefaultTimeout, "connect and operation `timeout`")
	return z
}

func dialZK(addr, digest, root, group, registryRoot string, timeout time.Duration) (*zookeeper.Client, error) {
	opts := []zookeeper.Option{zookeeper.WithTimeout(timeout), zookeeper.WithRoot(root), zookeeper.WithGroup(group)}
	if registryRoot != "" {
		opts = append(opts, zookeeper.WithRegistryRoot(registryRoot))
	}
	if digest != "" {
		opts = append(opts, zookeeper.WithDigest(digest))
	}
	c, err := zookeeper.Dial(strings.Split(addr, ","), opts...)
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
	c, err := dialZK(z.addr, z.digest, z.root, z.group, "", z.timeout)
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
	z := addZKFlags(fs)
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
	z := addZKFlags(fs)
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
	z := addZKFlags(fs)
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
	z := addZKFlags(fs)
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
